import { RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import type { MemoryGraphApp } from "../graph/build-graph.js";
import { copyMessage, metaOf, textOf, withMeta } from "../messages/message-meta.js";
import { redactDeep } from "../memory/redaction.js";
import type { NodeMemoryUpdate } from "../graph/reducers.js";
import { sourceIdOf } from "../graph/nodes/ingest-prompt.js";
import type { MemoryState } from "../graph/state/state.js";

/**
 * Corrections of stored messages carried into a session's checkpointed state: the window
 * (`messages`) and node-scoped memory (`nodeMessages`). Written with the graph's `updateState`, so
 * the channels' own reducers (`appendAndTrim`: upsert by id, `RemoveMessage`) apply them. The
 * caller holds the session's turn lock. A session without a checkpoint, or whose window no longer
 * holds the message, is left as it is.
 */
export interface SessionWindowEdits {
  /** Takes message `id` (and node memory derived from it) out of the thread's window; true when it was there. */
  remove(threadId: string, id: string): Promise<boolean>;
  /** Gives message `id` the text `text` wherever the thread's window holds it; true when it was there. */
  rewrite(threadId: string, id: string, text: string): Promise<boolean>;
  /**
   * Applies `redact` (see memory/redaction.ts) to every message of the thread's window and node
   * memory, and to what the last turn left in the state (its input, recall, memory block, event,
   * reply, the session's active entities); true when anything changed.
   */
  redact(threadId: string, redact: (text: string) => string): Promise<boolean>;
}

/** No checkpointed sessions to correct (a per-item API over a store alone). */
export const NO_SESSION_WINDOWS: SessionWindowEdits = { remove: async () => false, rewrite: async () => false, redact: async () => false };

type Edit = (message: BaseMessage) => BaseMessage | RemoveMessage | null;

/** How one correction changes a checkpointed state: each message (null: unchanged), and the session and other channels. */
interface Plan {
  edit: Edit;
  session?: Partial<MemoryState["session"]>;
  channels?: Partial<Pick<MemoryState, LastTurnChannel>>;
}

/** The channels that hold what the last turn read and wrote until the next turn replaces them. */
const LAST_TURN_CHANNELS = ["input", "turn", "recalled", "memoryText", "event", "candidate", "llmText"] as const;
type LastTurnChannel = (typeof LAST_TURN_CHANNELS)[number];

/** A copy of `message` (same id and metadata) that says `text`. */
function withText(message: BaseMessage, text: string): BaseMessage {
  const copy = copyMessage(message);
  copy.content = text;
  return copy;
}

/**
 * The session-window edits of `app`'s threads. With `dropHistory` (the persistence's
 * `dropSessionHistory`), each edited thread keeps only its newest checkpoint afterwards: the older
 * ones still hold what the correction took out, even where the newest window no longer held it, and
 * a checkpoint can be read again (LangGraph's state history, a fork from an earlier turn).
 */
export function sessionWindowEdits(app: MemoryGraphApp, dropHistory?: (threadId: string) => Promise<unknown>): SessionWindowEdits {
  /** Applies a plan to each message of the window and node memory; writes a checkpoint only when something changed. */
  async function apply(threadId: string, planOf: (state: MemoryState) => Plan): Promise<boolean> {
    const config = { configurable: { thread_id: threadId } };
    const snapshot = await app.getState(config);
    if (!snapshot.createdAt) return false;
    const changed = await write(config, snapshot.values as MemoryState, planOf);
    await dropHistory?.(threadId);
    return changed;
  }

  /** Writes the plan's changes to the thread's state as a new checkpoint; false when it changes nothing. */
  async function write(config: { configurable: { thread_id: string } }, state: MemoryState, planOf: (state: MemoryState) => Plan): Promise<boolean> {
    const { edit, session, channels = {} } = planOf(state);
    const changes = (messages: readonly BaseMessage[]) => messages.map(edit).filter((m): m is BaseMessage => m !== null);
    const messages = changes(state.messages);
    const nodeMessages: NodeMemoryUpdate = {};
    for (const [node, own] of Object.entries(state.nodeMessages)) {
      const changed = changes(own);
      if (changed.length > 0) nodeMessages[node] = changed;
    }
    if (messages.length === 0 && Object.keys(nodeMessages).length === 0 && !session && Object.keys(channels).length === 0) return false;
    // As the node that wrote the checkpoint (inferred), so what runs next on the thread is unchanged.
    await app.updateState(config, { messages, nodeMessages, ...(session ? { session } : {}), ...channels });
    return true;
  }

  return {
    remove: (threadId, id) =>
      apply(threadId, (state) => {
        const removed = state.messages.find((message) => message.id === id);
        const parentId = removed ? metaOf(removed).parentId : null;
        return {
          // Messages that followed it follow its parent, as deleteMessage relinks them in the transcript.
          edit: (message) => {
            if (message.id && sourceIdOf(message.id) === id) return new RemoveMessage({ id: message.id });
            return removed && metaOf(message).parentId === id ? withMeta(message, { parentId }) : null;
          },
          // The session's next message follows the deleted one's parent too.
          ...(removed && state.session.lastMessageId === id ? { session: { lastMessageId: parentId } } : {}),
        };
      }),
    rewrite: (threadId, id, text) =>
      apply(threadId, () => ({
        edit: (message) => {
          if (message.id !== id || message.content === text) return null;
          return withText(message, text);
        },
      })),
    redact: (threadId, redact) =>
      apply(threadId, (state) => {
        const channels: Plan["channels"] = {};
        for (const name of LAST_TURN_CHANNELS) {
          const redacted = redactDeep(state[name], redact);
          if (redacted !== state[name]) Object.assign(channels, { [name]: redacted });
        }
        const activeEntities = redactDeep(state.session.activeEntities, redact);
        return {
          edit: (message) => {
            const text = textOf(message);
            const redacted = redact(text);
            return redacted === text ? null : withText(message, redacted);
          },
          ...(activeEntities === state.session.activeEntities ? {} : { session: { activeEntities } }),
          channels,
        };
      }),
  };
}
