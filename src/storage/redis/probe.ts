import { CONNECT_TIMEOUT_MS, unreachable } from "../shared/open-checks.js";

/** Fails with STORAGE_UNREACHABLE unless Redis at `url` answers within CONNECT_TIMEOUT_MS. */
export async function probeRedis(url: string): Promise<void> {
  const { connectRedis } = await import("./connect.js");
  const client = await connectRedis(url, { timeoutMs: CONNECT_TIMEOUT_MS }).catch((error: unknown) => {
    throw unreachable("Redis", "REDIS_URL", url, (error as { cause?: unknown }).cause ?? error);
  });
  client.destroy();
}
