/** Reads `--name value` pairs (and `--flag`) from argv. */
export function parseArgs(argv: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? "";
    if (!arg.startsWith("--")) continue;
    const [name, inline] = arg.slice(2).split("=", 2) as [string, string | undefined];
    const next = argv[i + 1];
    if (inline !== undefined) out[name] = inline;
    else if (next !== undefined && !next.startsWith("--")) {
      out[name] = next;
      i += 1;
    } else out[name] = "true";
  }
  return out;
}
