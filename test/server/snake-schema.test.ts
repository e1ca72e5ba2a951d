import { describe, expect, it } from "vitest";
import { z } from "zod";
import { importSessionsSchema, userMemorySchema } from "../../src/memory/import-schema.js";
import { toSnake } from "../../src/server/case.js";
import { openApiDocument } from "../../src/server/openapi.js";
import { parseRequest } from "../../src/server/route.js";
import { snakeCasing } from "../../src/server/snake-schema.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON Schema is walked as plain JSON
type Json = any;
const doc = openApiDocument() as Json;

/** A schema of the document with every `$ref` replaced by what it names. */
function resolved(value: Json): Json {
  if (Array.isArray(value)) return value.map(resolved);
  if (value === null || typeof value !== "object") return value;
  if (typeof value.$ref === "string") return resolved(value.$ref.replace(/^#\//, "").split("/").reduce((node: Json, key: string) => node[key], doc));
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, resolved(inner)]));
}

/** A JSON Schema with its property names in snake_case (a record's keys are no properties: untouched). */
function snakeJsonSchema(value: Json): Json {
  if (Array.isArray(value)) return value.map(snakeJsonSchema);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => {
      if (key === "properties") return [key, Object.fromEntries(Object.entries(inner as Json).map(([name, field]) => [toSnake(name), snakeJsonSchema(field)]))];
      if (key === "required") return [key, (inner as string[]).map(toSnake)];
      return [key, snakeJsonSchema(inner)];
    }),
  );
}

function coreJsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io });
  return snakeJsonSchema(rest);
}

const snake = snakeCasing();
const request = snake.request(userMemorySchema);
const answer = snake.answer(userMemorySchema);

const document = {
  version: 1,
  user_id: "u1",
  sessions: [
    {
      session_id: "s1",
      started_at: "2024-03-02T10:00:00+07:00",
      messages: [
        { id: "m1", role: "user", text: "hi", parent_id: null, files: [{ type: "image", transfer_method: "local_file", upload_file_id: "up", belongs_to: "user" }] },
      ],
    },
  ],
  events: [
    {
      id: "m1",
      type: "REQUEST",
      importance: 0.8,
      intent: "order",
      entities: [],
      language: "en",
      payload: { orderId: 42, ship_to: { zipCode: "10110" } },
      text: "hi",
      message_id: "m1",
      session_id: "s1",
      created_at: "2024-03-02T03:00:00.000Z",
      classified_by: "keywords",
    },
  ],
  facts: [
    {
      id: "f1",
      key: "name",
      value: "Anong",
      text: "name: Anong",
      valid_from: "2024-03-02T03:00:00.000Z",
      valid_to: null,
      source_message_ids: ["m1"],
      session_id: "s1",
    },
  ],
  summaries: [],
};

describe("snakeCasing", () => {
  it("gives the API document the core import and export schemas, key for key, in snake_case", () => {
    const documented = resolved(doc.components.schemas.UserMemoryExport);
    expect(documented).toEqual(coreJsonSchema(userMemorySchema, "input"));
    expect(documented).toEqual(coreJsonSchema(userMemorySchema, "output"));
    expect(resolved(doc.components.schemas.ImportRequest).anyOf).toEqual([coreJsonSchema(importSessionsSchema, "input"), documented]);
    // The export route answers with the same component the import route takes.
    expect(doc.paths["/v1/users/{user_id}/export"].get.responses[200].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/UserMemoryExport" });
  });

  it("parses a request into what the core's parse gives, and never re-cases a record's keys", () => {
    const [session, event, fact] = [document.sessions[0]!, document.events[0]!, document.facts[0]!];
    const file = { type: "image", transferMethod: "local_file", uploadFileId: "up", belongsTo: "user" };
    const camel = {
      version: 1,
      userId: "u1",
      sessions: [{ sessionId: "s1", startedAt: session.started_at, messages: [{ id: "m1", role: "user", text: "hi", parentId: null, files: [file] }] }],
      events: [
        {
          id: "m1",
          type: "REQUEST",
          importance: 0.8,
          intent: "order",
          entities: [],
          language: "en",
          payload: event.payload,
          text: "hi",
          messageId: "m1",
          sessionId: "s1",
          createdAt: event.created_at,
          classifiedBy: "keywords",
        },
      ],
      facts: [{ id: "f1", key: "name", value: "Anong", text: fact.text, validFrom: fact.valid_from, validTo: null, sourceMessageIds: ["m1"], sessionId: "s1" }],
      summaries: [],
    };
    const parsed = request.parse(document);
    expect(parsed).toEqual(userMemorySchema.parse(camel));
    expect(parsed.sessions[0]?.startedAt).toBe("2024-03-02T03:00:00.000Z");
    expect(parsed.events[0]?.payload).toEqual({ orderId: 42, ship_to: { zipCode: "10110" } });
    expect(answer.parse(document)).toEqual({ ...document, sessions: [{ ...document.sessions[0], started_at: "2024-03-02T03:00:00.000Z" }] });
  });

  it.each([
    { change: (d: Json) => (d.sessions[0].messages[0].role = "robot"), field: "sessions.0.messages.0.role", code: "INVALID_INPUT" },
    { change: (d: Json) => (d.sessions[0].startedAt = "2024-03-02T10:00:00Z"), field: "sessions.0.startedAt", code: "UNKNOWN_FIELD" },
    { change: (d: Json) => (d.events[0].message_id = "a/b"), field: "events.0.message_id", code: "INVALID_INPUT" },
    { change: (d: Json) => (d.sessions[0].messages[0].files[0].size = 1), field: "sessions.0.messages.0.files.0.size", code: "UNKNOWN_FIELD" },
    // The core's own checks of an object run on it, camelCase keys and all (the service snake-cases the field it names).
    { change: (d: Json) => delete d.sessions[0].messages[0].files[0].upload_file_id, field: "sessions.0.messages.0.files.0.uploadFileId", code: "INVALID_INPUT" },
  ])("names a bad request field as sent: $field", ({ change, field, code }) => {
    const bad = structuredClone(document);
    change(bad);
    expect(() => parseRequest(request, bad)).toThrow(expect.objectContaining({ field, code }));
  });

  it.each([
    { type: "union", schema: z.object({ either: z.union([z.object({ someKey: z.string() }), z.string()]) }) },
    { type: "record", schema: z.object({ byName: z.record(z.string(), z.object({ someKey: z.string() })) }) },
  ])("refuses to derive a $type it has no rule for, rather than leave keys in camelCase", ({ type, schema }) => {
    expect(() => snake.request(schema)).toThrow(`no rule for a zod ${type}`);
  });
});
