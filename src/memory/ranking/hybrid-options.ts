import { MemoryGraphError } from "../../errors.js";

/** Tuning of `rankHybrid`; the defaults were chosen on a development conversation set. */
export interface HybridOptions {
  /**
   * BM25's length normalisation `b` (0..1) for this ranking's lexical passes; unset, the index's
   * own (0.75). Lower favours the long turns that tell what someone did over short replies.
   */
  lengthNorm?: number;
  /**
   * `lengthNorm` of a query that names the speaker of one of its first pass's best `ANSWER_WINDOW`
   * documents (`namedIn`; the first pass is then scored again with it): what a person did or likes
   * they tell in long turns, and BM25's usual `b` favours the short replies around them ("Wow! How
   * was it?"). Unset, `lengthNorm`. Default 0.4 (chosen on LoCoMo, whose turns name their speakers;
   * LongMemEval's do not, and there a lower `b` for every query loses).
   */
  namedLengthNorm?: number;
  /** Documents of the first pass whose terms feed pseudo-relevance feedback; 0 turns it off. Default 3. */
  feedbackDocs?: number;
  /** Expansion terms taken from them; default 5. */
  feedbackTerms?: number;
  /** Terms found in more than this share of documents are never expansion terms; default 0.05. */
  feedbackMaxShare?: number;
  /** Weight of the expansion terms' BM25 score against the query's; default 0.2. */
  feedbackWeight?: number;
  /** Share of each neighbour's lexical score a document receives (see `contextHalfLength`); 0 turns it off. Default 0.5. */
  neighbourWeight?: number;
  /**
   * A document of this many terms receives half of `neighbourWeight`, one of n terms
   * `contextHalfLength / (contextHalfLength + n)` of it: a short turn ("Yes, last Tuesday!") means
   * what its neighbours say, a long one stands alone. Needs the source's `lengthsOf`; 0 gives every
   * document the whole weight. Default 60 (chosen on LoCoMo and LongMemEval development sets together).
   */
  contextHalfLength?: number;
  /**
   * Whether a document found only as a neighbour (no lexical or vector match of its own) is
   * returned; default true. A store whose search must return only matches sets it false: context
   * then only reorders matches.
   */
  includeContextOnly?: boolean;
  /**
   * A document that asks a question lends the one after it (its answer, see
   * `LexicalSource.answersOf`) this many times the share it lends any neighbour; 1 turns it off.
   * Default 2 (chosen on LoCoMo and LongMemEval development sets together).
   */
  questionLend?: number;
  /**
   * A document of at most this many terms between two of another label (another speaker's reply:
   * "Wow! Where was that?") does not part them: they lend each other as neighbours do, so what
   * someone says after such a reply is found by what they said before it. Needs the source's
   * `lengthsOf` and `labelsOf`; 0 turns it off. Default 20 (chosen on LoCoMo and LongMemEval
   * development sets together).
   */
  bridgeLength?: number;
  /**
   * When the best document (after neighbour context, among those whose speaker the source knows,
   * see `LexicalSource.speakersOf`) was said by someone the query names — every term of their name
   * is a query term — what everyone else said is weighed by this factor (0..1): a question about
   * Ann is about what Ann said, unless its words point elsewhere. Applied after neighbour context,
   * so another speaker's question still lends its answer. 1 turns it off. Default 0.7 (chosen on
   * LoCoMo, whose turns name their speakers; LongMemEval's do not).
   */
  speakerWeight?: number;
  /**
   * Each document of a conversation (see `LexicalSource.groupsOf`) is weighed by this factor (0..1)
   * once for every better-scored document of the same conversation, after neighbour context and
   * `speakerWeight`, so one session's turns do not fill the top. 1 turns it off (the default).
   */
  groupDecay?: number;
  /**
   * The query asks for a list (see `asksForList`): its answers lie in several turns, often in
   * several sessions, so `listNeighbourWeight` and `listSpeakerWeight` replace `neighbourWeight`
   * and `speakerWeight`. Default false.
   */
  listQuery?: boolean;
  /**
   * The query asks for a sum or an order of several things (see `asksForAggregate`: "What is the
   * total cost of …", "What is the order of the museums I visited …"): with `aggregateAsList` it
   * is ranked as a list query (`listQuery`'s weights). Default false.
   */
  aggregateQuery?: boolean;
  /** Whether an `aggregateQuery` is ranked as a list query; false ranks it as any other. Default true. */
  aggregateAsList?: boolean;
  /** `neighbourWeight` of a list query; default 0.3 (chosen on LoCoMo and LongMemEval development sets together). */
  listNeighbourWeight?: number;
  /** `speakerWeight` of a list query; default 0.5 (chosen on LoCoMo). */
  listSpeakerWeight?: number;
  /**
   * Terms of the kinds of thing the query asks for (`categoryTermsOf`: "pottery", "swimming" for
   * "What activities …?"), scored like feedback's expansion terms (none held by more than
   * `feedbackMaxShare` of the documents, when the source can tell) and added at `categoryWeight`.
   * Default none.
   */
  categoryTerms?: readonly string[];
  /**
   * Query terms that name a time relative to the moment of asking ("last", "month", "ago" of "in
   * the last four months": `relativeTimeTerms`), scored apart from the query's other terms at
   * `timeTermWeight`. Default none.
   */
  timeTerms?: readonly string[];
  /**
   * Weight of `timeTerms`' BM25 score against the rest of the query's (0..1): they place the answer
   * in time, and the message that answers says it in words of its own moment ("today"). 1 scores
   * them as any query term (off); a query of time terms alone is scored as it is. Default 0.
   */
  timeTermWeight?: number;
  /** Weight of `categoryTerms`' BM25 score against the query's; 0 turns them off. Default 0.5 (chosen on LoCoMo and LongMemEval development sets together). */
  categoryWeight?: number;
  /** A list query adds this share of its best score to its named speaker's first-person events (`favourEvents`); 0 is off. Default 0.3 (chosen on LoCoMo). */
  eventWeight?: number;
  /**
   * A document whose question terms (and asked kinds) a better document of its conversation all
   * holds is weighed by this factor (0..1; see `demoteRepeats`); 1 turns it off (the default).
   */
  repeatWeight?: number;
  /** `repeatWeight` of a list query; default 0.8 (chosen on LoCoMo and LongMemEval development sets together). */
  listRepeatWeight?: number;
  /**
   * When the query names a speaker of its best `ANSWER_WINDOW` documents (`namedIn`), a document
   * among them that asks a question (the source knows its answer, `LexicalSource.answersOf`) is
   * weighed by this factor (0..1), after neighbour context, so it still lends its answer: "What's
   * your best camping memory?" names what is asked about, its answer tells it (`demoteNonAnswers`).
   * 1 turns it off. Default 0.7 (chosen on LoCoMo; LongMemEval's turns name no speaker).
   */
  askWeight?: number;
  /** `askWeight` of a list query; default 1 (chosen on LoCoMo: a list's answers are seldom asked about). */
  listAskWeight?: number;
  /**
   * Under the same condition, a document of fewer than `shortLength` terms is weighed by this factor
   * (0..1): "Wow! How was it?" tells little. 1 turns it off (the default: `namedLengthNorm` weighs
   * length without a threshold; 0.8 under 15 terms was the default before it).
   */
  shortWeight?: number;
  /** See `shortWeight`; default 15 (chosen on LoCoMo). */
  shortLength?: number;
  /** Under the same condition, a list query's document holding none of the kinds it asks for (`categoryTerms`, as scored) is weighed by this factor (0..1). 1 turns it off; default 0.8. */
  kindlessWeight?: number;
  /** Neighbours are read for at most this many best lexical hits; default 100. */
  neighbourCandidates?: number;
  /** Lexical results kept for fusion (after feedback and context), and asked of the source per pass; default 300. */
  lexicalLimit?: number;
  /** RRF weight of the vector list (the lexical list weighs 1); default 0.3. */
  vectorWeight?: number;
  /** RRF constant; default 60. */
  rrfK?: number;
  /** Results returned, best first (the rest are cut before their provenance is assembled); default all. */
  limit?: number;
  /**
   * Per label (see `LexicalSource.labelsOf`), a factor (0..1) on the lexical score of documents
   * that carry it, applied to every pass before feedback and neighbour context, so a demoted
   * document neither feeds the expansion nor lends its score to its neighbours. Default none.
   */
  labelWeights?: Readonly<Record<string, number>>;
}

/** Each option's value when it is not given (`lengthNorm` stays unset: the index's own). */
export const HYBRID_DEFAULTS: Required<Omit<HybridOptions, "lengthNorm">> & Pick<HybridOptions, "lengthNorm"> = {
  namedLengthNorm: 0.4,
  feedbackDocs: 3,
  feedbackTerms: 5,
  feedbackWeight: 0.2,
  feedbackMaxShare: 0.05,
  neighbourWeight: 0.5,
  contextHalfLength: 60,
  questionLend: 2,
  bridgeLength: 20,
  speakerWeight: 0.7,
  groupDecay: 1,
  listQuery: false,
  aggregateQuery: false,
  aggregateAsList: true,
  listNeighbourWeight: 0.3,
  listSpeakerWeight: 0.5,
  categoryTerms: [],
  categoryWeight: 0.5,
  timeTerms: [],
  timeTermWeight: 0,
  eventWeight: 0.3,
  repeatWeight: 1,
  listRepeatWeight: 0.8,
  askWeight: 0.7,
  listAskWeight: 1,
  shortWeight: 1,
  shortLength: 15,
  kindlessWeight: 0.8,
  includeContextOnly: true,
  neighbourCandidates: 100,
  lexicalLimit: 300,
  vectorWeight: 0.3,
  rrfK: 60,
  limit: Infinity,
  labelWeights: {},
};


/** Throws INVALID_INPUT naming the first option out of its range. */
export function checkHybridOptions(options: typeof HYBRID_DEFAULTS): void {
  for (const name of ["lengthNorm", "namedLengthNorm"] as const) {
    const value = options[name];
    if (value !== undefined && !(value >= 0 && value <= 1)) throw new MemoryGraphError("INVALID_INPUT", `rankHybrid: ${name} must lie in 0..1`, { kind: "user", field: name });
  }
  for (const [label, weight] of Object.entries(options.labelWeights)) {
    if (!(weight >= 0 && weight <= 1)) {
      throw new MemoryGraphError("INVALID_INPUT", `rankHybrid: the weight of label "${label}" must lie in 0..1`, { kind: "user", field: "labelWeights" });
    }
  }
  for (const name of ["groupDecay", "timeTermWeight", "repeatWeight", "listRepeatWeight", "askWeight", "listAskWeight", "shortWeight", "kindlessWeight"] as const) {
    if (!(options[name] <= 1)) throw new MemoryGraphError("INVALID_INPUT", `rankHybrid: ${name} must lie in 0..1`, { kind: "user", field: name });
  }
  if (!(options.speakerWeight <= 1) || !(options.listSpeakerWeight <= 1)) {
    throw new MemoryGraphError("INVALID_INPUT", "rankHybrid: speakerWeight must lie in 0..1", { kind: "user", field: "speakerWeight" });
  }
  for (const [name, value] of Object.entries(options)) {
    if (typeof value === "boolean" || typeof value === "object") continue;
    if (!(value >= 0) || (!Number.isFinite(value) && name !== "limit")) {
      throw new MemoryGraphError("INVALID_INPUT", `rankHybrid: ${name} must be a finite number ≥ 0`, { kind: "user", field: name });
    }
  }
}
