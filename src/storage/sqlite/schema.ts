import type Database from "better-sqlite3";
import { recordTraits } from "../../memory/ranking/document-text.js";
import { columnsOfTraits, type TraitColumns } from "../../memory/ranking/index-source.js";
import { useWal } from "./file-format.js";

/**
 * The long-term store's tables, all prefixed `store_` so they sit beside the checkpoint tables
 * in one file. `store_items` holds one row per (namespace, key); `ns_path` is the namespace in
 * `pathOf` form so a prefix is an index range; `seq` increases with every write and breaks
 * `updated_at` ties; within a namespace, `id` is the order items were first written (their
 * neighbours for context expansion). `store_fts` holds each indexed item's `recordTerms()` terms joined by spaces
 * under FTS5's `ascii` tokenizer (non-ASCII letters are word characters, so Thai terms stay
 * whole), keyed by the item id as rowid. `store_vectors` holds one embedding per item, in `encodeVector`'s compact form (older rows: Float32).
 * `label`, `speaker` and `asks` are the record's traits ranking reads (`recordTraits`: its role, who
 * said it, whether it asks a question), written with the item, so no ranking reads them out of JSON.
 * `store_meta.deletes` counts deleted items (a trigger keeps it), so a connection's index cache can
 * tell another connection's deletions, which `seq` cannot show, from its upserts, which it can.
 * `ttl_minutes` is an item's time to live (LangGraph's `ttl`, NULL for none) and `expires_at` when it
 * runs out (epoch milliseconds, pushed back by a refreshing read), indexed where set so a sweep and
 * a store without expiring items pay nothing for it. `store_index_snapshots` keeps a recall index
 * per search prefix range as bytes, with the `seq` it is current to (`index-snapshots.ts`); a
 * deleted or rewritten item deletes the ones holding it.
 */
const DDL = `
CREATE TABLE IF NOT EXISTS store_items (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ns_path TEXT NOT NULL,
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  seq INTEGER NOT NULL,
  label TEXT,
  speaker TEXT,
  asks INTEGER NOT NULL DEFAULT 0,
  ttl_minutes REAL,
  expires_at INTEGER,
  UNIQUE (ns_path, key)
);
CREATE INDEX IF NOT EXISTS store_items_ns_recent ON store_items (ns_path, updated_at, seq);
CREATE INDEX IF NOT EXISTS store_items_seq ON store_items (seq);
CREATE INDEX IF NOT EXISTS store_items_ns_order ON store_items (ns_path, id);
CREATE VIRTUAL TABLE IF NOT EXISTS store_fts USING fts5(terms, tokenize = 'ascii');
CREATE TABLE IF NOT EXISTS store_vectors (
  item_id INTEGER PRIMARY KEY,
  dims INTEGER NOT NULL,
  vector BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS store_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS store_index_snapshots (
  from_path TEXT NOT NULL,
  to_path TEXT NOT NULL,
  seq INTEGER NOT NULL,
  items INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (from_path, to_path)
);
INSERT OR IGNORE INTO store_meta (name, value) VALUES ('deletes', 0);
CREATE TRIGGER IF NOT EXISTS store_items_deleted AFTER DELETE ON store_items
BEGIN UPDATE store_meta SET value = value + 1 WHERE name = 'deletes'; END;
`;

/** Creates the store tables when missing (adding the trait and TTL columns to an older table) and turns on WAL. Idempotent. */
export function createStoreSchema(db: Database.Database): void {
  useWal(db);
  db.pragma("busy_timeout = 5000");
  db.exec(DDL);
  addTraitColumns(db);
  addTtlColumns(db);
}

/** Adds `ttl_minutes` and `expires_at` (NULL: no item of an older table expires) and their index, in one write transaction. */
function addTtlColumns(db: Database.Database): void {
  const hasTtl = () => (db.prepare("SELECT count(*) AS n FROM pragma_table_info('store_items') WHERE name = 'expires_at'").get() as { n: number }).n > 0;
  const index = "CREATE INDEX IF NOT EXISTS store_items_expiry ON store_items (expires_at) WHERE expires_at IS NOT NULL";
  if (hasTtl()) {
    db.exec(index);
    return;
  }
  db.transaction(() => {
    if (!hasTtl()) db.exec("ALTER TABLE store_items ADD COLUMN ttl_minutes REAL; ALTER TABLE store_items ADD COLUMN expires_at INTEGER;");
    db.exec(index);
  }).immediate();
}

/**
 * Adds `label`, `speaker` and `asks` to a `store_items` made before them and fills them for every
 * row with `recordTraits`, in one write transaction (another process doing the same waits, then
 * finds them there).
 */
function addTraitColumns(db: Database.Database): void {
  const hasTraits = () => (db.prepare("SELECT count(*) AS n FROM pragma_table_info('store_items') WHERE name = 'asks'").get() as { n: number }).n > 0;
  if (hasTraits()) return;
  db.transaction(() => {
    if (hasTraits()) return;
    db.exec("ALTER TABLE store_items ADD COLUMN label TEXT; ALTER TABLE store_items ADD COLUMN speaker TEXT; ALTER TABLE store_items ADD COLUMN asks INTEGER NOT NULL DEFAULT 0;");
    const update = db.prepare("UPDATE store_items SET label = ?, speaker = ?, asks = ? WHERE id = ?");
    for (const row of db.prepare("SELECT id, value FROM store_items").iterate() as Iterable<{ id: number; value: string }>) {
      const traits = traitsOfValue(row.value);
      update.run(traits.label, traits.speaker, traits.asks ? 1 : 0, row.id);
    }
  }).immediate();
}

function traitsOfValue(json: string): TraitColumns {
  try {
    return columnsOfTraits(recordTraits(JSON.parse(json)));
  } catch {
    return columnsOfTraits({});
  }
}

/** A stored item row as read back. */
export interface ItemRow {
  id: number;
  namespace: string;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
  /** The item's TTL in minutes (null: it never expires), so a refreshing read touches only the rows that have one. */
  ttl_minutes: number | null;
}

/** The columns every item read selects, for a table aliased `i`. */
export const ITEM_COLUMNS = "i.id, i.namespace, i.key, i.value, i.created_at, i.updated_at, i.ttl_minutes";

/** The condition (over `store_items i`, one parameter: now in epoch milliseconds) that an item has not expired. */
export const LIVE = "(i.expires_at IS NULL OR i.expires_at > ?)";

/**
 * `ITEM_COLUMNS` of a search with `textChars` (see `RecallSearchOptions`): a value whose `text` has at
 * least `textChars` characters comes back with only its first `textChars`, cut by SQLite's JSON
 * functions so the rest is never decoded into JavaScript. A value comes back whole where that cut
 * could not be read back as the same characters: invalid JSON or JSON nested too deep for SQLite;
 * a NUL among the kept characters (SQLite's text functions stop at one); a byte 0xED among them,
 * which begins the UTF-8 of a lone surrogate (`JSON.stringify` escapes one, SQLite decodes the
 * escape to invalid UTF-8) and of the other characters U+D000–U+DFFF.
 */
export function itemColumns(textChars: number | undefined): string {
  // An integer ≥ 1 (`validateOperation`), so it is written into the SQL as it is.
  if (textChars === undefined) return ITEM_COLUMNS;
  const kept = `substr(i.value ->> '$.text', 1, ${textChars})`;
  const cuttable = `octet_length(i.value) > ${textChars} AND json_valid(i.value) AND json_type(i.value, '$.text') = 'text' AND length(${kept}) = ${textChars} AND instr(CAST(${kept} AS BLOB), X'ED') = 0`;
  return ITEM_COLUMNS.replace("i.value", `CASE WHEN ${cuttable} THEN json_set(i.value, '$.text', ${kept}) ELSE i.value END AS value`);
}
