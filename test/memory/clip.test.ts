import fc from "fast-check";
import { clip, truncate } from "../../src/memory/clip.js";

/** clip as first written: collapse all of the text, then cut. */
function referenceClip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const room = Math.max(1, max - 1);
  const cut = flat.slice(0, room);
  const space = cut.lastIndexOf(" ");
  const head = space >= room * 0.6 ? cut.slice(0, space) : cut;
  return `${head.replace(/[\s,;:.-]+$/, "")}…`;
}

describe("clip", () => {
  it("gives what collapsing the whole text and cutting it gives, reading only a prefix", () => {
    const unit = fc.constantFrom("a", "word", " ", "\n", "   ", "\t\t", ",", ".", "-", "é", "\u00a0", "😀");
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 400 }), fc.integer({ min: 0, max: 300 }), (units, max) => {
        const text = units.join("");
        expect(clip(text, max)).toBe(referenceClip(text, max));
      }),
      { numRuns: 3000 },
    );
  });

  it("clips a long text with long runs of whitespace", () => {
    const text = `${" ".repeat(5000)}first ${"\n".repeat(3000)}second third`.repeat(10);
    expect(clip(text, 12)).toBe(referenceClip(text, 12));
  });
});

describe("truncate", () => {
  it.each([
    { text: "short", max: 10, out: "short" },
    { text: "exactly ten", max: 11, out: "exactly ten" },
    { text: "a  b\n c and more", max: 6, out: "a  b\n…" },
    { text: "ab😀cd", max: 4, out: "ab…" },
  ])("$text to $max → $out", ({ text, max, out }) => {
    expect(truncate(text, max)).toBe(out);
    expect(truncate(text, max).length).toBeLessThanOrEqual(max);
  });
});
