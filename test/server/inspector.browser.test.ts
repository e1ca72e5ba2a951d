import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import { createServer } from "../../src/server/create-server.js";
import { launchChromium } from "../../bench/lib/chromium.js";

setLogLevel("silent");

/** Screenshots of the main views, kept as test artifacts (git-ignored). */
const ARTIFACTS = path.resolve("artifacts", "inspector");
const KEY = "inspector-key";
const TENANT = "acme";

describe("the memory inspector in a real browser", () => {
  let dir: string;
  let memory: MemoryGraph;
  let server: ServerType;
  let base: string;
  let browser: Browser;

  const api = async (method: string, requestPath: string, body?: unknown) => {
    const res = await fetch(`${base}${requestPath}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are walked as plain JSON
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const turn = (sessionId: string, message: string, messageId: string) => api("POST", "/v1/turns", { user_id: "u1", session_id: sessionId, message, message_id: messageId });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-inspector-"));
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    memory = await createMemoryGraph({ backend: "sqlite", sqlitePath: path.join(dir, "m.db"), chatModel: null, classifierModel: null, summaryModel: null, limits: { summaryInterval: 2 } });
    const app = createServer({ memory, apiKeys: `${TENANT}:${KEY}` });
    server = await new Promise<ServerType>((resolve) => {
      const started = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(started));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await turn("trip", "My name is Anong", "t1");
    await turn("trip", "I live in Bangkok", "t2");
    await turn("trip", "I like jazz a lot", "t3");
    await turn("work", "I want to cancel my order 42 now", "w1");
    await turn("work", "The quarterly report is due on Friday", "w2");
    await memory.settled();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await memory?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function openUser(page: Page): Promise<void> {
    await page.goto(`${base}/inspector`);
    await page.getByLabel("API key").fill(KEY);
    await page.getByLabel("User id").fill("u1");
    await page.getByRole("button", { name: "Open" }).click();
    await page.waitForSelector("body[data-ready='true']");
  }

  /** Confirms the page's dialog (the confirmation every change asks for). */
  const confirm = (page: Page, label: "Save" | "Yes, delete") => page.getByRole("dialog").getByRole("button", { name: label }).click();

  it("finds a fact, edits it, pins it, deletes another, deletes an event, forgets a session; the API and the next turn see each", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const failed: string[] = [];
    page.on("requestfailed", (request) => failed.push(request.url()));
    page.on("request", (request) => {
      if (!request.url().startsWith(base)) failed.push(`external: ${request.url()}`);
    });
    await openUser(page);
    const facts = page.locator("#facts");
    await expect.poll(() => facts.locator("tr").allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining("Bangkok")]));

    // Edit: Bangkok → Chiang Mai, through the dialog.
    const city = facts.locator("tr", { hasText: "Bangkok" });
    await city.getByRole("button", { name: /^Edit / }).click();
    await page.getByRole("dialog").getByLabel("Value").fill("Chiang Mai");
    await confirm(page, "Save");
    const edited = facts.locator("tr", { hasText: "Chiang Mai" });
    await edited.waitFor();
    expect(await edited.textContent()).toContain("edit");

    // Pin it.
    await edited.getByRole("button", { name: /^Pin / }).click();
    await edited.getByText("pinned").waitFor();

    // Its history shows both versions.
    await edited.getByRole("button", { name: /^History / }).click();
    await expect.poll(() => page.locator("#fact-history").textContent()).toContain("Bangkok");

    // Delete another fact (the name), confirmed.
    const name = facts.locator("tr", { hasText: "Anong" });
    await name.getByRole("button", { name: /^Delete / }).click();
    await confirm(page, "Yes, delete");
    await name.waitFor({ state: "detached" });
    await page.screenshot({ path: path.join(ARTIFACTS, "facts.png"), fullPage: true });

    // Events: delete the cancellation.
    await page.getByRole("tab", { name: "Events" }).click();
    const cancel = page.locator("#events li", { hasText: "cancel my order" });
    await cancel.waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, "events.png"), fullPage: true });
    await cancel.getByRole("button", { name: /^Delete / }).click();
    await confirm(page, "Yes, delete");
    await cancel.waitFor({ state: "detached" });

    // Sessions: the transcript, what a turn's memory context held, then forget the work session.
    await page.getByRole("tab", { name: "Sessions" }).click();
    await page.getByLabel("Session", { exact: true }).selectOption("trip");
    const jazz = page.locator("#transcript li", { hasText: "I like jazz" });
    await jazz.getByRole("button", { name: /^What the memory context/ }).click();
    await expect.poll(() => page.locator("#turn-context").textContent()).toContain("What the model saw from memory");
    await page.screenshot({ path: path.join(ARTIFACTS, "sessions.png"), fullPage: true });
    await page.getByLabel("Session", { exact: true }).selectOption("work");
    await page.locator("#transcript li", { hasText: "quarterly report" }).waitFor();
    await page.getByRole("button", { name: "Forget this session" }).click();
    await confirm(page, "Yes, delete");
    await expect.poll(() => page.locator("#session-pick option").allTextContents()).toEqual(["trip"]);

    // Search, with every score part.
    await page.getByRole("tab", { name: "Search" }).click();
    await page.getByLabel("Query").fill("jazz");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => page.locator("#hits tr").first().textContent()).toContain("jazz");
    await page.screenshot({ path: path.join(ARTIFACTS, "search.png"), fullPage: true });
    expect(failed).toEqual([]);
    await page.close();

    // Through the API: the edit, the pin, both deletes and the forgotten session took effect.
    const current = (await api("GET", "/v1/users/u1/facts?current=true")).body.facts as { key: string; value: string; pinned?: boolean; id: string }[];
    const chiangMai = current.find((fact) => fact.value === "Chiang Mai");
    expect(chiangMai).toMatchObject({ pinned: true, source: "edit" });
    expect(current.some((fact) => fact.value === "Anong" || fact.value === "Bangkok")).toBe(false);
    expect((await api("GET", "/v1/users/u1/events/w1")).status).toBe(404);
    expect((await api("GET", "/v1/sessions/work/messages?user_id=u1")).status).toBe(404);

    // The very next turn's memory context holds the pinned, edited fact and not what was deleted.
    const next = await turn("trip", "Remind me what you know about me", "t4");
    const facts4 = (next.body.memory_context.text as string).split("## Important")[0];
    expect(facts4).toContain("Chiang Mai");
    expect(facts4).not.toContain("Anong");
    expect(next.body.memory_context.text).not.toContain("quarterly report");
    const seen = await api("GET", "/v1/users/u1/sessions/trip/messages/t4/context");
    expect(seen.body.context.shown.facts[0]).toBe(chiangMai!.id);
  }, 120_000);

  it("reads on a phone, keyboard first: labelled inputs, tabs by arrow keys, no sideways scrolling", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
    await openUser(page);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await page.getByRole("tab", { name: "Facts" }).focus();
    await page.keyboard.press("ArrowRight");
    expect(await page.getByRole("tab", { name: "Events" }).getAttribute("aria-selected")).toBe("true");
    expect(await page.evaluate<string | undefined>("document.activeElement?.id")).toBe("tab-events");
    await page.screenshot({ path: path.join(ARTIFACTS, "phone.png"), fullPage: true });
    await page.close();
  }, 60_000);
});
