// The inspector's small tools: elements, the status line, API calls, the confirmation dialog and
// the undo toast. Every value from memory is shown as text (textContent), never as markup.
export const $ = (id) => document.getElementById(id);
export const enc = encodeURIComponent;

/** Connection: the API key typed in (sent as the bearer key of every call). */
export const connection = { key: "" };

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

export function say(message, error = false) {
  $("status").textContent = message;
  $("status").classList.toggle("error", error);
}

/** An API answer that is not 2xx: its code (USER_NOT_FOUND…), status and message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(code ? `${code}: ${message}` : message);
    this.status = status;
    this.code = code;
  }
}

export async function api(method, path, body) {
  const headers = {};
  if (connection.key) headers.authorization = `Bearer ${connection.key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, data.error?.code, data.error?.message ?? `HTTP ${res.status}`);
  return data;
}

/** `2026-11-01 10:00` from an ISO time. */
export const day = (iso) => (iso ? iso.replace("T", " ").slice(0, 16) : "");
/** At most `n` characters, with an ellipsis when cut. */
export const clip = (text, n = 80) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

/**
 * Asks in the page's dialog. `options.input`: a value to edit (resolves to the typed value);
 * `options.danger`: the confirming button says so and looks destructive. Resolves null when cancelled.
 */
export function ask(title, text, options = {}) {
  const dialog = $("dialog");
  const editing = options.input !== undefined;
  $("dialog-title").textContent = title;
  $("dialog-text").textContent = text;
  $("dialog-field").hidden = !editing;
  $("dialog-input").value = options.input ?? "";
  $("dialog-input").required = editing;
  const ok = $("dialog-ok");
  ok.textContent = options.confirm ?? (editing ? "Save" : "Yes, delete");
  ok.classList.toggle("danger", !editing);
  dialog.returnValue = "";
  dialog.showModal();
  (editing ? $("dialog-input") : $("dialog-cancel")).focus();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue !== "ok" ? null : editing ? $("dialog-input").value : true), { once: true });
  });
}

let toastTimer = 0;

/**
 * Shows `message` in the toast for `seconds`, with an Undo button when `undo` is given; the undo
 * runs at most once, and the toast goes when it has run or the time is up.
 */
export function toast(message, seconds, undo) {
  const box = $("toast");
  clearInterval(toastTimer);
  const text = el("span", { text: message });
  const left = el("span", { class: "meta" });
  const children = [text];
  if (undo) {
    let done = false;
    const button = el("button", { type: "button", class: "secondary", text: "Undo", onclick: async () => {
      if (done) return;
      done = true;
      clearInterval(toastTimer);
      box.hidden = true;
      await undo();
    } });
    children.push(" ", button, " ", left);
  }
  box.replaceChildren(...children);
  box.hidden = false;
  const ends = Date.now() + seconds * 1000;
  const tick = () => {
    const remaining = Math.ceil((ends - Date.now()) / 1000);
    if (remaining <= 0) {
      clearInterval(toastTimer);
      box.hidden = true;
      return;
    }
    left.textContent = `(${remaining} s)`;
  };
  tick();
  toastTimer = setInterval(tick, 1000);
}

/** Moves focus to `node` (a card or row that just appeared), so a keyboard or screen-reader user lands on it. */
export function focusOn(node) {
  node.tabIndex = -1;
  node.focus();
}
