import { CONNECT_TIMEOUT_MS, noAnswer, unreachable, withDeadline } from "../shared/open-checks.js";

/**
 * Fails with STORAGE_UNREACHABLE unless a Postgres connection to `url` is ready (handshake and
 * authentication included) within CONNECT_TIMEOUT_MS. One connection of its own, not a pool's:
 * a pool's connection timeout would also bound the wait for a free client, which turns
 * legitimately wait on under load.
 */
export async function probePostgres(url: string): Promise<void> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on("error", () => undefined); // a late socket error after the deadline has nowhere to go
  const started = Date.now();
  try {
    // The driver's own timeout fires first (it also covers the handshake); this one is a backstop.
    const backstopMs = CONNECT_TIMEOUT_MS + 1000;
    await withDeadline(client.connect(), backstopMs, () => {
      void client.end().catch(() => undefined); // drop the half-open connection
      return noAnswer("Postgres", backstopMs);
    });
  } catch (cause) {
    const timedOut = Date.now() - started >= CONNECT_TIMEOUT_MS;
    throw unreachable("Postgres", "DATABASE_URL", url, timedOut ? noAnswer("Postgres", CONNECT_TIMEOUT_MS, cause) : cause);
  }
  await client.end();
}

