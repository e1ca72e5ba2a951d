// One user's panels: facts (with their sources, filters, history, edit, pin, delete and undo),
// events (search and filters), sessions under their titles (transcript, summaries, "Why?") and
// search ranked with its parts. Ids are never shown alone: each is shown as what it stands for.
import { $, api, ask, clip, day, el, enc, focusOn, say, toast } from "./inspector-ui.js";

export const state = { user: "", facts: [], events: [], eventsOffset: 0, sessions: [], session: "", messages: new Map() };
const PAGE = 50;
const UNDO_SECONDS = 30;
export const userPath = () => `/v1/users/${enc(state.user)}`;
export const titleOf = (sessionId) => state.sessions.find((s) => s.session_id === sessionId)?.title || sessionId;
const current = (fact) => fact.valid_to === null;

/**
 * Loads what the first panel shows for `state.user`, every read at once (session titles and message
 * texts are what ids are shown as); a session's transcript waits until its tab is opened.
 */
export async function loadUser() {
  state.session = "";
  state.messages = new Map();
  // Another user's sessions mean nothing here; the events are read beside the sessions, so clear first.
  for (const id of ["fact-session", "event-session"]) $(id).value = "";
  const [facts, , , events] = await Promise.all([fetchFacts(), loadSessions(), loadMessages(), fetchEvents(true)]);
  await resolveSources(facts);
  renderEvents(events);
}

async function loadSessions() {
  state.sessions = (await api("GET", `${userPath()}/sessions?limit=100`)).sessions;
  if (!state.sessions.some((s) => s.session_id === state.session)) state.session = state.sessions[0]?.session_id ?? "";
  const options = () => state.sessions.map((s) => el("option", { value: s.session_id, text: `${s.title} (${day(s.last_activity_at)})` }));
  $("session-pick").replaceChildren(...options());
  $("session-pick").value = state.session;
  $("forget-session").disabled = !state.session;
  for (const id of ["fact-session", "event-session"]) {
    const pick = $(id);
    const was = pick.value;
    pick.replaceChildren(el("option", { value: "", text: "any" }), ...options());
    pick.value = state.sessions.some((s) => s.session_id === was) ? was : "";
  }
}

/** The newest stored messages by id (what fact sources and "Why?" lines are shown as). */
async function loadMessages() {
  const { messages } = await api("GET", `${userPath()}/messages?limit=200`);
  for (const m of messages) state.messages.set(m.id, m);
}

/** A message as it reads: clipped text, its session's title and its time. */
export function messageText(id) {
  const m = state.messages.get(id);
  return m ? `“${clip(m.text, 90)}” — ${titleOf(m.session_id)}, ${day(m.created_at)}` : "a message no longer stored";
}

// Facts

const fetchFacts = async () => (await api("GET", `${userPath()}/facts`)).facts;

async function loadFacts() {
  await resolveSources(await fetchFacts());
}

/** Keeps `facts`, reads the source messages not among the newest (at most 50), and renders them. */
async function resolveSources(facts) {
  state.facts = facts;
  await readMessages(state.facts.flatMap((f) => f.source_message_ids.map((id) => [f.session_id, id])));
  renderFacts();
}

/** Reads the messages of `pairs` ([session id, message id]) not yet known, at most 50, into `state.messages`. */
export async function readMessages(pairs) {
  const missing = [...new Set(pairs.filter(([, id]) => !state.messages.has(id)).map((p) => p.join("\n")))];
  await Promise.all(missing.slice(0, 50).map(async (pair) => {
    const [sessionId, id] = pair.split("\n");
    const found = await api("GET", `${userPath()}/sessions/${enc(sessionId)}/messages/${enc(id)}`).catch(() => null);
    if (found?.message) state.messages.set(id, found.message);
  }));
}

function factSource(fact) {
  if (fact.source === "edit") return el("span", {}, "edited by a person", el("span", { class: "source", text: titleOf(fact.session_id) }));
  const from = fact.source_message_ids.map(messageText);
  return el("span", {}, "learned from a message", el("span", { class: "source", text: from.join("; ") || titleOf(fact.session_id) }));
}

function renderFacts() {
  const q = $("fact-q").value.trim().toLowerCase();
  const session = $("fact-session").value;
  const source = $("fact-source").value;
  const rows = state.facts
    .filter((f) => $("show-superseded").checked || current(f))
    .filter((f) => !q || `${f.key} ${f.value}`.toLowerCase().includes(q))
    .filter((f) => !session || f.session_id === session)
    .filter((f) => !source || (source === "edit") === (f.source === "edit"))
    .filter((f) => !$("fact-pinned").checked || f.pinned)
    .map(factRow);
  const filtered = q || session || source || $("fact-pinned").checked;
  const empty = filtered ? "No fact matches these filters." : "No facts yet: facts are learned from what the user says (“my name is…”, “I live in…”).";
  $("facts").replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: "5", class: "empty", text: empty }))]));
}

function factRow(fact) {
  const name = `${fact.key}: ${fact.value}`;
  const button = (text, onclick, cls = "secondary") => el("button", { type: "button", class: cls, text, "aria-label": `${text} ${name}`, onclick });
  const actions = el("td", { class: "actions", "data-label": "Actions" }, button("History", () => showHistory(fact.id)));
  if (current(fact)) actions.append(button("Edit", () => editFact(fact), ""), button(fact.pinned ? "Unpin" : "Pin", () => pinFact(fact)));
  actions.append(button("Delete", () => deleteFact(fact), "danger"));
  return el("tr", { "data-fact-id": fact.id, id: `fact-${fact.id}` },
    el("td", { "data-label": "Key", text: fact.key }),
    el("td", { "data-label": "Value" }, fact.value, fact.pinned ? el("span", { class: "badge", text: " pinned" }) : null, current(fact) ? null : el("span", { class: "badge stale", text: " superseded" })),
    el("td", { "data-label": "Since", text: day(fact.valid_from) }),
    el("td", { "data-label": "Source" }, factSource(fact)),
    actions);
}

async function showHistory(id) {
  const box = $("fact-history");
  try {
    const { history } = await api("GET", `${userPath()}/facts/${enc(id)}`);
    const valueOf = (versionId) => history.find((v) => v.id === versionId)?.value;
    box.replaceChildren(el("h3", { text: `History of ${history[0]?.key ?? "this fact"}` }), el("ol", {}, ...history.map((v) => el("li", {}, el("strong", { text: v.value }), " ",
      el("span", { class: "meta", text: `from ${day(v.valid_from)} to ${v.valid_to ? day(v.valid_to) : "now"}; ${v.source === "edit" ? "edited by a person" : `learned from ${v.source_message_ids.map(messageText).join("; ") || "a message"}`}${v.superseded_by ? `; replaced by “${valueOf(v.superseded_by) ?? "a later version"}”` : ""}` })))));
  } catch (error) {
    box.replaceChildren(el("p", { class: "error-box", text: `No history: ${error.message}` }));
  }
  box.dataset.factId = id;
  box.hidden = false;
  focusOn(box);
}

/** Runs a change, says how it went, refreshes every panel (and an open history), and offers `undo` for a while. */
export async function change(what, work, undo) {
  try {
    await work();
    await refresh();
    if (undo) toast(`${what}: done.`, UNDO_SECONDS, async () => change(`Undo of ${what.toLowerCase()}`, undo));
    else say(`${what}: done.`);
  } catch (error) {
    say(`${what} failed: ${error.message}`, true);
  }
}

async function refresh() {
  await Promise.all([loadSessions(), loadMessages()]);
  await Promise.all([loadFacts(), loadEvents(true)]);
  if (!$("panel-sessions").hidden) await loadSession();
  for (const [tabId, load] of panelLoaders) if (!$($(tabId).getAttribute("aria-controls")).hidden) await load();
  const history = $("fact-history");
  if (!history.hidden) {
    const shown = state.facts.find((f) => f.id === history.dataset.factId);
    const latest = shown && state.facts.find((f) => f.key === shown.key && current(f));
    if (latest ?? shown) await showHistory((latest ?? shown).id);
    else history.hidden = true;
  }
}

async function editFact(fact) {
  const value = await ask(`Edit ${fact.key}`, "The new value becomes a new version, and the next turn reads it; the old one stays in the history.", { input: fact.value });
  if (value === null || value === fact.value) return;
  // Undo brings the version edited back as the current one.
  await change(`Edit of ${fact.key}`, () => api("PATCH", `${userPath()}/facts/${enc(fact.id)}`, { value }), () => api("POST", `${userPath()}/facts/${enc(fact.id)}/restore`));
}

const pinFact = (fact) => change(`${fact.pinned ? "Unpin" : "Pin"} of ${fact.key}`, () => api("PATCH", `${userPath()}/facts/${enc(fact.id)}`, { pinned: !fact.pinned }));

async function deleteFact(fact) {
  const what = `“${fact.key}: ${fact.value}” and every earlier version of it will be deleted, and cut out of the messages, events and summaries that state them. The next turn no longer reads it. You can undo this for ${UNDO_SECONDS} seconds.`;
  if (!(await ask(`Delete ${fact.key}?`, what, { danger: true }))) return;
  await change(`Delete of ${fact.key}`, () => api("DELETE", `${userPath()}/facts/${enc(fact.id)}?versions=all`), () => api("POST", `${userPath()}/facts/${enc(fact.id)}/restore`));
}

// Events

function eventItem(event) {
  return el("li", { "data-event-id": event.id, id: `event-${event.id}` },
    el("strong", { text: event.type }), ` ${event.text} `,
    el("span", { class: "meta", text: `importance ${event.importance}, ${day(event.created_at)}, ${titleOf(event.session_id)}` }), " ",
    el("button", { type: "button", class: "danger", text: "Delete", "aria-label": `Delete event ${event.type}: ${clip(event.text, 40)}`, onclick: async () => {
      if (!(await ask("Delete this event?", `${event.type}: ${event.text}`, { danger: true }))) return;
      await change("Delete of the event", () => api("DELETE", `${userPath()}/events/${enc(event.id)}`));
    } }));
}

async function loadEvents(reset) {
  renderEvents(await fetchEvents(reset));
}

/** Reads the events the filters ask for (the next page, unless `reset`); `more`: whether another page may follow. */
async function fetchEvents(reset) {
  if (reset) state.eventsOffset = 0;
  const q = $("event-q").value.trim();
  const type = $("event-type").value;
  const importance = $("event-importance").value;
  const session = $("event-session").value;
  if (q) {
    // Words: the search route, events only, with the same filters.
    const params = `q=${enc(q)}&kinds=event&limit=100${type ? `&event_type=${type}` : ""}${importance ? `&min_importance=${importance}` : ""}${session ? `&session_id=${enc(session)}` : ""}`;
    const { hits } = await api("GET", `${userPath()}/memory/items?${params}`);
    // A hit names the event; the event itself says its type (best match first, the first 50).
    const found = await Promise.all(hits.slice(0, 50).map((h) => api("GET", `${userPath()}/events/${enc(h.id)}`).then((r) => r.event, () => null)));
    return { events: found.filter((e) => e !== null), more: false };
  }
  const page = (await api("GET", `${userPath()}/events?limit=${PAGE}&offset=${state.eventsOffset}${type ? `&type=${type}` : ""}`)).events;
  state.eventsOffset += page.length;
  const events = (reset ? page : [...state.events, ...page]).filter((e) => (!importance || e.importance >= Number(importance)) && (!session || e.session_id === session));
  return { events, more: page.length === PAGE };
}

/** Shows `found.events` (each with its session's title, so after the sessions are read). */
function renderEvents({ events, more }) {
  state.events = events;
  const filtered = $("event-q").value.trim() || $("event-type").value || $("event-importance").value || $("event-session").value;
  const empty = filtered ? "No event matches these filters." : "No events yet: requests, complaints and other important turns appear here.";
  $("events").replaceChildren(...(events.length ? events.map(eventItem) : [el("li", { class: "empty", text: empty })]));
  $("more-events").hidden = !more;
}

// Sessions, transcripts and "Why?"

async function loadSession() {
  $("turn-context").hidden = true;
  if (!state.session) {
    $("transcript").replaceChildren(el("li", { class: "empty", text: "No sessions yet." }));
    $("summaries").replaceChildren();
    return;
  }
  const [{ messages }, { summaries }] = await Promise.all([
    api("GET", `${userPath()}/messages?session_id=${enc(state.session)}&limit=100`),
    api("GET", `${userPath()}/summaries?limit=100`),
  ]);
  for (const m of messages) state.messages.set(m.id, m);
  const ofSession = summaries.filter((s) => s.session_id === state.session);
  $("summaries").replaceChildren(...(ofSession.length ? ofSession.map((s) => el("li", {}, s.text, s.stale ? el("span", { class: "badge stale", text: " stale" }) : null, el("span", { class: "meta", text: ` ${day(s.created_at)}, ${s.message_ids.length} messages` }))) : [el("li", { class: "empty", text: "No summaries of this session yet." })]));
  const ordered = [...messages].sort((a, b) => a.created_at.localeCompare(b.created_at));
  $("transcript").replaceChildren(...ordered.map(messageItem));
}

function messageItem(message) {
  const item = el("li", { "data-message-id": message.id, id: `message-${message.id}` }, el("strong", { text: `${message.speaker ?? message.role}: ` }), message.text, " ", el("span", { class: "meta", text: day(message.created_at) }), " ");
  if (message.role === "user") item.append(el("button", { type: "button", class: "secondary", text: "Why?", "aria-label": `What the model read from memory for “${clip(message.text, 40)}”`, onclick: () => showContext(message.id) }), " ");
  item.append(el("button", { type: "button", class: "danger", text: "Delete", "aria-label": `Delete message “${clip(message.text, 40)}”`, onclick: async () => {
    if (!(await ask("Delete this message?", `“${message.text}” and what was learned from it alone will be deleted.`, { danger: true }))) return;
    await change("Delete of the message", () => api("DELETE", `${userPath()}/sessions/${enc(state.session)}/messages/${enc(message.id)}`));
  } }));
  return item;
}

/** A line of "Why?" that takes you to its item (a fact's row, an event). */
function goTo(tabId, rowId, text) {
  return el("button", { type: "button", class: "link", text, onclick: () => {
    void selectTab($(tabId));
    const row = document.getElementById(rowId);
    if (!row) return say("That item is not shown under the current filters.", true);
    row.classList.add("highlight");
    focusOn(row);
  } });
}

/** A line for a stored message (in "Why?", an entity's sources): its text, leading to it in its session's transcript. */
export function messageLine(id) {
  const m = state.messages.get(id);
  if (!m) return messageText(id);
  return el("button", { type: "button", class: "link", text: messageText(id), onclick: async () => {
    state.session = m.session_id;
    $("session-pick").value = m.session_id;
    if ($("panel-sessions").hidden) await selectTab($("tab-sessions"));
    else await loadSession();
    const row = document.getElementById(`message-${id}`);
    if (!row) return say("That message is no longer in the session's current thread.", true);
    row.classList.add("highlight");
    focusOn(row);
  } });
}

async function showContext(messageId) {
  const box = $("turn-context");
  try {
    const { context } = await api("GET", `${userPath()}/sessions/${enc(state.session)}/messages/${enc(messageId)}/context`);
    const fetchOne = (path, field) => api("GET", `${userPath()}/${path}`).then((r) => r[field]).catch(() => null);
    const [events, summaries] = await Promise.all([
      Promise.all(context.shown.events.map((id) => fetchOne(`events/${enc(id)}`, "event"))),
      Promise.all(context.shown.summaries.map((id) => fetchOne(`summaries/${enc(id)}`, "summary"))),
    ]);
    const section = (title, lines) => el("div", { class: "context-section" }, el("h4", { text: title }), lines.length ? el("ul", {}, ...lines.map((line) => el("li", {}, line))) : el("p", { class: "empty", text: "nothing" }));
    const factLine = (id) => {
      const fact = state.facts.find((f) => f.id === id);
      return fact ? goTo("tab-facts", `fact-${id}`, `${fact.key}: ${fact.value}${current(fact) ? "" : " (since replaced)"}`) : "a fact deleted since";
    };
    box.replaceChildren(
      el("h3", { text: `What the model read from memory for “${clip(state.messages.get(messageId)?.text ?? "this turn", 60)}”` }),
      section("Facts", context.shown.facts.map(factLine)),
      section("Important events", events.map((e, i) => (e ? goTo("tab-events", `event-${e.id}`, `${e.type}: ${e.text}`) : `an event deleted since (${i + 1})`))),
      section("Summaries", summaries.map((s) => (s ? `${s.text}${s.stale ? " (stale since)" : ""}` : "a summary deleted since"))),
      section("Earlier messages", context.shown.messages.map(messageLine)),
      el("p", { class: "meta", text: `About ${context.tokens} tokens of memory, recorded ${day(context.created_at)}.` }));
  } catch (error) {
    box.replaceChildren(el("p", { class: "empty", text: `No record of what this turn read (${error.message}): the turn was not answered, or ran before such records were kept.` }));
  }
  box.hidden = false;
  focusOn(box);
}

async function forgetSession() {
  const title = titleOf(state.session);
  if (!state.session || !(await ask(`Forget the session “${title}”?`, "Its transcript, summaries, and the events and facts learned in it will be deleted for good. This cannot be undone.", { danger: true }))) return;
  await change(`Forget of “${title}”`, () => api("DELETE", `/v1/sessions/${enc(state.session)}?user_id=${enc(state.user)}`));
}

// Search

/** The parts that ranked a hit, in words; the fused rank number is left out (it reads like a probability, and is not one). */
function parts(scores) {
  const part = (name, value) => (value === null || value === undefined ? null : el("span", { class: "part", text: `${name} ${value.toFixed(2)}` }));
  return el("span", { class: "parts" }, part("words", scores.lexical), part("neighbours", scores.context), part("meaning", scores.vector), part("importance", scores.importance));
}

async function search(event) {
  event.preventDefault();
  const q = $("search-q").value.trim();
  if (!q) return;
  try {
    const kinds = $("search-kinds").value;
    const { hits } = await api("GET", `${userPath()}/memory/items?q=${enc(q)}&limit=20${kinds ? `&kinds=${kinds}` : ""}`);
    $("hits").replaceChildren(...(hits.length ? hits.map((hit, i) => el("li", { "data-kind": hit.kind },
      el("span", { class: "rank", text: `#${i + 1}` }), el("strong", { text: `${hit.kind}: ` }), hit.text, " ",
      el("span", { class: "meta", text: `${hit.session_id ? titleOf(hit.session_id) : ""} ${day(hit.created_at)}` }), parts(hit.scores))) : [el("li", { class: "empty", text: `Nothing found for “${q}”.` })]));
    say(`${hits.length} hits for “${q}”, best first.`);
  } catch (error) {
    say(`Search failed: ${error.message}`, true);
  }
}

/** Readers of panels that are read only when their tab is opened (and again after a change while open), by tab id. */
export const panelLoaders = new Map();

/** Shows `tab`'s panel; resolves when what it reads on opening is shown. */
export async function selectTab(tab) {
  for (const other of document.querySelectorAll('[role="tab"]')) {
    const selected = other === tab;
    other.setAttribute("aria-selected", String(selected));
    other.tabIndex = selected ? 0 : -1;
    $(other.getAttribute("aria-controls")).hidden = !selected;
  }
  if (tab.id === "tab-sessions") await loadSession();
  else await panelLoaders.get(tab.id)?.();
}

for (const id of ["fact-q", "fact-session", "fact-source", "fact-pinned", "show-superseded"]) $(id).addEventListener("input", renderFacts);
$("fact-filters").addEventListener("submit", (event) => event.preventDefault());
$("event-filters").addEventListener("submit", (event) => {
  event.preventDefault();
  loadEvents(true).catch((error) => say(error.message, true));
});
for (const id of ["event-type", "event-importance", "event-session"]) $(id).addEventListener("change", () => loadEvents(true).catch((error) => say(error.message, true)));
$("more-events").addEventListener("click", () => loadEvents(false));
$("session-pick").addEventListener("change", () => { state.session = $("session-pick").value; void loadSession(); });
$("forget-session").addEventListener("click", forgetSession);
$("search-form").addEventListener("submit", search);
