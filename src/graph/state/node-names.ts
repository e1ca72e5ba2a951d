/** The graph's node ids, as the mission names them. */
export const NODE = {
  ingestPrompt: "ingest_prompt",
  recall: "recall",
  classifyEvent: "classify_event",
  callModel: "call_model",
  buildCandidate: "build_candidate",
  summarize: "summarize",
} as const;

export type NodeId = (typeof NODE)[keyof typeof NODE];
