import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { checkArchitecture, extractImports, findCycles, formatReport } from "../scripts/check-architecture.js";
import { envSchema } from "../src/config.js";
import { DEFAULT_SYSTEM_PROMPT } from "../src/app/defaults.js";
import { DEFAULT_LIMITS } from "../src/memory/limits.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const architecture = parse(readFileSync(path.join(root, "architecture.yaml"), "utf8")) as {
  system_prompt: string;
  limits: unknown;
  env: Record<string, { default: unknown; description: string }>;
};

describe("the real tree", () => {
  it("keeps the layer rules of architecture.yaml and has no import cycles", () => {
    const { ok, lines } = formatReport(checkArchitecture(root));
    expect(lines.filter((line) => !line.startsWith("warning:")), lines.join("\n")).toHaveLength(1);
    expect(ok).toBe(true);
  });
});

describe("the checker", () => {
  let dir: string;

  const write = (file: string, text: string): void => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "arch-check-"));
    write(
      "architecture.yaml",
      [
        "layers:",
        "  shared: { paths: [src/errors.ts], may_import: [] }",
        "  low: { paths: [src/low/**], may_import: [shared] }",
        "  high: { paths: [src/high/**], may_import: [shared, low] }",
      ].join("\n"),
    );
    write("src/errors.ts", "export class E extends Error {}\n");
    write("src/low/a.ts", 'import { E } from "../errors.js";\nexport const a = new E();\n');
    write("src/high/b.ts", 'import { a } from "../low/a.js";\nexport const b = a;\n');
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("passes a tree that keeps the rules", () => {
    const report = checkArchitecture(dir);
    expect(report.violations).toEqual([]);
    expect(report.cycles).toEqual([]);
    expect(report.edges).toHaveLength(2);
    expect(formatReport(report).ok).toBe(true);
  });

  it("reports a lower layer importing a higher one, with file, line and layers", () => {
    write("src/low/c.ts", '// a comment\nimport type { b } from "../high/b.js";\nexport type C = typeof b;\n');
    const report = checkArchitecture(dir);
    expect(report.violations).toHaveLength(1);
    expect(report.violations[0]).toMatchObject({
      fromLayer: "low",
      toLayer: "high",
      reason: "forbidden",
      edge: { from: "src/low/c.ts", to: "src/high/b.ts", line: 2, typeOnly: true },
    });
    const { ok, lines } = formatReport(report);
    expect(ok).toBe(false);
    expect(lines[0]).toContain("src/low/c.ts:2: low → high");
  });

  it("reports a dynamic import and a re-export against the rules", () => {
    write("src/errors.ts", 'export class E extends Error {}\nexport { a } from "./low/a.js";\nexport const lazy = () => import("./high/b.js");\n');
    const report = checkArchitecture(dir);
    expect(report.violations.map((v) => [v.edge.line, v.toLayer])).toEqual([
      [2, "low"],
      [3, "high"],
    ]);
  });

  it("reports a file that belongs to no layer", () => {
    write("src/stray.ts", 'import { a } from "./low/a.js";\nexport const s = a;\n');
    expect(checkArchitecture(dir).violations).toMatchObject([{ reason: "unmapped-source", edge: { from: "src/stray.ts" } }]);
  });

  it("reports an import cycle with its path", () => {
    write("src/low/a.ts", 'import { d } from "./d.js";\nexport const a = 1;\nexport const ad = d;\n');
    write("src/low/d.ts", 'import { a } from "./a.js";\nexport const d = a;\n');
    const report = checkArchitecture(dir);
    expect(report.violations).toEqual([]);
    expect(report.cycles).toEqual([["src/low/a.ts", "src/low/d.ts", "src/low/a.ts"]]);
    const { ok, lines } = formatReport(report);
    expect(ok).toBe(false);
    expect(lines).toContain("import cycle: src/low/a.ts → src/low/d.ts → src/low/a.ts");
  });

  it("finds every distinct cycle in a tangle, and self-imports", () => {
    const edges = [
      { from: "a", to: "b" },
      { from: "b", to: "a" },
      { from: "b", to: "c" },
      { from: "c", to: "a" },
      { from: "d", to: "d" },
      { from: "e", to: "a" },
    ];
    expect(findCycles(edges)).toEqual([
      ["a", "b", "a"],
      ["a", "b", "c", "a"],
      ["d", "d"],
    ]);
  });

  it("reads every kind of import statement", () => {
    const text = [
      'import x from "./x.js";',
      'import type { Y } from "./y.js";',
      'import { type Z } from "./z.js";',
      'export * from "./w.js";',
      'export type { V } from "./v.js";',
      'import "./side.js";',
      'const m = await import("./dyn.js");',
      'type T = import("./t.js").T;',
      'import { readFileSync } from "node:fs";',
    ].join("\n");
    expect(extractImports("f.ts", text).map((i) => [i.specifier, i.line, i.typeOnly])).toEqual([
      ["./x.js", 1, false],
      ["./y.js", 2, true],
      ["./z.js", 3, true],
      ["./w.js", 4, false],
      ["./v.js", 5, true],
      ["./side.js", 6, false],
      ["./dyn.js", 7, false],
      ["./t.js", 8, true],
      ["node:fs", 9, false],
    ]);
  });
});

describe("architecture.yaml agrees with the code", () => {
  it("lists exactly the variables of envSchema", () => {
    expect(Object.keys(architecture.env).sort()).toEqual(Object.keys(envSchema.shape).sort());
  });

  it("gives each variable the schema's default (null when it has none) and a description", () => {
    const defaults = envSchema.parse({}) as Record<string, unknown>;
    for (const [name, entry] of Object.entries(architecture.env)) {
      expect(entry.default, name).toEqual(defaults[name] ?? null);
      expect(typeof entry.description, name).toBe("string");
      expect(entry.description.length, name).toBeGreaterThan(0);
    }
  });

  it("records the default system prompt", () => {
    expect(architecture.system_prompt).toBe(DEFAULT_SYSTEM_PROMPT);
  });

  it("records the default limits", () => {
    expect(architecture.limits).toEqual(DEFAULT_LIMITS);
  });
});
