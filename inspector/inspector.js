// The memory inspector: plain DOM, no framework, no network but this service's own API. Every
// value from memory is shown as text (textContent), never as markup.
const $ = (id) => document.getElementById(id);
const state = { key: "", user: "", facts: [], events: [], eventsOffset: 0, sessions: [], session: "" };
const PAGE = 50;

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function say(message, error = false) {
  $("status").textContent = message;
  $("status").classList.toggle("error", error);
}

async function api(method, path, body) {
  const headers = {};
  if (state.key) headers.authorization = `Bearer ${state.key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error ? `${data.error.code}: ${data.error.message}` : `HTTP ${res.status}`);
  return data;
}

const enc = encodeURIComponent;
const userPath = () => `/v1/users/${enc(state.user)}`;
const day = (iso) => (iso ? iso.replace("T", " ").slice(0, 16) : "");

/** Asks in the page's dialog; resolves to the typed value (with `input`), true, or null when cancelled. */
function ask(title, text, input) {
  const dialog = $("dialog");
  $("dialog-title").textContent = title;
  $("dialog-text").textContent = text;
  $("dialog-field").hidden = input === undefined;
  $("dialog-input").value = input ?? "";
  $("dialog-ok").textContent = input === undefined ? "Yes, delete" : "Save";
  dialog.returnValue = "";
  dialog.showModal();
  (input === undefined ? $("dialog-ok") : $("dialog-input")).focus();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue !== "ok" ? null : input === undefined ? true : $("dialog-input").value), { once: true });
  });
}

/** Runs a change, says how it went, and reloads what it touched. */
async function change(what, work, reload) {
  try {
    await work();
    say(`${what}: done.`);
    await reload();
  } catch (error) {
    say(`${what} failed: ${error.message}`, true);
  }
}

function renderFacts() {
  const showAll = $("show-superseded").checked;
  const rows = state.facts.filter((fact) => showAll || fact.valid_to === null).map((fact) => {
    const current = fact.valid_to === null;
    const name = `${fact.key}: ${fact.value}`;
    const actions = el("td", { class: "actions", "data-label": "Actions" },
      el("button", { type: "button", class: "secondary", text: "History", "aria-label": `History of ${name}`, onclick: () => showHistory(fact.id) }));
    if (current) {
      actions.append(
        el("button", { type: "button", text: "Edit", "aria-label": `Edit ${name}`, onclick: () => editFact(fact) }),
        el("button", { type: "button", class: "secondary", text: fact.pinned ? "Unpin" : "Pin", "aria-label": `${fact.pinned ? "Unpin" : "Pin"} ${name}`, onclick: () => pinFact(fact) }),
      );
    }
    actions.append(el("button", { type: "button", class: "danger", text: "Delete", "aria-label": `Delete ${name}`, onclick: () => deleteFact(fact) }));
    return el("tr", { "data-fact-id": fact.id },
      el("td", { "data-label": "Key", text: fact.key }),
      el("td", { "data-label": "Value" }, fact.value, fact.pinned ? el("span", { class: "badge", text: " pinned" }) : null, current ? null : el("span", { class: "badge stale", text: " superseded" })),
      el("td", { "data-label": "Since", text: day(fact.valid_from) }),
      el("td", { "data-label": "Source", text: fact.source === "edit" ? "edit" : "extraction" }),
      actions);
  });
  $("facts").replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: "5", text: "No facts." }))]));
}

async function loadFacts() {
  state.facts = (await api("GET", `${userPath()}/facts`)).facts;
  renderFacts();
}

async function showHistory(id) {
  const { history } = await api("GET", `${userPath()}/facts/${enc(id)}`);
  const box = $("fact-history");
  box.replaceChildren(el("h3", { text: `History of ${history[0]?.key ?? id}` }), el("ol", {}, ...history.map((v) =>
    el("li", {}, `${v.value} `, el("span", { class: "meta", text: `from ${day(v.valid_from)} to ${v.valid_to ? day(v.valid_to) : "now"}; ${v.source === "edit" ? "edited" : `learned from message ${v.source_message_ids.join(", ") || "?"}`}${v.superseded_by ? `; superseded by ${v.superseded_by}` : ""}` })))));
  box.hidden = false;
  box.tabIndex = -1;
  box.focus();
}

async function editFact(fact) {
  const value = await ask(`Edit ${fact.key}`, "The new value becomes a new version; the old one is kept in the history.", fact.value);
  if (value === null) return;
  await change(`Edit of ${fact.key}`, () => api("PATCH", `${userPath()}/facts/${enc(fact.id)}`, { value }), loadFacts);
}

const pinFact = (fact) => change(`${fact.pinned ? "Unpin" : "Pin"} of ${fact.key}`, () => api("PATCH", `${userPath()}/facts/${enc(fact.id)}`, { pinned: !fact.pinned }), loadFacts);

async function deleteFact(fact) {
  const what = `"${fact.key}: ${fact.value}" and every earlier version of it will be deleted for good, and cut out of the messages, events and summaries that state them.`;
  if (!(await ask(`Delete ${fact.key}?`, what))) return;
  await change(`Delete of ${fact.key}`, () => api("DELETE", `${userPath()}/facts/${enc(fact.id)}?versions=all`), loadFacts);
}

function eventItem(event) {
  return el("li", { "data-event-id": event.id },
    el("strong", { text: event.type }), ` ${event.text} `,
    el("span", { class: "meta", text: `importance ${event.importance}, ${day(event.created_at)}, session ${event.session_id}` }), " ",
    el("button", { type: "button", class: "danger", text: "Delete", "aria-label": `Delete event ${event.type}: ${event.text.slice(0, 40)}`, onclick: async () => {
      if (!(await ask("Delete this event?", event.text))) return;
      await change("Delete of the event", () => api("DELETE", `${userPath()}/events/${enc(event.id)}`), () => loadEvents(true));
    } }));
}

async function loadEvents(reset) {
  if (reset) state.eventsOffset = 0;
  const { events } = await api("GET", `${userPath()}/events?limit=${PAGE}&offset=${state.eventsOffset}`);
  state.events = reset ? events : [...state.events, ...events];
  state.eventsOffset += events.length;
  $("events").replaceChildren(...(state.events.length ? state.events.map(eventItem) : [el("li", { text: "No events." })]));
  $("more-events").hidden = events.length < PAGE;
}

async function loadSessions() {
  // Sessions of the newest messages (paged listing: a long history is never read whole).
  const { messages } = await api("GET", `${userPath()}/messages?limit=200`);
  state.sessions = [...new Set(messages.map((m) => m.session_id))];
  if (!state.sessions.includes(state.session)) state.session = state.sessions[0] ?? "";
  $("session-pick").replaceChildren(...state.sessions.map((id) => el("option", { value: id, text: id })));
  $("session-pick").value = state.session;
  $("forget-session").disabled = !state.session;
}

async function loadSession() {
  $("turn-context").hidden = true;
  if (!state.session) {
    $("transcript").replaceChildren(el("li", { text: "No sessions." }));
    $("summaries").replaceChildren();
    return;
  }
  const [{ messages }, { summaries }] = await Promise.all([
    api("GET", `${userPath()}/messages?session_id=${enc(state.session)}&limit=100`),
    api("GET", `${userPath()}/summaries?limit=100`),
  ]);
  const ofSession = summaries.filter((s) => s.session_id === state.session);
  $("summaries").replaceChildren(...(ofSession.length ? ofSession.map((s) => el("li", {}, s.text, s.stale ? el("span", { class: "badge stale", text: " stale" }) : null, el("span", { class: "meta", text: ` ${day(s.created_at)}, ${s.message_ids.length} messages` }))) : [el("li", { text: "No summaries." })]));
  const ordered = [...messages].sort((a, b) => a.created_at.localeCompare(b.created_at));
  $("transcript").replaceChildren(...ordered.map(messageItem));
}

function messageItem(message) {
  const item = el("li", { "data-message-id": message.id }, el("strong", { text: `${message.speaker ?? message.role}: ` }), message.text, " ", el("span", { class: "meta", text: day(message.created_at) }), " ");
  if (message.role === "user") item.append(el("button", { type: "button", class: "secondary", text: "Why?", "aria-label": `What the memory context of the turn of "${message.text.slice(0, 40)}" held`, onclick: () => showContext(message.id) }), " ");
  item.append(el("button", { type: "button", class: "danger", text: "Delete", "aria-label": `Delete message "${message.text.slice(0, 40)}"`, onclick: async () => {
    if (!(await ask("Delete this message?", `"${message.text}" and what was learned from it alone will be deleted.`))) return;
    await change("Delete of the message", () => api("DELETE", `${userPath()}/sessions/${enc(state.session)}/messages/${enc(message.id)}`), loadSession);
  } }));
  return item;
}

async function showContext(messageId) {
  const box = $("turn-context");
  try {
    const { context } = await api("GET", `${userPath()}/sessions/${enc(state.session)}/messages/${enc(messageId)}/context`);
    const factText = (id) => { const fact = state.facts.find((f) => f.id === id); return fact ? `${fact.key}: ${fact.value}` : `${id} (deleted since)`; };
    const layer = (name, ids, show = (id) => id) => el("li", {}, el("strong", { text: `${name}: ` }), ids.length ? ids.map(show).join("; ") : "none");
    box.replaceChildren(el("h3", { text: "What the model saw from memory" }), el("ul", {},
      layer("Facts", context.shown.facts, factText), layer("Events", context.shown.events), layer("Summaries", context.shown.summaries), layer("Messages", context.shown.messages)),
      el("p", { class: "meta", text: `${context.tokens} tokens of memory` }));
  } catch (error) {
    box.replaceChildren(el("p", { text: `No record for this turn (${error.message}).` }));
  }
  box.hidden = false;
  box.tabIndex = -1;
  box.focus();
}

async function forgetSession() {
  const session = state.session;
  if (!session || !(await ask(`Forget session ${session}?`, "Its transcript, summaries, and the events and facts learned in it will be deleted for good."))) return;
  await change(`Forget of session ${session}`, () => api("DELETE", `/v1/sessions/${enc(session)}?user_id=${enc(state.user)}`), async () => {
    await Promise.all([loadSessions(), loadFacts(), loadEvents(true)]);
    await loadSession();
  });
}

async function search(event) {
  event.preventDefault();
  const q = $("search-q").value;
  try {
    const kinds = $("search-kinds").value;
    const { hits } = await api("GET", `${userPath()}/memory/items?q=${enc(q)}&limit=20${kinds ? `&kinds=${kinds}` : ""}`);
    const score = (value) => (value === null ? "–" : value.toFixed(3));
    $("hits").replaceChildren(...(hits.length ? hits.map((hit) => el("tr", {},
      el("td", { "data-label": "Item", text: `${hit.kind}: ${hit.text}` }), el("td", { "data-label": "Session", text: hit.session_id ?? "" }),
      el("td", { "data-label": "Fused", text: score(hit.scores.fused) }), el("td", { "data-label": "Lexical", text: score(hit.scores.lexical) }),
      el("td", { "data-label": "Context", text: score(hit.scores.context) }), el("td", { "data-label": "Vector", text: score(hit.scores.vector) }),
      el("td", { "data-label": "Importance", text: score(hit.scores.importance) }))) : [el("tr", {}, el("td", { colspan: "7", text: "Nothing found." }))]));
    say(`${hits.length} hits for “${q}”.`);
  } catch (error) {
    say(`Search failed: ${error.message}`, true);
  }
}

function selectTab(tab) {
  for (const other of document.querySelectorAll('[role="tab"]')) {
    const selected = other === tab;
    other.setAttribute("aria-selected", String(selected));
    other.tabIndex = selected ? 0 : -1;
    $(other.getAttribute("aria-controls")).hidden = !selected;
  }
  if (tab.id === "tab-sessions") void loadSession();
}

async function openUser(event) {
  event.preventDefault();
  state.key = $("api-key").value.trim();
  state.user = $("user-id").value.trim();
  document.body.dataset.ready = "false";
  say(`Loading ${state.user}…`);
  try {
    await Promise.all([loadFacts(), loadEvents(true), loadSessions()]);
    $("main").hidden = false;
    say(`User ${state.user}: ${state.facts.filter((f) => f.valid_to === null).length} current facts, ${state.sessions.length} recent sessions.`);
    document.body.dataset.ready = "true";
    document.body.dataset.readyAt = String(Math.round(performance.now()));
  } catch (error) {
    say(`Could not open ${state.user}: ${error.message}`, true);
  }
}

$("open-user").addEventListener("submit", openUser);
$("show-superseded").addEventListener("change", renderFacts);
$("more-events").addEventListener("click", () => loadEvents(false));
$("session-pick").addEventListener("change", () => { state.session = $("session-pick").value; void loadSession(); });
$("forget-session").addEventListener("click", forgetSession);
$("search-form").addEventListener("submit", search);
for (const tab of document.querySelectorAll('[role="tab"]')) {
  tab.addEventListener("click", () => selectTab(tab));
  tab.addEventListener("keydown", (event) => {
    const tabs = [...document.querySelectorAll('[role="tab"]')];
    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (!step) return;
    const next = tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length];
    next.focus();
    selectTab(next);
  });
}
// `#user=<id>` opens that user at once (no key: for a service without API_KEYS, or type one and Open).
const initial = new URLSearchParams(location.hash.slice(1)).get("user");
if (initial) {
  $("user-id").value = initial;
  $("open-user").requestSubmit();
}
