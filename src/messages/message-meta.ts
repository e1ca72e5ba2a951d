import { ChatMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { MemoryGraphError } from "../errors.js";

/**
 * A file attached to a message (Dify-style). Exactly one locator is set, and it matches
 * `transferMethod`: `local_file` → `uploadFileId`, `tool_file` → `toolFileId`,
 * `remote_url` → `url`. Validate untrusted input with {@link fileRefSchema}.
 */
export interface FileRef {
  type: "image" | "document" | "audio" | "video" | "custom";
  transferMethod: "local_file" | "remote_url" | "tool_file";
  uploadFileId?: string;
  toolFileId?: string;
  url?: string;
  belongsTo: "user" | "assistant";
}

/** What a session's seed carries over from earlier sessions, by reference: a summary's id, fact keys. */
export interface CarriedRefs {
  summaryId: string | null;
  factKeys: string[];
}

/**
 * What memory-graph records about a message beside its content. `parentId` links a message to
 * the one it answers or follows (regeneration threads); `createdAt` is an ISO-8601 time, or ""
 * when unknown; `pinned` marks a system message the window never drops; `carried` marks a
 * session's seed, whose text is rendered from current memory at prompt time.
 */
export interface MessageMeta {
  parentId: string | null;
  createdAt: string;
  files?: FileRef[];
  pinned?: boolean;
  carried?: CarriedRefs;
}

/** The key under `message.additional_kwargs` that holds a {@link MessageMeta}. */
export const META_KEY = "memory_graph";

const LOCATOR_OF = {
  local_file: "uploadFileId",
  tool_file: "toolFileId",
  remote_url: "url",
} as const;
const LOCATORS = ["uploadFileId", "toolFileId", "url"] as const;

/**
 * Zod schema for a {@link FileRef}: rejects a ref whose locator does not match its
 * `transferMethod`, that sets more than one locator, or that has a field a FileRef lacks. A `url`
 * must be a valid URL.
 */
export const fileRefSchema = z
  .object({
    type: z.enum(["image", "document", "audio", "video", "custom"]),
    transferMethod: z.enum(["local_file", "remote_url", "tool_file"]),
    uploadFileId: z.string().min(1).optional(),
    toolFileId: z.string().min(1).optional(),
    url: z.url().optional(),
    belongsTo: z.enum(["user", "assistant"]),
  })
  .strict()
  .superRefine((ref, ctx) => {
    const expected = LOCATOR_OF[ref.transferMethod];
    for (const key of LOCATORS) {
      const present = ref[key] !== undefined;
      if (key === expected && !present) {
        ctx.addIssue({ code: "custom", path: [key], message: `${key} is required when transferMethod is ${ref.transferMethod}` });
      } else if (key !== expected && present) {
        ctx.addIssue({ code: "custom", path: [key], message: `${key} is not allowed when transferMethod is ${ref.transferMethod}` });
      }
    }
  });

// Compile-time check that the schema's output fits the interface.
const _schemaFitsInterface: (ref: z.infer<typeof fileRefSchema>) => FileRef = (ref) => ref;
void _schemaFitsInterface;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The {@link MessageMeta} of `message`. Missing or malformed fields take defaults:
 * `parentId` null, `createdAt` "", no files, not pinned. Never throws; never mutates.
 */
export function metaOf(message: BaseMessage): MessageMeta {
  const raw: unknown = message.additional_kwargs?.[META_KEY];
  const record = isRecord(raw) ? raw : {};
  const meta: MessageMeta = {
    parentId: typeof record["parentId"] === "string" ? record["parentId"] : null,
    createdAt: typeof record["createdAt"] === "string" ? record["createdAt"] : "",
  };
  if (Array.isArray(record["files"])) meta.files = (record["files"] as FileRef[]).map((file) => ({ ...file }));
  if (typeof record["pinned"] === "boolean") meta.pinned = record["pinned"];
  const carried = record["carried"];
  if (isRecord(carried) && Array.isArray(carried["factKeys"])) {
    meta.carried = {
      summaryId: typeof carried["summaryId"] === "string" ? carried["summaryId"] : null,
      factKeys: carried["factKeys"].filter((key): key is string => typeof key === "string"),
    };
  }
  return meta;
}

/** The constructor fields that rebuild `message`, without LangChain's internal `lc_*` keys. */
function fieldsOf(message: BaseMessage): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(message)) {
    if (key === "type" || key.startsWith("lc_") || value === undefined) continue;
    fields[key] = value;
  }
  // Some constructors push into a content array they are given; hand them a copy.
  if (Array.isArray(fields["content"])) fields["content"] = [...(fields["content"] as unknown[])];
  return fields;
}

/**
 * A new message of the same class as `message` (same id, content, name, tool calls,
 * tool_call_id, response metadata, …) whose meta is `metaOf(message)` merged with `meta`.
 * Keys of `meta` whose value is `undefined` leave the old value in place. `message` is not
 * mutated.
 */
export function withMeta<T extends BaseMessage>(message: T, meta: Partial<MessageMeta>): T {
  const merged: Record<string, unknown> = { ...metaOf(message) };
  for (const [key, value] of Object.entries(meta)) {
    if (value !== undefined) merged[key] = value;
  }
  const fields = fieldsOf(message);
  fields["additional_kwargs"] = { ...message.additional_kwargs, [META_KEY]: merged };
  return cloneWith(message, fields);
}

/**
 * A copy of `message` (same class, same fields) that the caller may mutate, e.g. to assign an
 * id. Used to keep reducers pure when a LangGraph helper writes into the messages it is given.
 */
export function copyMessage<T extends BaseMessage>(message: T): T {
  const fields = fieldsOf(message);
  fields["additional_kwargs"] = { ...message.additional_kwargs };
  return cloneWith(message, fields);
}

function cloneWith<T extends BaseMessage>(message: T, fields: Record<string, unknown>): T {
  const Ctor = message.constructor as new (fields: Record<string, unknown>) => T;
  return new Ctor(fields);
}

/** True when `message` is a SystemMessage whose meta says `pinned: true`. */
export function isPinned(message: BaseMessage): boolean {
  return SystemMessage.isInstance(message) && metaOf(message).pinned === true;
}

/**
 * The text of `message`: its content when that is a string, otherwise the `text` of each text
 * part of the content array, joined with "\n". Non-text parts (images, files, tool calls) add
 * nothing.
 */
export function textOf(message: BaseMessage): string {
  const content: unknown = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content as unknown[]) {
    if (typeof part === "string") parts.push(part);
    else if (isRecord(part) && part["type"] === "text" && typeof part["text"] === "string") parts.push(part["text"]);
  }
  return parts.join("\n");
}

/** The chat roles memory-graph stores. */
export type MessageRole = "user" | "assistant" | "system" | "tool";

const ROLE_OF_TYPE: Record<string, MessageRole> = {
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  system: "system",
  developer: "system",
  tool: "tool",
  function: "tool",
};

/**
 * The chat role of `message`, from its LangChain type: human → user, ai → assistant,
 * system/developer → system, tool/function → tool; a ChatMessage maps its own `role` the same
 * way. Any other type throws a MemoryGraphError `UNKNOWN_MESSAGE_ROLE`.
 */
export function messageRole(message: BaseMessage): MessageRole {
  const type = message.getType();
  const key = type === "generic" && ChatMessage.isInstance(message) ? message.role : type;
  const role = ROLE_OF_TYPE[key];
  if (role === undefined) {
    throw new MemoryGraphError("UNKNOWN_MESSAGE_ROLE", `message ${message.id ?? "(no id)"} has type "${key}", which has no chat role`, {
      kind: "system",
    });
  }
  return role;
}
