import { createRequire } from "node:module";
import type * as Chrono from "chrono-node";
import type Compromise from "compromise";
import type * as PhoneNumbers from "libphonenumber-js";
import { runWarmUp, type WarmUpOptions } from "./warm-up-steps.js";

/**
 * The rule-based language tools — compromise (English tagging), chrono-node (dates) and
 * libphonenumber-js (phone numbers) — loaded on first use rather than when a module that may use
 * them is imported: together they are about 800 module files and half a second of start-up that a
 * library import, a process without any dated message, or a service before its first turn does not
 * need. Each loads synchronously (its CommonJS build: compromise's is one bundled file, 1 file and
 * ~0.24 s against 436 files and ~0.40 s for its ES modules), so the pure functions that use them stay
 * pure and synchronous; `warmLanguageTools` loads them ahead of need, one at a time, when a service
 * is idle. The same package versions answer either way: what a turn gets does not depend on when
 * they were loaded.
 */
const load = createRequire(import.meta.url);

let compromise: typeof Compromise | undefined;
let chrono: typeof Chrono | undefined;
let phoneNumbers: typeof PhoneNumbers | undefined;

/** compromise's `nlp`, loaded on the first call. */
export function nlp(): typeof Compromise {
  return (compromise ??= load("compromise") as typeof Compromise);
}

/** chrono-node, loaded on the first call. */
export function dates(): typeof Chrono {
  return (chrono ??= load("chrono-node") as typeof Chrono);
}

/** libphonenumber-js, loaded on the first call. */
export function phones(): typeof PhoneNumbers {
  return (phoneNumbers ??= load("libphonenumber-js") as typeof PhoneNumbers);
}

/** Which of the tools this process has loaded so far (for start-up logs and tests). */
export function loadedLanguageTools(): { compromise: boolean; chrono: boolean; phoneNumbers: boolean } {
  return { compromise: compromise !== undefined, chrono: chrono !== undefined, phoneNumbers: phoneNumbers !== undefined };
}

/** Relative and absolute dates, times and durations: one sentence that takes chrono through its parsers. */
const DATE_WARM_UP = "We met yesterday and last month; next Friday at 5pm, in 3 days, 2 weeks ago, this weekend, since last year, on 12 August 1990 and March 14.";

/**
 * The steps of a warm-up, each a few hundred ms of CPU at most: chrono loaded and run once over
 * `DATE_WARM_UP` the ways recall's annotations and fact extraction call it (it builds its patterns
 * on first use: about 160–250 ms, spread over the first dated messages of a process otherwise);
 * compromise loaded and run over one sentence; libphonenumber-js loaded and run once.
 */
const WARM_UP_STEPS: readonly (() => void)[] = [
  () => {
    const chronoNow = dates();
    chronoNow.parse(DATE_WARM_UP, { instant: new Date(), timezone: 0 }, { forwardDate: false });
    chronoNow.parse(DATE_WARM_UP);
    chronoNow.parseDate(DATE_WARM_UP, new Date(), { forwardDate: true });
  },
  () => void nlp()("My name is Anong, I work as a nurse in Chiang Mai and I have two cats.").has("#Place"),
  () => void phones().parsePhoneNumberFromString("+66 81 234 5678"),
];

/** Loads and warms the language tools one step at a time (`WARM_UP_STEPS`, see `runWarmUp`). */
export function warmLanguageTools(idle: () => boolean, options: WarmUpOptions = {}): Promise<number> {
  return runWarmUp(WARM_UP_STEPS, idle, options);
}
