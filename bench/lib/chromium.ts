import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** Where Debian puts Chromium (scripts/ensure-chromium.sh installs it); CHROMIUM_PATH overrides. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter((p): p is string => Boolean(p));
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error("no Chromium found: run `bash scripts/ensure-chromium.sh` (apt-get install chromium) or set CHROMIUM_PATH");
  return found;
}

/** Headless Chromium, offline-friendly: no background networking, updates, sync or first-run UI. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"],
  });
}
