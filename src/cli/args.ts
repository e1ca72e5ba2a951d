import { parseArgs, type ParseArgsConfig } from "node:util";
import { MemoryGraphError, messageOf } from "../errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The values of single-valued flags: a string, `true` for a boolean flag, absent when not given. */
export type Flags<O extends Options> = { [K in keyof O]?: O[K]["type"] extends "boolean" ? boolean : string };

/**
 * Reads the flags of a command strictly (node's `util.parseArgs`): an unknown flag, a flag
 * missing its value or a stray argument throws USAGE rather than being ignored — a mistyped
 * `--usr u1` must not quietly run as the default user.
 */
export function parseFlags<const O extends Options>(argv: readonly string[], options: O): Flags<O> {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new MemoryGraphError("USAGE", messageOf(error), { kind: "user" });
  }
}

/**
 * `parseFlags` for an entry point: on a mistake prints it and `usage` to stderr and exits 2;
 * `--help` (or `-h`) prints `usage` and exits 0.
 */
export function flagsOrExit<const O extends Options>(argv: readonly string[], options: O, usage: string): Flags<O> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parseFlags(argv, options);
  } catch (error) {
    console.error(`${messageOf(error)}\n${usage}`);
    process.exit(2);
  }
}
