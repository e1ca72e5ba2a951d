import type Database from "better-sqlite3";

/**
 * The page size of a new file. With vectors, the largest table is `store_vectors`, one row per
 * vector (1,541 bytes for 1,536 dimensions, see `encodeVector`): a 4 KiB page holds two such rows
 * and leaves a quarter of itself unused, an 8 KiB page holds five.
 */
export const SQLITE_PAGE_SIZE = 8192;

/**
 * Turns on WAL, giving a file that has no pages yet `SQLITE_PAGE_SIZE` first. Every place that may
 * create a file goes through here: WAL fixes a file's page size, so an existing file keeps its own
 * (and reads as before).
 */
export function useWal(db: Database.Database): void {
  db.pragma(`page_size = ${SQLITE_PAGE_SIZE}`);
  db.pragma("journal_mode = WAL");
}
