// The memory inspector: plain DOM, no framework, no network but this service's own API. It opens
// on the tenant's users (newest activity first); a user opens on tabs of facts, events, sessions
// and search. Every change refreshes every panel it touches.
import { $, api, ApiError, connection, day, el, enc, say } from "./inspector-ui.js";
import { loadUser, panelLoaders, selectTab, state } from "./inspector-views.js";

const USERS_PAGE = 20;
const users = { prefix: "", offset: 0, rows: [] };

function userRow(user) {
  return el("tr", { "data-user-id": user.user_id },
    el("td", { "data-label": "User" }, el("button", { type: "button", class: "link", text: user.user_id, "aria-label": `Open user ${user.user_id}`, onclick: () => openUser(user.user_id) })),
    el("td", { "data-label": "Last activity", text: day(user.last_activity_at) }),
    el("td", { "data-label": "Sessions", text: String(user.session_count) }),
    el("td", { "data-label": "Facts", text: String(user.fact_count) }),
    el("td", { "data-label": "Messages", text: String(user.message_count) }));
}

/** Lists the users (the first page, or the next with `more`); says plainly when there are none or the key is refused. */
async function loadUsers(more = false) {
  if (!more) {
    users.offset = 0;
    users.rows = [];
  }
  try {
    const page = await api("GET", `/v1/users?limit=${USERS_PAGE}&offset=${users.offset}${users.prefix ? `&prefix=${enc(users.prefix)}` : ""}`);
    users.rows.push(...page.users);
    users.offset = page.next_offset ?? users.offset + page.users.length;
    const empty = users.prefix ? `No user id starts with “${users.prefix}”.` : "No users yet: a user appears here after their first turn or import.";
    $("users").replaceChildren(...(users.rows.length ? users.rows.map(userRow) : [el("tr", {}, el("td", { colspan: "5", class: "empty", text: empty }))]));
    $("more-users").hidden = page.next_offset === null;
    say(`${page.total} user${page.total === 1 ? "" : "s"}${users.prefix ? ` whose id starts with “${users.prefix}”` : ""}.`);
    document.body.dataset.ready = "true";
    document.body.dataset.readyAt = String(Math.round(performance.now()));
  } catch (error) {
    const hint = error instanceof ApiError && error.status === 401 ? " Type this tenant's API key above and Connect." : "";
    $("users").replaceChildren(el("tr", {}, el("td", { colspan: "5", class: "error-box", text: `Could not list users: ${error.message}.${hint}` })));
    say(`Could not list users: ${error.message}`, true);
  }
}

function showUsers() {
  $("user-view").hidden = true;
  $("users-view").hidden = false;
  history.replaceState(null, "", "#");
  void loadUsers();
}

/** Opens one user; an id nothing is stored for says so (USER_NOT_FOUND) instead of showing empty panels. */
async function openUser(userId) {
  document.body.dataset.ready = "false";
  say(`Loading ${userId}…`);
  try {
    state.user = userId;
    // The user's overview and the panels' reads at once; an unknown id fails the first.
    const [user] = await Promise.all([api("GET", `/v1/users/${enc(userId)}`), loadUser()]);
    $("user-title").textContent = `User ${userId}`;
    $("user-meta").textContent = `Last activity ${day(user.last_activity_at)} · ${user.session_count} sessions · ${user.fact_count} current facts · ${user.message_count} messages`;
    $("users-view").hidden = true;
    $("user-view").hidden = false;
    history.replaceState(null, "", `#user=${enc(userId)}`);
    void selectTab($("tab-facts"));
    $("user-title").tabIndex = -1;
    $("user-title").focus();
    say(`User ${userId}: ${state.facts.filter((f) => f.valid_to === null).length} current facts, ${state.sessions.length} sessions.`);
    document.body.dataset.ready = "true";
    document.body.dataset.readyAt = String(Math.round(performance.now()));
  } catch (error) {
    if (error instanceof ApiError && error.code === "USER_NOT_FOUND") say(`No user “${userId}” in this tenant: nothing is stored for that id. Check the id, or pick one from the list.`, true);
    else say(`Could not open ${userId}: ${error.message}`, true);
    document.body.dataset.ready = "true";
  }
}

$("connect").addEventListener("submit", (event) => {
  event.preventDefault();
  connection.key = $("api-key").value.trim();
  showUsers();
});
$("user-search").addEventListener("submit", (event) => {
  event.preventDefault();
  users.prefix = $("user-id").value.trim();
  void loadUsers();
});
$("open-exact").addEventListener("click", () => {
  const id = $("user-id").value.trim();
  if (id) void openUser(id);
  else say("Type a user id first.", true);
});
$("more-users").addEventListener("click", () => loadUsers(true));
$("back").addEventListener("click", showUsers);
for (const tab of document.querySelectorAll('[role="tab"]')) {
  tab.addEventListener("click", () => void selectTab(tab));
  tab.addEventListener("keydown", (event) => {
    const tabs = [...document.querySelectorAll('[role="tab"]')];
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key] ?? 0;
    const jump = event.key === "Home" ? tabs[0] : event.key === "End" ? tabs.at(-1) : null;
    if (!step && !jump) return;
    event.preventDefault();
    const next = jump ?? tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length];
    next.focus();
    void selectTab(next);
  });
}

// The Entities panel's script is fetched when its tab first opens, not with the page.
panelLoaders.set("tab-entities", async () => (await import("./inspector-entities.js")).loadEntities());

// `#user=<id>` opens that user at once (no key: for a service without API_KEYS); otherwise the users list.
const initial = new URLSearchParams(location.hash.slice(1)).get("user");
if (initial) void openUser(initial);
else void loadUsers();
