import { StateSchema } from "@langchain/langgraph";
import { z } from "zod";
import { MemoryGraphError } from "../../errors.js";
import { turnInputSchema, ValidTurn } from "./turn-input.js";

type JsonSchema = ReturnType<StateSchema<typeof turnInputSchema.shape>["getInputJsonSchema"]>;

const SUMMARY =
  "One turn: who (tenantId, userId, sessionId, required) and what (message, or prompts). " +
  "A run with neither is skipped: status SKIP, and an EMPTY_PROMPT entry in errors says so. " +
  "A bad input fails before any node runs, with an error naming its code and field.";

/**
 * The run input of the graph the LangGraph dev server (Studio) serves: the fields of
 * `turnInputSchema`, described and checked as LangGraph itself cannot.
 * - Its JSON schema (what Studio's input form and `/assistants/{id}/schemas` show) is the whole
 *   turn input's: tenantId, userId and sessionId required, every field with its description.
 *   LangGraph makes a zod input schema partial for that, so no field would be required; the
 *   server asks an input that is a `StateSchema` for `getInputJsonSchema()` first.
 * - A run's input is checked by `ValidTurn.parse` (structure bound, text rule, schema, prompt
 *   length), which LangGraph calls as `validateInput` before any node runs. A bad input throws
 *   our error, whose message begins with its code and field (`INVALID_INPUT: userId: …`): the
 *   server reports a run's error as its name and message only, and a zod error would reach the
 *   caller as a raw `$ZodError` string.
 * The channels stay the state's own (LangGraph keeps a channel the state already defines; this
 * definition's LastValue ones are declarations only). ingest_prompt checks the bound and the
 * prompt length again, as it must for a graph whose host checked nothing (a cheap second walk).
 */
export class StudioTurnInput extends StateSchema<typeof turnInputSchema.shape> {
  private readonly jsonSchema: JsonSchema;

  constructor(private readonly maxPromptChars: number) {
    super(turnInputSchema.shape);
    const { $schema: _draft, ...schema } = z.toJSONSchema(turnInputSchema, { target: "draft-07", io: "input" });
    this.jsonSchema = { ...schema, description: SUMMARY };
  }

  override getInputJsonSchema(): JsonSchema {
    return this.jsonSchema;
  }

  override async validateInput<T>(data: T): Promise<T> {
    try {
      return ValidTurn.parse(data, this.maxPromptChars).input as T;
    } catch (error) {
      throw coded(error);
    }
  }

  /**
   * `node`, whose errors of ours are thrown with their code and field leading the message: for
   * ingest_prompt, which checks what needs the store (an unknown parent, a message id in use, a
   * thread of another scope) after LangGraph has taken the input.
   */
  explaining<S, C, R>(node: (state: S, config: C) => Promise<R>): (state: S, config: C) => Promise<R> {
    return async (state, config) => {
      try {
        return await node(state, config);
      } catch (error) {
        throw coded(error);
      }
    };
  }
}

/**
 * `error` (when one of ours) with its code and field leading its message, as `INVALID_INPUT: userId: …`,
 * for a host that shows only an error's name and message. Any other error is returned as it is.
 */
function coded(error: unknown): unknown {
  if (!(error instanceof MemoryGraphError) || error.message.startsWith(`${error.code}:`)) return error;
  const field = error.field;
  const named = field === undefined || error.message.startsWith(`${field}:`) ? error.message : `${field}: ${error.message}`;
  return new MemoryGraphError(error.code, `${error.code}: ${named}`, { kind: error.kind, field, cause: error });
}

