import { emptyCheckpoint, uuid6, type BaseCheckpointSaver, type Checkpoint } from "@langchain/langgraph-checkpoint";

/** Metadata filters of `list()` with how many of the three checkpoints `countListed` writes each matches. */
export const METADATA_FILTER_CASES: [Record<string, unknown>, number][] = [
  [{ user: "u1" }, 2],
  [{ user: "u1", step: 2 }, 1],
  [{ flag: true }, 1],
  [{ nested: { a: 1 } }, 1],
  [{ user: "nobody" }, 0],
];

/** Writes three checkpoints with varied metadata to thread "f", then counts what `list()` gives for `filter`. */
export async function countListed(saver: BaseCheckpointSaver, filter: Record<string, unknown>): Promise<number> {
  const base = { configurable: { thread_id: "f", checkpoint_ns: "" } };
  const meta = [
    { source: "loop", step: 1, parents: {}, user: "u1", flag: false, nested: { a: 2 } },
    { source: "loop", step: 2, parents: {}, user: "u1", flag: true, nested: { a: 1 } },
    { source: "loop", step: 3, parents: {}, user: "u2" },
  ] as const;
  for (const [i, m] of meta.entries()) {
    const checkpoint: Checkpoint = { ...emptyCheckpoint(), id: uuid6(i) };
    await saver.put(base, checkpoint, m, {});
  }
  let n = 0;
  for await (const _ of saver.list(base, { filter })) n += 1;
  return n;
}
