import http from "node:http";
import fc from "fast-check";

/**
 * Generated HTTP requests for fuzzing the service: turn bodies from valid to hostile, odd ids in
 * bodies and paths (with odd percent-encodings), content types and Authorization headers. Sent
 * with node:http so that paths, headers and body bytes reach the server as written.
 */

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  contentType: string;
  text: string;
}

/** Ids the fuzz run seeds data under, so that valid requests reach stored data. */
export const KNOWN = { users: ["fz-user", "fz.user@example.com"], sessions: ["fz-s1", "fz-s2"] };

const LONE_SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff", "a\ud83d", "\ude00b"];
const ODD_IDS = [
  "", " ", "\t", "a/b", "/", "..", ".", "a..b", "%", "%2F", "a:b", "a.b", "a%2Eb", "langgraph", "__proto__", "constructor",
  "x".repeat(128), "x".repeat(129), "\u0000", "a\u007fb", "\u202eevil", "\u200b", "😀", "ไทย", "null", "0", "-1", "1e400",
  "a?b", "a#b", "a b", "a+b", "'; DROP TABLE store_items; --", "*", "\\",
  // Look-alikes of fz-user and fz-s1 that validateId refuses (default-ignorable characters, a leading mark).
  "fz-user\uFE0F", "fz-s1\u{E0100}", "fz-user\u3164", "\u115Ffz-s1", "fz\u034F-user", "\u0301", "\u0301fz-s1", "fz-s1\u180B",
];

const knownId = fc.constantFrom(...KNOWN.users, ...KNOWN.sessions);
const loneSurrogateId = fc.tuple(fc.constantFrom(...LONE_SURROGATES), fc.string({ maxLength: 4 })).map(([lone, rest]) => lone + rest);

/** A string id, mostly plausible, often odd. */
export const idArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: knownId },
  { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 8 }) },
  { weight: 2, arbitrary: fc.constantFrom(...ODD_IDS) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 100, maxLength: 200 }) },
  { weight: 1, arbitrary: loneSurrogateId },
);

/** An id field of a JSON body: a string id, or a value of the wrong type. */
const jsonIdArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: idArb },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.constant(1.5e300), fc.constant(null), fc.boolean()) },
  { weight: 1, arbitrary: fc.oneof(fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 })) },
);

const messageArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 80 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom("", "   ", "\ud800", "x".repeat(1_001), "x".repeat(5_000)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const fileArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({
    type: fc.constantFrom("image", "document", "bogus"),
    transfer_method: fc.constantFrom("remote_url", "local_file", "tool_file", "ftp"),
    url: fc.constantFrom("https://example.com/a.png", "not a url", "javascript:alert(1)"),
    upload_file_id: idArb,
    belongs_to: fc.constantFrom("user", "assistant", "nobody"),
  }, { requiredKeys: [] }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Nesting deeper than any limit, as a value (JSON.stringify is recursive, so keep it moderate). */
const deep = (depth: number): unknown => {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value };
  return value;
};

/** A turn body as an object: mostly the right fields, sometimes wrong types, extra fields, junk. */
const turnObjectArb: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      user_id: jsonIdArb,
      session_id: jsonIdArb,
      message: messageArb,
      message_id: jsonIdArb,
      parent_message_id: jsonIdArb,
      prompts: fc.array(fc.oneof(fc.record({ text: messageArb, files: fc.array(fileArb, { maxLength: 2 }) }, { requiredKeys: ["text"] }), fc.jsonValue({ maxDepth: 1 })), { maxLength: 3 }),
      files: fc.oneof(fc.array(fileArb, { maxLength: 3 }), fc.jsonValue({ maxDepth: 1 })),
      metadata: fc.oneof(fc.dictionary(fc.string({ maxLength: 140 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }), fc.constant(deep(12)), fc.jsonValue({ maxDepth: 1 })),
      extra: fc.dictionary(fc.constantFrom("tenant_id", "userId", "__proto__", "constructor", "role", "x"), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
    },
  )
  .chain((body) =>
    // Most bodies keep only a few optional fields, so that many are valid turns.
    fc.subarray(["message", "message_id", "parent_message_id", "prompts", "files", "metadata", "extra"], { maxLength: 3 }).map((kept) => {
      const out: Record<string, unknown> = { user_id: body.user_id, session_id: body.session_id };
      for (const key of kept) {
        // defineProperty, so that a key such as `__proto__` stays an own field of the JSON.
        if (key === "extra") for (const [name, value] of Object.entries(body.extra)) Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
        else out[key] = body[key as keyof typeof body];
      }
      if (!kept.includes("message") && !kept.includes("prompts")) out.message = "what did I tell you about my plan?";
      return out;
    }),
  );

const RAW_BODIES = [
  "", " ", "{", "}", "{\"user_id\":", "null", "[]", "\"text\"", "1", "true", "{}", "[{\"user_id\":\"fz-user\"}]",
  "{\"user_id\":\"fz-user\",\"user_id\":\"other\",\"session_id\":\"fz-s1\",\"message\":\"dup keys\"}",
  "{\"__proto__\":{\"user_id\":\"fz-user\"},\"session_id\":\"fz-s1\",\"message\":\"proto\"}",
  "{\"user_id\":\"\\ud800\",\"session_id\":\"fz-s1\",\"message\":\"lone\"}",
  "{\"user_id\":\"fz-user\",\"session_id\":\"fz-s1\",\"message\":\"\\u0000\"}",
  "\uFEFF{\"user_id\":\"fz-user\",\"session_id\":\"fz-s1\",\"message\":\"bom\"}",
  `${"[".repeat(20_000)}${"]".repeat(20_000)}`,
  `{"user_id":"fz-user","session_id":"fz-s1","message":"deep","metadata":${"{\"a\":".repeat(5_000)}1${"}".repeat(5_000)}}`,
  "{\"user_id\":\"fz-user\",\"session_id\":\"fz-s1\",\"message\":1e400}",
];

const bodyBytesArb: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 8, arbitrary: turnObjectArb.map((body) => Buffer.from(JSON.stringify(body), "utf8")) },
  { weight: 2, arbitrary: fc.constantFrom(...RAW_BODIES).map((text) => Buffer.from(text, "utf8")) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => Buffer.from(JSON.stringify(value) ?? "", "utf8")) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: fc.constantFrom(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), Buffer.from([0xed, 0xa0, 0x80])) },
);

const CONTENT_TYPES = [
  "text/plain", "application/json-patch+json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
  "application/json;charset=latin1", "APPLICATION/JSON", "application/json; charset=utf-8", " application/json ", "json", "",
];
const contentTypeArb: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 8, arbitrary: fc.constant("application/json") },
  { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** An Authorization header (or none) given the service's valid keys. */
export function authArb(validKeys: readonly string[]): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...validKeys).map((key) => `Bearer ${key}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom("Bearer", "Bearer ", "Bearer wrong-key", "Basic Zm9vOmJhcg==", "Token abc", "Bearer \u00ff\u00fe", `Bearer ${"k".repeat(5_000)}`),
        fc.constantFrom(...validKeys).map((key) => `bearer   ${key}  `),
        fc.constantFrom(...validKeys).map((key) => `Bearer ${key} extra`),
        fc.constantFrom(...validKeys).map((key) => `Bearer ${key}, Bearer ${key}`),
        fc.string({ unit: "binary-ascii", maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
      ),
    },
  );
}

/** An id as a path segment or query value: encoded properly, left raw, double-encoded, or odd bytes. */
const segmentArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: idArb.map(percentEncode) },
  // Raw, as far as RFC 3986 lets a path segment be (Node's parser answers a bare 400 to anything else).
  { weight: 1, arbitrary: idArb.filter((id) => /^[\w\-.~!$&'()*+,;=:@%]*$/.test(id)) },
  { weight: 1, arbitrary: idArb.map((id) => percentEncode(percentEncode(id))) },
  { weight: 2, arbitrary: fc.constantFrom("%", "%zz", "%2", "%00", "%ff", "%FF%FE", "%ED%A0%80", "%C0%AF", "%2F", "%2e%2e", "%252F", "%E0%A4%A", "a%20", ";", "%3F", "") },
);

const queryArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: segmentArb.map((user) => `?user_id=${user}`) },
  { weight: 1, arbitrary: fc.constantFrom("", "?", "?user_id", "?user_id=", "?USER_ID=fz-user") },
  { weight: 1, arbitrary: fc.tuple(segmentArb, segmentArb).map(([a, b]) => `?user_id=${a}&user_id=${b}`) },
  { weight: 1, arbitrary: segmentArb.map((user) => `?user_id=${user}&extra=1`) },
);

/** An import body: sessions of messages, mostly well formed, often with an odd id, role, time or text. */
const importBodyArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.array(
      fc.record(
        {
          session_id: jsonIdArb,
          started_at: fc.constantFrom("2024-03-02T10:00:00Z", "2024-03-02T10:00:00+07:00", "2024-03-02", "yesterday", 5),
          messages: fc.array(
            fc.record(
              { id: jsonIdArb, role: fc.constantFrom("user", "assistant", "robot"), text: messageArb, created_at: fc.constantFrom("2024-03-02T10:00:01Z", "nope"), parent_id: jsonIdArb, speaker: messageArb },
              { requiredKeys: ["id", "role", "text"] },
            ),
            { maxLength: 3 },
          ),
        },
        { requiredKeys: ["session_id", "started_at", "messages"] },
      ),
      { maxLength: 2 },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** Numbers at and past the edges of what JSON and a double carry. */
const edgeNumberArb = fc.constantFrom(0, -0, 5e-324, 1e-310, 2 ** 53 + 1, -(2 ** 63), 1.7976931348623157e308, 1e308, -1e308, 0.1 + 0.2);

/** Any JSON value a hostile caller may send: every Unicode category in keys and strings, edge numbers, deep and wide nesting. */
const hostileJsonArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: fc.dictionary(fc.string({ unit: "binary", maxLength: 6 }), fc.oneof(fc.string({ unit: "binary", maxLength: 20 }), edgeNumberArb), { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(deep(31), deep(40), deep(200)) },
  { weight: 1, arbitrary: fc.constantFrom(Array.from({ length: 10_001 }, (_, i) => i), Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`k${i}`, i]))) },
);

const timeArb = fc.constantFrom("2024-03-02T10:00:00Z", "2024-03-02T10:00:05+07:00", "2024-03-02", "nope");

/**
 * An export document to import: sessions, and events, facts, summaries and turn records that point
 * at its messages, at stored ones, or at nothing; payloads and results from `hostileJsonArb`.
 */
const importDocumentArb: fc.Arbitrary<unknown> = fc
  .record({
    user_id: fc.oneof(fc.constantFrom(...KNOWN.users), idArb),
    sessions: fc.array(
      fc.record({
        session_id: fc.oneof(fc.constantFrom(...KNOWN.sessions), idArb),
        started_at: timeArb,
        messages: fc.array(fc.record({ id: fc.constantFrom("d1", "d2", "d3"), role: fc.constantFrom("user", "assistant"), text: messageArb }), { minLength: 1, maxLength: 3 }),
      }),
      { maxLength: 2 },
    ),
    ref: fc.record({ session: fc.constantFrom(...KNOWN.sessions, "nowhere"), message: fc.constantFrom("d1", "d2", "ghost") }),
    importance: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), edgeNumberArb),
    payload: hostileJsonArb,
    value: fc.oneof(messageArb, fc.string({ unit: "binary", maxLength: 30 })),
    layers: fc.subarray(["events", "facts", "summaries", "turns"]),
  })
  .map(({ user_id, sessions, ref, importance, payload, value, layers }) => {
    const at = "2024-03-02T10:00:00Z";
    const all: Record<string, unknown[]> = {
      events: [{ id: ref.message, type: "INQUIRY", importance, intent: "x", entities: [], language: "en", payload, text: "t", message_id: ref.message, session_id: ref.session, created_at: at, classified_by: "keywords" }],
      facts: [{ id: `k@${ref.message}`, key: "k", value, text: "k: v", valid_from: at, valid_to: null, source_message_ids: [ref.message], session_id: ref.session }],
      summaries: [{ id: `${ref.session}:${ref.message}`, text: value, session_id: ref.session, from_message_id: ref.message, to_message_id: ref.message, message_ids: [ref.message], method: "rules", created_at: at }],
      turns: [{ session_id: ref.session, key: ref.message, text: "t", parent_message_id: null, result: payload, created_at: at }],
    };
    return { version: 1, user_id, sessions, events: [], facts: [], summaries: [], ...Object.fromEntries(layers.map((layer) => [layer, all[layer]])) };
  });

/** A request of the API: a turn, a read or forget of a session or a user, a search, import or export of memory, a correction. */
export function requestArb(validKeys: readonly string[]): fc.Arbitrary<RawRequest> {
  const auth = authArb(validKeys);
  const turn = fc.record({ auth, type: contentTypeArb, body: bodyBytesArb, stream: fc.boolean() }).map(({ auth, type, body, stream }) =>
    request("POST", stream ? "/v1/turns/stream" : "/v1/turns", auth, body, type),
  );
  const session = fc.record({ auth, id: segmentArb, query: queryArb, method: fc.constantFrom("GET", "DELETE") }).map(({ auth, id, query, method }) =>
    request(method, method === "GET" ? `/v1/sessions/${id}/messages${query}` : `/v1/sessions/${id}${query}`, auth),
  );
  const user = fc.record({ auth, id: segmentArb, query: fc.oneof(fc.constant(""), queryArb), method: fc.constantFrom("GET", "DELETE") }).map(({ auth, id, query, method }) =>
    request(method, method === "GET" ? `/v1/users/${id}/memory${query}` : `/v1/users/${id}${query}`, auth),
  );
  const memoryApi = fc
    .record({ auth, id: segmentArb, route: fc.constantFrom("search", "import", "export"), q: segmentArb, more: fc.constantFrom("", "&limit=5", "&limit=0", "&limit=x", "&limit=500", "&session_id=fz-s1", "&memory_context=true", "&extra=1"), type: contentTypeArb, sessions: fc.oneof(importBodyArb, importDocumentArb) })
    .map(({ auth, id, route, q, more, type, sessions }) => {
      if (route === "search") return request("GET", `/v1/users/${id}/memory/search?q=${q}${more}`, auth);
      if (route === "export") return request("GET", `/v1/users/${id}/export`, auth);
      const query = more === "&extra=1" ? "?classify=true" : more === "&limit=5" ? `?as_user=${id}` : "";
      return request("POST", `/v1/users/${id}/sessions/import${query}`, auth, Buffer.from(JSON.stringify(sessions)), type);
    });
  // Corrections: a fact's edit or delete (one version, every version, or a bad `versions`), a stored message's correction.
  const correction = fc
    .record({
      auth,
      user: fc.oneof(fc.constantFrom(...KNOWN.users).map(percentEncode), segmentArb),
      fact: fc.oneof(fc.constantFrom("k@d1", "k@d2", "k@ghost").map(percentEncode), segmentArb),
      versions: fc.constantFrom("", "?versions=all", "?versions=one", "?versions=x", "?versions=all&extra=1", "?versions=%00"),
      method: fc.constantFrom("PATCH", "DELETE", "MESSAGE"),
      body: fc.oneof(fc.record({ value: messageArb, pinned: fc.boolean() }, { requiredKeys: [] }), fc.record({ text: messageArb }), hostileJsonArb),
    })
    .map(({ auth, user, fact, versions, method, body }) => {
      const json = Buffer.from(JSON.stringify(body) ?? "null");
      if (method === "MESSAGE") return request("PATCH", `/v1/users/${user}/sessions/${KNOWN.sessions[0]}/messages/d1`, auth, json, "application/json");
      return method === "PATCH" ? request("PATCH", `/v1/users/${user}/facts/${fact}`, auth, json, "application/json") : request("DELETE", `/v1/users/${user}/facts/${fact}${versions}`, auth);
    });
  const stray = fc.record({ auth, method: fc.constantFrom("GET", "PUT", "PATCH", "OPTIONS", "POST"), path: fc.constantFrom("/v1/turns", "/v1/sessions", "/v1/users//memory", "/v1/sessions//messages", "/v1/./turns", "/v1/%2e%2e/healthz", "/v1", "/v2/turns") }).map(({ auth, method, path }) =>
    request(method, path, auth),
  );
  return fc.oneof(
    { weight: 6, arbitrary: turn },
    { weight: 2, arbitrary: session },
    { weight: 2, arbitrary: user },
    { weight: 3, arbitrary: memoryApi },
    { weight: 2, arbitrary: correction },
    { weight: 1, arbitrary: stray },
  );
}

function request(method: string, path: string, auth: string | undefined, body?: Buffer, contentType?: string): RawRequest {
  const headers: Record<string, string> = {};
  if (auth !== undefined) headers.authorization = auth;
  if (contentType !== undefined) headers["content-type"] = contentType;
  return { method, path, headers, body };
}

/** Percent-encodes every byte of the UTF-8 form but unreserved characters (a lone surrogate goes as U+FFFD). */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, "utf8")].map((byte) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`)).join("");
}

/** Sends `req` to 127.0.0.1:`port` as written; fails after `timeoutMs`. */
export function send(port: number, req: RawRequest, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: "127.0.0.1", port, method: req.method, path: req.path, headers: req.headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    outgoing.on("error", reject);
    outgoing.end(req.body);
  });
}
