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

/** Screenshots of the main views, taken by this test so the docs never show an old page (docs/inspector.md). */
const SHOTS = path.resolve("docs", "inspector");
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
    fs.mkdirSync(SHOTS, { recursive: true });
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
    await turn("family", "My sister Priya moved to Pune last year", "f1");
    await turn("family", "Priya moved to Mumbai in March", "f2");
    for (const other of ["u2", "u10", "zoe"]) await api("POST", "/v1/turns", { user_id: other, session_id: "s", message: `Hello from ${other}` });
    await memory.settled();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await memory?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** From the empty page: connect with the key, find u1 by the start of its id in the users list, open it. */
  async function openUser(page: Page, shot?: string): Promise<void> {
    await page.goto(`${base}/inspector`);
    // The empty page guides: what the page is for, and what to do first.
    expect(await page.locator("#guide").textContent()).toContain("Pick a user below");
    await page.getByLabel("API key").fill(KEY);
    await page.getByRole("button", { name: "Connect" }).click();
    await expect.poll(() => page.locator("#users tr").count()).toBe(4);
    await page.getByLabel("User id").fill("u1");
    await page.getByRole("button", { name: "Find", exact: true }).click();
    await expect.poll(() => page.locator("#users tr").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-user-id")).sort())).toEqual(["u1", "u10"]);
    if (shot) await page.screenshot({ path: path.join(SHOTS, shot), fullPage: true });
    await page.getByRole("button", { name: "Open user u1", exact: true }).click();
    await page.locator("#user-view:not([hidden])").waitFor();
    await page.waitForSelector("body[data-ready='true']");
  }

  /** Confirms the page's dialog (the confirmation every change asks for). */
  const confirm = (page: Page, label: "Save" | "Yes, delete") => page.getByRole("dialog").getByRole("button", { name: label }).click();
  /** Raw ids (uuids, message ids) never shown on their own. */
  const RAW_ID = /[0-9a-f]{8}-[0-9a-f]{4}-|\bt[1-4]\b|\bw[12]\b|\bf[12]\b/;

  it("from the empty page: finds a user, finds a fact, reads why a turn saw it, edits it, undoes a delete; the next turn sees each", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const failed: string[] = [];
    page.on("requestfailed", (request) => failed.push(request.url()));
    page.on("request", (request) => {
      if (!request.url().startsWith(base)) failed.push(`external: ${request.url()}`);
    });
    // An unknown user says so, distinct from a user with nothing in a layer.
    await page.goto(`${base}/inspector`);
    await page.getByLabel("API key").fill(KEY);
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByLabel("User id").fill("nobody");
    await page.getByRole("button", { name: "Open this id" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toContain("No user “nobody” in this tenant");

    await openUser(page, "users.png");
    const facts = page.locator("#facts");
    // Find the fact by the search box; its source reads as the message it came from, under its session's title.
    await page.getByLabel("Find a fact").fill("bangkok");
    await expect.poll(() => facts.locator("tr").allTextContents()).toEqual([expect.stringContaining("Bangkok")]);
    const city = facts.locator("tr", { hasText: "Bangkok" });
    expect(await city.textContent()).toContain("“I live in Bangkok” — My name is Anong");
    await page.getByLabel("Find a fact").fill("");

    // "Why?": what the model read from memory for the jazz turn, section by section, as text.
    await page.getByRole("tab", { name: "Sessions" }).click();
    expect(await page.locator("#session-pick option").allTextContents()).toEqual([
      expect.stringContaining("My sister Priya moved to Pune"),
      expect.stringContaining("I want to cancel my order 42"),
      expect.stringContaining("My name is Anong"),
    ]);
    await page.locator("#session-pick").selectOption({ label: (await page.locator("#session-pick option", { hasText: "My name is Anong" }).textContent()) ?? "" });
    const jazz = page.locator("#transcript li", { hasText: "I like jazz" });
    await jazz.getByRole("button", { name: /^What the model read from memory/ }).click();
    const why = page.locator("#turn-context");
    await expect.poll(() => why.textContent()).toContain("What the model read from memory");
    const whyText = (await why.textContent()) ?? "";
    expect(whyText).toMatch(/Facts.*Bangkok.*Important events.*Summaries.*Earlier messages/s);
    expect(whyText).not.toMatch(RAW_ID);
    await page.screenshot({ path: path.join(SHOTS, "why.png"), fullPage: true });
    // Its fact line leads to the fact's row.
    await why.locator(".context-section", { hasText: "Facts" }).getByRole("button", { name: /Bangkok/ }).click();
    expect(await page.getByRole("tab", { name: "Facts" }).getAttribute("aria-selected")).toBe("true");
    expect(await page.evaluate<string | undefined>("document.activeElement?.textContent ?? undefined")).toContain("Bangkok");

    // History open, then edit Bangkok → Chiang Mai: the table and the history follow without a reload.
    await city.getByRole("button", { name: /^History / }).click();
    await city.getByRole("button", { name: /^Edit / }).click();
    await page.getByRole("dialog").getByLabel("Value").fill("Chiang Mai");
    await confirm(page, "Save");
    const edited = facts.locator("tr", { hasText: "Chiang Mai" });
    await edited.waitFor();
    expect(await edited.textContent()).toContain("edited by a person");
    await expect.poll(() => page.locator("#fact-history").textContent()).toMatch(/Bangkok.*Chiang Mai/s);

    // Delete the name: the confirmation has no stray input, and its button looks destructive.
    const byValue = (value: string) => facts.locator("tr", { has: page.locator('td[data-label="Value"]', { hasText: value }) });
    const name = byValue("Anong");
    await name.getByRole("button", { name: /^Delete / }).click();
    expect(await page.locator("#dialog-field").isVisible()).toBe(false);
    const colour = (selector: string) => page.evaluate<string>(`getComputedStyle(document.querySelector("${selector}")).backgroundColor`);
    expect(await colour("#dialog-ok")).not.toBe(await colour("#dialog-cancel"));
    await confirm(page, "Yes, delete");
    await name.waitFor({ state: "detached" });
    // Gone for the model at once, before any undo.
    expect(((await api("GET", "/v1/users/u1/facts?current=true")).body.facts as { value: string }[]).map((f) => f.value)).not.toContain("Anong");
    await page.screenshot({ path: path.join(SHOTS, "facts.png"), fullPage: true });
    await page.locator("#toast").getByRole("button", { name: "Undo" }).click();
    await byValue("Anong").waitFor();

    // Events: filtered by type; search: ranked, with its parts in words and no fused number.
    await page.getByRole("tab", { name: "Events" }).click();
    await page.getByLabel("Type").selectOption("REQUEST");
    await expect.poll(() => page.locator("#events li").allTextContents()).toEqual([expect.stringContaining("cancel my order")]);
    await page.getByLabel("Type").selectOption("");
    await page.getByLabel("Find an event").fill("jazz");
    await page.getByLabel("Find an event").press("Enter");
    await expect.poll(() => page.locator("#events li").allTextContents()).toEqual([expect.stringMatching(/^INFORMATION I like jazz a lot/)]);
    await page.getByRole("tab", { name: "Search" }).click();
    await page.getByLabel("Query").fill("jazz");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect.poll(() => page.locator("#hits li").first().textContent()).toMatch(/^#1.*jazz.*words/);
    expect(await page.locator("#panel-search").textContent()).not.toMatch(/fused/i);
    await page.screenshot({ path: path.join(SHOTS, "search.png"), fullPage: true });

    // Entities: found by what the user calls her; her relations over time, each with the message it came from as text.
    await page.getByRole("tab", { name: "Entities" }).click();
    await expect.poll(() => page.locator("#entities tr").count()).toBeGreaterThan(1);
    await page.getByLabel("Find an entity").fill("sister");
    await expect.poll(() => page.locator("#entities tr").allTextContents()).toEqual([expect.stringMatching(/^Priya.*person.*sister/)]);
    await page.getByRole("button", { name: "Open entity Priya" }).click();
    const entity = page.locator("#entity-detail");
    await expect.poll(() => entity.textContent()).toContain("Relations");
    expect(await page.evaluate<string | undefined>("document.activeElement?.id")).toBe("entity-detail");
    const relation = (triple: RegExp) => entity.locator("li.relation", { hasText: triple });
    expect(await relation(/^the user — sister → Priya/).textContent()).toMatch(/“My sister Priya moved to Pune last year” — My sister Priya/);
    expect(await relation(/^Priya — lives in → Pune/).textContent()).toMatch(/Pune\s+superseded\s+from .* to .*“My sister Priya moved to Pune/);
    expect(await relation(/^Priya — lives in → Mumbai/).textContent()).toMatch(/Mumbai\s+since .*“Priya moved to Mumbai in March”/);
    expect((await entity.textContent()) ?? "").not.toMatch(RAW_ID);
    await page.screenshot({ path: path.join(SHOTS, "entities.png"), fullPage: true });
    // A source leads to its message in its session's transcript; another entity opens from its relation.
    await relation(/^Priya — lives in → Mumbai/).getByRole("button", { name: /Priya moved to Mumbai/ }).click();
    expect(await page.getByRole("tab", { name: "Sessions" }).getAttribute("aria-selected")).toBe("true");
    await expect.poll(() => page.evaluate<string | undefined>("document.activeElement?.textContent ?? undefined")).toContain("Priya moved to Mumbai in March");
    await page.getByRole("tab", { name: "Entities" }).click();
    await entity.getByRole("button", { name: "Open entity Mumbai" }).click();
    await expect.poll(() => entity.locator("h3").textContent()).toBe("Mumbai (place)");
    expect(await relation(/^Priya — lives in → Mumbai/).count()).toBe(1);
    // Removing a relation, once confirmed: the value it had superseded is current again; the entity stays.
    await relation(/^Priya — lives in → Mumbai/).getByRole("button", { name: "Remove the relation: Priya lives in Mumbai" }).click();
    await confirm(page, "Yes, delete");
    await expect.poll(() => relation(/^Priya — lives in → Mumbai/).count()).toBe(0);
    const priya = (await api("GET", "/v1/users/u1/entities/priya")).body as { relations: { type: string; to: string; valid_to: string | null }[] };
    expect(priya.relations.filter((r) => r.type === "lives_in").map((r) => [r.to, r.valid_to])).toEqual([["pune", null]]);
    // Forgetting an entity, once confirmed: gone from the list, the API and every message that named it.
    await entity.getByRole("button", { name: "Forget Mumbai" }).click();
    await confirm(page, "Yes, delete");
    await expect.poll(() => entity.isHidden()).toBe(true);
    expect((await api("GET", "/v1/users/u1/entities/mumbai")).status).toBe(404);
    expect(JSON.stringify((await api("GET", "/v1/users/u1/export")).body)).not.toMatch(/mumbai/i);
    await page.getByLabel("Find an entity").fill("nobody");
    await expect.poll(() => page.locator("#entities").textContent()).toContain("No entity’s name or alias contains “nobody”");
    expect(failed).toEqual([]);
    await page.close();

    // The very next turn reads the edit and the name the undo brought back, and not the old city.
    const next = await turn("trip", "Remind me what you know about me", "t4");
    const known = (next.body.memory_context.text as string).split("## What we know about the user")[1]?.split("\n## ")[0] ?? "";
    expect(known).toContain("location city: Chiang Mai");
    expect(known).toContain("name: Anong");
    expect(known).not.toContain("Bangkok");
  }, 120_000);

  it("on a phone, keyboard first: finds the user and a fact, reads why, no sideways scrolling; tabs by arrow keys", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
    await openUser(page, "phone-users.png");
    await page.getByLabel("Find a fact").fill("jazz");
    await expect.poll(() => page.locator("#facts tr").allTextContents()).toEqual([expect.stringContaining("jazz")]);
    const wide = await page.evaluate<string[]>("[...document.querySelectorAll('*')].filter((n) => n.getBoundingClientRect().right > 391).map((n) => n.tagName + '#' + n.id + '.' + n.className + ' ' + Math.round(n.getBoundingClientRect().right))");
    expect(wide).toEqual([]);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(SHOTS, "phone-facts.png"), fullPage: true });
    await page.getByRole("tab", { name: "Facts" }).focus();
    await page.keyboard.press("ArrowRight");
    expect(await page.getByRole("tab", { name: "Events" }).getAttribute("aria-selected")).toBe("true");
    expect(await page.evaluate<string | undefined>("document.activeElement?.id")).toBe("tab-events");
    await page.keyboard.press("ArrowRight");
    await page.locator("#session-pick").selectOption({ label: (await page.locator("#session-pick option", { hasText: "My name is Anong" }).textContent()) ?? "" });
    await page.locator("#transcript li", { hasText: "I like jazz" }).getByRole("button", { name: /^What the model read/ }).click();
    await expect.poll(() => page.locator("#turn-context").textContent()).toContain("Facts");
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await page.close();
  }, 60_000);
});
