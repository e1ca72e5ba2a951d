import { decodeLabel } from "../../src/memory/namespaces.js";

/** Reads the session id back out of a transcript namespace (tests only: the service never needs to). */
export function sessionIdOfTranscript(namespace: readonly string[]): string | undefined {
  const label = namespace[3] === "sessions" ? namespace[4] : undefined;
  return label === undefined ? undefined : decodeLabel(label);
}
