import { MemoryGraphError } from "../errors.js";
import { log } from "../logger.js";

/** Bounds of `TurnAdmission`. */
export interface AdmissionOptions {
  /** Turns this process runs at once (MAX_CONCURRENT_TURNS); 0: no bound. */
  maxConcurrent: number;
  /** The longest a turn waits for a place before it is refused (TURN_QUEUE_MS). */
  maxWaitMs: number;
}

/** Ends one admitted turn's hold on its place. Calling it again does nothing. */
export type Release = () => void;

/**
 * Admission control of turns: at most `maxConcurrent` run at once in this process; the next ones
 * wait, first come first served, at most `maxWaitMs` each, and one that finds no place by then is
 * refused with OVERLOADED (HTTP 503, Retry-After) before anything of it ran or was stored. Past its
 * capacity the service so answers some turns at once with a clear "busy" instead of slowing every
 * turn until storage calls time out and the store is taken for down (MEMORY_STORE_UNAVAILABLE for
 * all). A refusal says nothing about the caller: a retry, here or on another instance, may pass.
 */
export class TurnAdmission {
  private running = 0;
  private readonly waiting: { admit: () => void; timer: NodeJS.Timeout }[] = [];
  private refusedCount = 0;

  constructor(private readonly options: AdmissionOptions) {}

  /** Turns running now, waiting now, and refused since the start. */
  get stats(): { running: number; waiting: number; refused: number } {
    return { running: this.running, waiting: this.waiting.length, refused: this.refusedCount };
  }

  /** A place for one turn (resolves once it has one), or OVERLOADED when none frees up within `maxWaitMs`. */
  async enter(): Promise<Release> {
    const { maxConcurrent, maxWaitMs } = this.options;
    if (maxConcurrent === 0 || this.running < maxConcurrent) return this.hold();
    if (maxWaitMs > 0) {
      const admitted = await new Promise<boolean>((resolve) => {
        const entry = { admit: () => resolve(true), timer: setTimeout(() => this.dropWaiting(entry, resolve), maxWaitMs) };
        this.waiting.push(entry);
      });
      // A place handed over by `release` is already counted as running.
      if (admitted) return this.released();
    }
    this.refusedCount += 1;
    log.warn("turn.refused_overloaded", { running: this.running, waiting: this.waiting.length, max_concurrent: maxConcurrent, max_wait_ms: maxWaitMs });
    throw new MemoryGraphError("OVERLOADED", `this instance is running its most turns at once (${maxConcurrent}); retry shortly`, {
      kind: "system",
      retryAfterSeconds: 1,
    });
  }

  private hold(): Release {
    this.running += 1;
    return this.released();
  }

  /** The release of a place already counted: hands it to the longest waiting turn, else frees it. */
  private released(): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        next.admit();
      } else {
        this.running -= 1;
      }
    };
  }

  private dropWaiting(entry: { admit: () => void; timer: NodeJS.Timeout }, resolve: (admitted: boolean) => void): void {
    const at = this.waiting.indexOf(entry);
    if (at >= 0) this.waiting.splice(at, 1);
    resolve(false);
  }
}
