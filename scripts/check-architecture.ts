/**
 * Enforces the `layers` of architecture.yaml: every relative import (static, `import type`,
 * `export … from`, dynamic `import()` and `import("…")` types) must go to the importer's own layer
 * or to one it lists in `may_import`, and no file may reach itself through imports.
 *
 *   npx tsx scripts/check-architecture.ts [root]
 *
 * Exits 1 with one line per problem, or prints one OK line with counts.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { parse } from "yaml";
import { findCycles } from "./import-cycles.js";

export { findCycles } from "./import-cycles.js";

export interface LayerRule {
  paths: string[];
  may_import: string[];
}

export interface Architecture {
  /** Folders (relative to the project root) whose .ts files are scanned. */
  roots: string[];
  layers: Record<string, LayerRule>;
}

/** One relative import found in a source file. Paths are project-relative with "/" separators. */
export interface ImportEdge {
  from: string;
  /** The resolved target (a .ts file when one exists, else the best guess). */
  to: string;
  specifier: string;
  line: number;
  typeOnly: boolean;
  /** False when the target file is not on disk (a broken or mid-edit import). */
  resolved: boolean;
}

export interface LayerViolation {
  edge: ImportEdge;
  fromLayer: string | null;
  toLayer: string | null;
  reason: "forbidden" | "unmapped-source" | "unmapped-target";
}

export interface CheckReport {
  files: string[];
  edges: ImportEdge[];
  violations: LayerViolation[];
  /** Each cycle as a file path that starts and ends at the same file. */
  cycles: string[][];
  unresolved: ImportEdge[];
}

const toPosix = (p: string): string => p.split(path.sep).join("/");

/** Reads and validates architecture.yaml. Throws naming the first malformed entry. */
export function loadArchitecture(file: string): Architecture {
  const doc = parse(readFileSync(file, "utf8")) as unknown;
  if (!isRecord(doc) || !isRecord(doc.layers)) throw new Error(`${file}: no "layers" map`);
  const layers: Record<string, LayerRule> = {};
  for (const [name, rule] of Object.entries(doc.layers)) {
    if (!isRecord(rule) || !isStringArray(rule.paths) || !isStringArray(rule.may_import ?? [])) {
      throw new Error(`${file}: layers.${name} needs "paths" and "may_import" string lists`);
    }
    layers[name] = { paths: rule.paths, may_import: (rule.may_import ?? []) as string[] };
  }
  for (const [name, rule] of Object.entries(layers)) {
    for (const target of rule.may_import) {
      if (!(target in layers)) throw new Error(`${file}: layers.${name}.may_import names unknown layer "${target}"`);
    }
  }
  const check = isRecord(doc.check) ? doc.check : {};
  const roots = isStringArray(check.roots) ? check.roots : ["src"];
  return { roots, layers };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

/** Every .ts file (not .d.ts) under `dir`, project-relative, sorted. Missing folders give none. */
export function listSourceFiles(rootDir: string, dirs: string[]): string[] {
  const found: string[] = [];
  const walk = (abs: string): void => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const child = path.join(abs, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && /\.(c|m)?ts$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
        found.push(toPosix(path.relative(rootDir, child)));
      }
    }
  };
  for (const dir of dirs) {
    const abs = path.join(rootDir, dir);
    if (existsSync(abs) && statSync(abs).isDirectory()) walk(abs);
  }
  return found.sort();
}

interface RawImport {
  specifier: string;
  pos: number;
  typeOnly: boolean;
}

/** The module specifiers a source text imports or re-exports, with whether each is type-only. */
export function extractImports(fileName: string, text: string): { specifier: string; line: number; typeOnly: boolean }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: RawImport[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      found.push({ specifier: node.moduleSpecifier.text, pos: node.getStart(source), typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const typeOnly =
        node.isTypeOnly ||
        (clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly));
      found.push({ specifier: node.moduleSpecifier.text, pos: node.getStart(source), typeOnly });
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      found.push({ specifier: node.moduleReference.expression.text, pos: node.getStart(source), typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) found.push({ specifier: arg.text, pos: node.getStart(source), typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, pos: node.getStart(source), typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.map((f) => ({
    specifier: f.specifier,
    line: source.getLineAndCharacterOfPosition(f.pos).line + 1,
    typeOnly: f.typeOnly,
  }));
}

/** Resolves a relative specifier the way NodeNext does for our sources (`./x.js` → `./x.ts`). */
export function resolveRelative(rootDir: string, fromFile: string, specifier: string): { file: string; exists: boolean } {
  const base = path.join(rootDir, path.dirname(fromFile), specifier);
  const candidates = [
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.mjs$/, ".mts"),
    base.replace(/\.cjs$/, ".cts"),
    base,
    `${base}.ts`,
    path.join(base, "index.ts"),
  ];
  for (const candidate of candidates) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return { file: toPosix(path.relative(rootDir, candidate)), exists: true };
  }
  return { file: toPosix(path.relative(rootDir, candidates[0] ?? base)), exists: false };
}

/** Every relative import of every scanned file. */
export function collectImports(rootDir: string, files: string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(rootDir, file), "utf8");
    for (const found of extractImports(file, text)) {
      if (!found.specifier.startsWith(".")) continue;
      const target = resolveRelative(rootDir, file, found.specifier);
      edges.push({ from: file, to: target.file, specifier: found.specifier, line: found.line, typeOnly: found.typeOnly, resolved: target.exists });
    }
  }
  return edges;
}

function patternMatches(pattern: string, file: string): boolean {
  if (pattern.endsWith("/**")) return file.startsWith(pattern.slice(0, -2));
  return file === pattern;
}

/** The layer of a project-relative file: the one whose most specific path matches, or null. */
export function layerOf(arch: Architecture, file: string): string | null {
  let best: { name: string; length: number } | null = null;
  for (const [name, rule] of Object.entries(arch.layers)) {
    for (const pattern of rule.paths) {
      if (patternMatches(pattern, file) && (best === null || pattern.length > best.length)) best = { name, length: pattern.length };
    }
  }
  return best?.name ?? null;
}

/** Imports that break the layer rules, including files that belong to no layer. */
export function checkLayers(arch: Architecture, edges: ImportEdge[]): LayerViolation[] {
  const violations: LayerViolation[] = [];
  for (const edge of edges) {
    const fromLayer = layerOf(arch, edge.from);
    const toLayer = layerOf(arch, edge.to);
    if (fromLayer === null) violations.push({ edge, fromLayer, toLayer, reason: "unmapped-source" });
    else if (toLayer === null) violations.push({ edge, fromLayer, toLayer, reason: "unmapped-target" });
    else if (fromLayer !== toLayer && !(arch.layers[fromLayer]?.may_import ?? []).includes(toLayer)) {
      violations.push({ edge, fromLayer, toLayer, reason: "forbidden" });
    }
  }
  return violations;
}

/** Runs the whole check on a project root with the architecture file at `architectureFile`. */
export function checkArchitecture(rootDir: string, architectureFile = path.join(rootDir, "architecture.yaml")): CheckReport {
  const arch = loadArchitecture(architectureFile);
  const files = listSourceFiles(rootDir, arch.roots);
  const edges = collectImports(rootDir, files);
  return {
    files,
    edges,
    violations: checkLayers(arch, edges),
    cycles: findCycles(edges.filter((e) => e.resolved)),
    unresolved: edges.filter((e) => !e.resolved),
  };
}

/** The report as printable lines: problems first; the last line is the summary. */
export function formatReport(report: CheckReport): { ok: boolean; lines: string[] } {
  const lines: string[] = [];
  for (const { edge, fromLayer, toLayer, reason } of report.violations) {
    const where = `${edge.from}:${edge.line}`;
    const kind = edge.typeOnly ? "import type" : "import";
    if (reason === "forbidden") lines.push(`${where}: ${fromLayer} → ${toLayer} is not allowed (${kind} "${edge.specifier}")`);
    else if (reason === "unmapped-source") lines.push(`${where}: ${edge.from} is in no layer of architecture.yaml`);
    else lines.push(`${where}: ${fromLayer} → ${edge.to}, which is in no layer of architecture.yaml`);
  }
  for (const cycle of report.cycles) lines.push(`import cycle: ${cycle.join(" → ")}`);
  for (const edge of report.unresolved) lines.push(`warning: ${edge.from}:${edge.line}: "${edge.specifier}" does not resolve to a file`);
  const ok = report.violations.length === 0 && report.cycles.length === 0;
  const counts = `${report.files.length} files, ${report.edges.length} internal imports`;
  lines.push(
    ok
      ? `architecture OK: ${counts}, no layer violations, no import cycles`
      : `architecture FAILED: ${report.violations.length} layer violation(s), ${report.cycles.length} import cycle(s) (${counts})`,
  );
  return { ok, lines };
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  const rootDir = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
  const { ok, lines } = formatReport(checkArchitecture(rootDir));
  const out = ok ? process.stdout : process.stderr;
  for (const line of lines) out.write(`${line}\n`);
  process.exitCode = ok ? 0 : 1;
}
