import { createHash, timingSafeEqual } from "node:crypto";
import { MemoryGraphError } from "../errors.js";
import { validateId } from "../memory/scope.js";

/** One configured key: its tenant and the SHA-256 digest of the key (the key itself is never kept). */
export interface KeyEntry {
  tenantId: string;
  digest: Buffer;
}

/** What a presented key resolves to: the tenant, and a stable label for rate limiting and logs. */
export interface KeyMatch {
  tenantId: string;
  keyId: string;
}

const HEX_DIGEST = /^[0-9a-f]{64}$/i;
/** A bearer token as RFC 6750 writes it (b64token), which is what Hono's bearer auth reads. */
const TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * Parses `API_KEYS`: comma-separated `tenant:key` pairs, where the key may be written
 * `sha256:<64 hex digits>` (the digest of the key). Throws CONFIG_INVALID naming `API_KEYS` on a
 * malformed pair, an invalid tenant id, or a key that is empty or not a bearer token (RFC 6750).
 * Returns an empty list for an empty value.
 */
export function parseApiKeys(raw: string | undefined): KeyEntry[] {
  if (!raw || raw.trim() === "") return [];
  return raw
    .split(",")
    .map((pair) => pair.trim())
    .filter((pair) => pair.length > 0)
    .map((pair, index) => {
      const colon = pair.indexOf(":");
      const tenant = colon > 0 ? pair.slice(0, colon).trim() : "";
      const key = colon > 0 ? pair.slice(colon + 1).trim() : "";
      if (!tenant || !key) throw configError(`pair ${index + 1} is not tenant:key`);
      try {
        validateId("tenant", tenant);
      } catch (error) {
        throw configError(`pair ${index + 1}: ${(error as Error).message}`);
      }
      if (key.startsWith("sha256:")) {
        const hex = key.slice("sha256:".length);
        if (!HEX_DIGEST.test(hex)) throw configError(`pair ${index + 1}: sha256: must be followed by 64 hex digits`);
        return { tenantId: tenant, digest: Buffer.from(hex, "hex") };
      }
      // A key no `Authorization: Bearer` header can carry would never match: refused here, at start-up.
      if (!TOKEN.test(key)) throw configError(`pair ${index + 1}: a key is letters, digits and - . _ ~ + / (then = padding)`);
      return { tenantId: tenant, digest: sha256(key) };
    });
}

/**
 * Finds the tenant of a presented key. The presented key is hashed and compared with every
 * configured digest in constant time (no early exit), so timing says nothing about which
 * digest came close. Returns null for an unknown key.
 */
export function matchKey(entries: readonly KeyEntry[], presented: string): KeyMatch | null {
  const digest = sha256(presented);
  let match: KeyMatch | null = null;
  entries.forEach((entry, index) => {
    if (timingSafeEqual(entry.digest, digest) && match === null) match = { tenantId: entry.tenantId, keyId: `key-${index + 1}` };
  });
  return match;
}

function configError(detail: string): MemoryGraphError {
  return new MemoryGraphError("CONFIG_INVALID", `API_KEYS: ${detail}`, { kind: "system", field: "API_KEYS" });
}
