import type { BaseMessage } from "@langchain/core/messages";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import { FakeListChatModel } from "@langchain/core/utils/testing";

/**
 * LangChain's fake chat model, keeping itself when tools are bound: the library's fake binds them
 * on a new plain FakeListChatModel, which would leave out what the subclasses below do (count, fail,
 * wait). These answer text with or without tools, as a model that calls none would.
 */
class TestChatModel extends FakeListChatModel {
  override bindTools(): this {
    return this;
  }
}

/** A fake chat model that records every prompt it is given and answers from a list. */
export class RecordingChatModel extends TestChatModel {
  readonly prompts: BaseMessage[][] = [];

  constructor(responses: string[] = ["ok"]) {
    super({ responses });
  }

  override async _generate(messages: BaseMessage[], options?: this["ParsedCallOptions"]): Promise<ChatResult> {
    this.prompts.push(messages);
    return super._generate(messages, options);
  }
}

/** A fake chat model whose every call fails, as a provider outage would. */
export class FailingChatModel extends TestChatModel {
  calls = 0;

  constructor(private readonly error = new Error("model unavailable")) {
    super({ responses: ["never"] });
  }

  override async _generate(): Promise<ChatResult> {
    this.calls += 1;
    throw this.error;
  }
}

/** A fake chat model that fails its first `failures` calls, then answers from a list. */
export class FlakyChatModel extends TestChatModel {
  calls = 0;

  constructor(
    private failures: number,
    responses: string[] = ["ok"],
  ) {
    super({ responses });
  }

  override async _generate(messages: BaseMessage[], options?: this["ParsedCallOptions"]): Promise<ChatResult> {
    this.calls += 1;
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error("model unavailable");
    }
    return super._generate(messages, options);
  }
}

/**
 * A fake chat model that waits (`waitToAnswer`) before each answer, streamed or not, counting the
 * calls made and the ones answered.
 */
abstract class WaitingChatModel extends TestChatModel {
  calls = 0;
  answered = 0;

  protected abstract waitToAnswer(): Promise<void>;

  override async _generate(messages: BaseMessage[], options?: this["ParsedCallOptions"]): Promise<ChatResult> {
    this.calls += 1;
    await this.waitToAnswer();
    this.answered += 1;
    return super._generate(messages, options);
  }

  // LangChain streams a call (instead of `_generate`) when a stream handler listens, as in a graph run.
  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    this.calls += 1;
    await this.waitToAnswer();
    this.answered += 1;
    yield* super._streamResponseChunks(messages, options, runManager);
  }
}

/** A fake chat model that takes `delayMs` to answer each call (to make turns overlap). */
export class SlowChatModel extends WaitingChatModel {
  constructor(
    private readonly delayMs: number,
    responses: string[] = ["ok"],
  ) {
    super({ responses });
  }

  protected waitToAnswer(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.delayMs));
  }
}

/**
 * A chat model whose answer waits until `release()` (or never, if nobody releases it): a test
 * shows that something happened while this model's call was still open, without timing anything.
 */
export class GatedChatModel extends WaitingChatModel {
  private opened!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.opened = resolve));

  constructor(responses: string[] = ["ok"]) {
    super({ responses });
  }

  /** Lets every pending and later call answer. */
  release(): void {
    this.opened();
  }

  protected waitToAnswer(): Promise<void> {
    return this.gate;
  }
}

/**
 * A chat model that streams the first character of its answer at once, then holds the rest until
 * `release()`: a test acts while a streamed answer is half sent. Unstreamed calls wait whole.
 */
export class HalfStreamedChatModel extends GatedChatModel {
  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    this.calls += 1;
    let count = 0;
    // The parent reports a chunk's token when asked for the next one: hold the second chunk, not the first.
    for await (const chunk of FakeListChatModel.prototype._streamResponseChunks.call(this, messages, options, runManager)) {
      count += 1;
      if (count === 2) await this.waitToAnswer();
      yield chunk;
    }
    this.answered += 1;
  }
}
