import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../errors.js";
import { checkedPage } from "./item-schemas.js";
import type { StoredUser, StoredUserPage, UserListQuery } from "./ports/store.js";
import { decodeLabel, encodeLabel, namespaces } from "./namespaces.js";
import type { FactRecord, TranscriptRecord } from "./records.js";
import { validateId, type Checked, type UserScope } from "./scope.js";
import { capable, listAll, supportsOf } from "./store-io.js";

/**
 * The users of a tenant as a support team lists them: newest activity first, each with its
 * sessions, current facts and stored messages, a page at a time, narrowed by the start of the id.
 * A store that can (`userListing`: SQLite, Postgres) counts them in one query; any other
 * `BaseStore` is read user by user (fine for the in-memory engine and tests, not for 10,000 users).
 */

/** The most users one page lists. */
export const MAX_USERS_PAGE = 100;
/** The longest id prefix searched by. */
const MAX_PREFIX = 128;

export interface UserListing {
  userId: string;
  /** When the user's newest stored message was said (else the last write to its memory), ISO 8601. */
  lastActivityAt: string;
  sessionCount: number;
  /** Current facts (superseded versions not counted). */
  factCount: number;
  messageCount: number;
}

export interface UserPage {
  users: UserListing[];
  /** Users (matching the prefix) in all. */
  total: number;
  /** The offset of the next page, or null when this is the last. */
  nextOffset: number | null;
}

/**
 * Lists the users of `tenantId` whose id starts with `prefix` (default: all), newest activity first
 * (ties by id), `limit` (1–100) from `offset`. A user is listed while anything of it is stored.
 * Reads only; INVALID_INPUT for a bad page or prefix.
 */
export async function listUsers(store: BaseStore, tenantId: string, page: { prefix?: string; limit: number; offset: number }): Promise<UserPage> {
  const tenant = validateId("tenantId", tenantId);
  checkedPage(page, MAX_USERS_PAGE);
  const prefix = page.prefix ?? "";
  // eslint-disable-next-line no-control-regex
  if (prefix.length > MAX_PREFIX || /[\u0000-\u001f\u007f-\u009f/]/.test(prefix)) {
    throw new MemoryGraphError("INVALID_INPUT", `prefix: at most ${MAX_PREFIX} characters, without '/' or control characters`, { kind: "user", field: "prefix" });
  }
  const found = await storedUsers(store, tenant, { labelPrefix: prefixLabel(prefix), exact: false, limit: page.limit, offset: page.offset });
  const end = page.offset + found.users.length;
  return { users: found.users.map(listingOf), total: found.total, nextOffset: end < found.total ? end : null };
}

/** One user's activity and counts; USER_NOT_FOUND when nothing of the user is stored (an empty user and an unknown one are the same to a store). */
export async function userOverview(store: BaseStore, user: Checked<UserScope>): Promise<UserListing> {
  const found = await storedUsers(store, user.tenantId, { labelPrefix: encodeLabel(user.userId), exact: true, limit: 1, offset: 0 });
  const [one] = found.users;
  if (!one) throw new MemoryGraphError("USER_NOT_FOUND", "nothing is stored for this user", { kind: "user" });
  return listingOf(one);
}

function listingOf(user: StoredUser): UserListing {
  return { userId: decodeLabel(user.label), lastActivityAt: user.lastActivityAt, sessionCount: user.sessions, factCount: user.facts, messageCount: user.messages };
}

/** The label prefix of ids starting with `prefix` (`encodeLabel` escapes character by character). */
function prefixLabel(prefix: string): string {
  return prefix.replace(/%/g, "%25").replace(/\./g, "%2E").replace(/:/g, "%3A");
}

function storedUsers(store: BaseStore, tenantId: string, query: UserListQuery): Promise<StoredUserPage> {
  const tenant = encodeLabel(tenantId);
  if (supportsOf(store).userListing) return capable(store, "userListing").listUsers(tenant, query);
  return readUsers(store, tenant, query);
}

/** `listUsers` through plain `BaseStore` calls: the user namespaces, then each user's items. */
async function readUsers(store: BaseStore, tenant: string, query: UserListQuery): Promise<StoredUserPage> {
  const listed = await store.listNamespaces({ prefix: [tenant, "users"], limit: Number.MAX_SAFE_INTEGER });
  const labels = new Set(listed.map((ns) => ns[2] ?? "").filter((label) => (query.exact ? label === query.labelPrefix : label.startsWith(query.labelPrefix))));
  const counted = await Promise.all([...labels].map((label) => readUser(store, tenant, label)));
  const users = counted.filter((u) => u !== null).sort((a, b) => b.lastActivityAt.localeCompare(a.lastActivityAt) || (a.label < b.label ? -1 : 1));
  return { users: users.slice(query.offset, query.offset + query.limit), total: users.length };
}

async function readUser(store: BaseStore, tenant: string, label: string): Promise<StoredUser | null> {
  const prefix = namespaces.user({ tenantId: decodeLabel(tenant), userId: decodeLabel(label) });
  const items = await listAll(store, prefix, { cap: Number.MAX_SAFE_INTEGER });
  if (items.length === 0) return null;
  const sessions = new Set<string>();
  let facts = 0;
  let messages = 0;
  let lastWrite = "";
  let lastMessage = "";
  for (const item of items) {
    const [layer, session, leaf] = item.namespace.slice(prefix.length);
    if (layer === "facts" && session === undefined && (item.value as Partial<FactRecord>).validTo == null) facts += 1;
    if (layer === "sessions" && leaf === "messages") {
      messages += 1;
      sessions.add(session ?? "");
      const said = (item.value as Partial<TranscriptRecord>).createdAt ?? "";
      if (said > lastMessage) lastMessage = said;
    }
    const written = item.updatedAt.toISOString();
    if (written > lastWrite) lastWrite = written;
  }
  return { label, lastActivityAt: lastMessage || lastWrite, sessions: sessions.size, facts, messages };
}
