import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { matchKey, parseApiKeys } from "../../src/server/api-keys.js";

describe("API_KEYS", () => {
  it("maps each key (or its sha256 digest) to its tenant", () => {
    const digest = createHash("sha256").update("k2/b+c==", "utf8").digest("hex");
    const keys = parseApiKeys(` acme:k-1.a_b~c , beta:sha256:${digest}`);
    expect(matchKey(keys, "k-1.a_b~c")).toEqual({ tenantId: "acme", keyId: "key-1" });
    expect(matchKey(keys, "k2/b+c==")).toEqual({ tenantId: "beta", keyId: "key-2" });
    expect(matchKey(keys, "k-1")).toBeNull();
  });

  it.each([
    { raw: "acme", detail: "pair 1 is not tenant:key" },
    { raw: "acme:", detail: "pair 1 is not tenant:key" },
    { raw: "a/b:key", detail: "pair 1: tenant: must not contain '/'" },
    { raw: "acme:sha256:abc", detail: "pair 1: sha256: must be followed by 64 hex digits" },
    // A bearer header carries only RFC 6750 tokens: such a key could never be presented.
    { raw: "acme:ok,beta:k#1", detail: "pair 2: a key is letters, digits and - . _ ~ + / (then = padding)" },
    { raw: "acme:k=1", detail: "pair 1: a key is letters, digits and - . _ ~ + / (then = padding)" },
  ])("refuses $raw: $detail", ({ raw, detail }) => {
    expect(() => parseApiKeys(raw)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", field: "API_KEYS", message: `API_KEYS: ${detail}` }));
  });
});
