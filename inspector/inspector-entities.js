// A user's entities (people, places and organisations named in what they said) and how they relate:
// a list with a search box, and one entity's relations over time, each with the messages it came
// from shown as their text, leading to them in their sessions. An entity can be forgotten (its name
// cut out of every layer, as a deleted fact's value is), a relation removed; correcting or deleting a message or a fact
// changes the graph too, and this panel follows. Imported when the Entities tab first opens, so a
// user's first load does not fetch it.
import { $, api, ask, day, el, enc, focusOn, say } from "./inspector-ui.js";
import { change, messageLine, readMessages, state, userPath } from "./inspector-views.js";

const PAGE = 50;
/** Mentions shown under an entity (the newest; the API keeps up to 200). */
const MENTIONS_SHOWN = 20;
const view = { user: "", offset: 0, rows: [], open: "", seq: 0, names: new Map() };

/** An entity's name by its key (names are kept from every read); the entity the user's own words are about is stored as "me". */
const nameOf = (key) => (key === "me" ? "the user" : (view.names.get(key) ?? key));
const keepNames = (entities) => entities.forEach((e) => view.names.set(e.key, e.name));

/** Reads the first page of entities (or the next, with `more`) under the search box's words; an open entity is read again. */
export async function loadEntities(more = false) {
  if (view.user !== state.user) {
    Object.assign(view, { user: state.user, open: "", names: new Map() });
    $("entity-q").value = "";
    $("entity-detail").hidden = true;
  }
  if (!more) Object.assign(view, { offset: 0, rows: [] });
  const q = $("entity-q").value.trim();
  const seq = ++view.seq;
  try {
    const { entities } = await api("GET", `${userPath()}/entities?limit=${PAGE}&offset=${view.offset}${q ? `&query=${enc(q)}` : ""}`);
    if (seq !== view.seq) return; // a later search has been asked for
    view.rows.push(...entities);
    keepNames(entities);
    view.offset += entities.length;
    $("more-entities").hidden = entities.length < PAGE;
    const empty = q ? `No entity’s name or alias contains “${q}”.` : "No entities yet: the people, places and organisations the user names (“my sister Priya moved to Pune”) appear here.";
    $("entities").replaceChildren(...(view.rows.length ? view.rows.map(entityRow) : [el("tr", {}, el("td", { colspan: "5", class: "empty", text: empty }))]));
    if (view.open) await showEntity(view.open, false);
  } catch (error) {
    $("entities").replaceChildren(el("tr", {}, el("td", { colspan: "5", class: "error-box", text: `Could not read the entities: ${error.message}.` })));
    $("more-entities").hidden = true;
    say(`Could not read the entities: ${error.message}`, true);
  }
}

function entityRow(entity) {
  const name = nameOf(entity.key);
  return el("tr", { "data-entity": entity.key, id: `entity-${entity.key}` },
    el("td", { "data-label": "Name" }, el("button", { type: "button", class: "link", text: name, "aria-label": `Open entity ${name}`, onclick: () => showEntity(entity.key) })),
    el("td", { "data-label": "Kind", text: entity.kind }),
    el("td", { "data-label": "Also called", text: entity.aliases.join(", ") || "—" }),
    el("td", { "data-label": "Mentions", text: String(entity.mentions) }),
    el("td", { "data-label": "Relations", text: String(entity.relations) }));
}

/** Another entity, as a link that opens it. */
function entityLink(key) {
  const name = nameOf(key);
  return el("button", { type: "button", class: "link", text: name, "aria-label": `Open entity ${name}`, onclick: () => showEntity(key) });
}

/** One relation as "subject — type → object" (an inverse one, "~type", read from the other side), when it held, and where it came from. */
function relationItem(entity, relation) {
  const type = relation.type.replace(/^~/, "").replaceAll("_", " ");
  const self = el("strong", { text: nameOf(entity.key) });
  const [subject, object] = relation.type.startsWith("~") ? [entityLink(relation.to), self] : [self, entityLink(relation.to)];
  const when = relation.valid_to ? `from ${day(relation.valid_from)} to ${day(relation.valid_to)}` : `since ${day(relation.valid_from)}`;
  const said = `${subject.textContent} ${type} ${object.textContent}`;
  // The arrows are left out of what a screen reader says ("Priya lives in Pune").
  return el("li", { class: "relation" },
    subject, " ", el("span", { "aria-hidden": "true", text: "— " }), type, " ", el("span", { "aria-hidden": "true", text: "→ " }), object, " ",
    relation.valid_to ? el("span", { class: "badge stale", text: " superseded" }) : null,
    el("span", { class: "meta", text: ` ${when}` }), " ",
    el("button", { type: "button", class: "danger", text: "Remove", "aria-label": `Remove the relation: ${said}`, onclick: () => removeRelation(entity, relation, said) }),
    el("ul", { class: "sources", "aria-label": "Said in" }, ...relation.sources.map((s) => el("li", {}, messageLine(s.message_id)))));
}

/** Reads the names of the entities among `keys` not yet known (at most 20). */
async function readNames(keys) {
  const unknown = [...new Set(keys)].filter((key) => key !== "me" && !view.names.has(key)).slice(0, 20);
  await Promise.all(unknown.map((key) => api("GET", `${userPath()}/entities/${enc(key)}`).then((e) => keepNames([e]), () => undefined)));
}

/** Opens one entity: its relations over time with their messages, and the newest messages that name it. */
async function showEntity(key, focus = true) {
  const box = $("entity-detail");
  view.open = key;
  try {
    const entity = await api("GET", `${userPath()}/entities/${enc(key)}`);
    keepNames([entity]);
    const mentions = entity.mentions.slice(-MENTIONS_SHOWN).reverse();
    await Promise.all([readMessages([...entity.relations.flatMap((r) => r.sources), ...mentions].map((s) => [s.session_id, s.message_id])), readNames(entity.relations.map((r) => r.to))]);
    const earlier = entity.mentions.length - mentions.length;
    const parts = [
      el("h3", { text: `${nameOf(entity.key)} (${entity.kind})` }),
      entity.key === "me" ? null : el("button", { type: "button", class: "danger", text: "Forget", "aria-label": `Forget ${nameOf(entity.key)}`, onclick: () => forgetEntity(entity) }),
      entity.aliases.length ? el("p", { text: `The user calls them: ${entity.aliases.join(", ")}` }) : null,
      el("h4", { text: "Relations, oldest first" }),
      entity.relations.length
        ? el("ul", { class: "items" }, ...entity.relations.map((r) => relationItem(entity, r)))
        : el("p", { class: "empty", text: "No relations: nothing the user said ties this entity to another." }),
      el("h4", { text: "Named in" }),
      mentions.length ? el("ul", { class: "items" }, ...mentions.map((s) => el("li", {}, messageLine(s.message_id)))) : el("p", { class: "empty", text: "No stored message names it." }),
      earlier > 0 ? el("p", { class: "meta", text: `and ${earlier} earlier messages` }) : null,
    ];
    box.replaceChildren(...parts.filter((part) => part !== null));
  } catch (error) {
    view.open = "";
    const gone = error.code === "NOT_FOUND";
    box.replaceChildren(el("p", { class: gone ? "empty" : "error-box", text: gone ? "This entity is no longer in memory: what named it was corrected or deleted." : `Could not read this entity: ${error.message}.` }));
  }
  box.hidden = false;
  if (focus) focusOn(box);
}

/** Forgets an entity, once asked: its name leaves every layer; the panel closes, and every view is read again. */
async function forgetEntity(entity) {
  const name = nameOf(entity.key);
  const what = `“${name}” will be cut out of every stored message, event, summary and session window (it reads “[removed]”), and the facts that name it deleted. This cannot be undone.`;
  if (!(await ask(`Forget ${name}?`, what, { danger: true }))) return;
  view.open = "";
  $("entity-detail").hidden = true;
  await change(`Forget of ${name}`, () => api("DELETE", `${userPath()}/entities/${enc(entity.key)}`));
}

/** Deletes a relation (every version of it, both sides), once asked; a value it had superseded is current again. The messages stay. */
async function removeRelation(entity, relation, said) {
  const what = `The graph will no longer hold that ${said}; if it replaced an earlier value, that one is current again. The messages that said it stay as they are.`;
  if (!(await ask(`Remove “${said}”?`, what, { danger: true }))) return;
  await change(`Removal of “${said}”`, () => api("DELETE", `${userPath()}/entities/${enc(entity.key)}/relations?type=${enc(relation.type)}&to=${enc(relation.to)}`));
}

$("entity-filters").addEventListener("submit", (event) => {
  event.preventDefault();
  void loadEntities();
});
$("entity-q").addEventListener("input", () => void loadEntities());
$("more-entities").addEventListener("click", () => void loadEntities(true));
