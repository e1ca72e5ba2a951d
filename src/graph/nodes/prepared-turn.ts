import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { TranscriptRecord } from "../../memory/records.js";
import type { TurnInput } from "../state/turn-input.js";

/**
 * A turn the facade has already validated and checked against the store, under the session's
 * turn lock: its input, its parent (null without `parentMessageId`), and that its `messageId`, if
 * any, names no stored message. ingest_prompt takes this verdict instead of parsing the input and
 * reading the store again.
 */
export interface PreparedTurn {
  input: TurnInput;
  parent: TranscriptRecord | null;
}

/** The key of a run's `configurable` under which the facade passes its ticket. */
const TICKET_KEY = "memory_graph_prepared_turn";

/**
 * The verdicts of one compiled graph's facade, handed to ingest_prompt through a ticket in the
 * run's config. A ticket is an object this registry made: an object's identity cannot be sent
 * over the wire, copied into JSON or guessed, so a run from anywhere else (Studio, the dev
 * server's API, a library caller invoking the graph with a config of its own) holds none, and
 * ingest_prompt validates its input and reads the store itself.
 */
export class PreparedTurns {
  readonly #verdicts = new WeakMap<object, PreparedTurn>();

  /** The `configurable` entries that carry `verdict` to ingest_prompt for one run. */
  ticketFor(verdict: PreparedTurn): Record<string, object> {
    const ticket = Object.freeze({});
    this.#verdicts.set(ticket, verdict);
    return { [TICKET_KEY]: ticket };
  }

  /** The verdict of the run's ticket, or null when the run carries none of this registry's. */
  verdictOf(config: LangGraphRunnableConfig): PreparedTurn | null {
    const ticket: unknown = config.configurable?.[TICKET_KEY];
    if (ticket === null || typeof ticket !== "object") return null;
    return this.#verdicts.get(ticket) ?? null;
  }
}
