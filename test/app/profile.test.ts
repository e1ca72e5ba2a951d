import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { optionsFromEnv } from "../../src/app/options-from-env.js";
import { loadEnv } from "../../src/config.js";
import { profileOf } from "../../src/memory/profile.js";
import { testServer } from "../server/helpers.js";
import { scope } from "../support/deps.js";
import { RecordingChatModel } from "../support/models.js";

/** A deployment's profile schema: the fact keys extraction keeps, checked and shown as one block. */

const PROFILE = z.object({
  name: z.string().min(1).describe("the user's name"),
  "location.city": z.string().describe("where the user lives"),
  phone: z.string().regex(/^\+?[\d -]{7,}$/),
  age: z.number().int().min(0).max(150),
});
const JSON_PROFILE = {
  type: "object",
  properties: { name: { type: "string", description: "the user's name" }, "location.city": { type: "string" }, age: { type: "integer", minimum: 0 } },
};

const graphs: MemoryGraph[] = [];
afterEach(async () => {
  await Promise.all(graphs.splice(0).map((graph) => graph.close()));
});

describe("profileOf", () => {
  it.each([
    { from: "zod", schema: PROFILE },
    { from: "JSON Schema", schema: JSON_PROFILE },
  ])("keeps only the profile's keys with values its schema accepts ($from)", ({ schema }) => {
    const profile = profileOf(schema);
    expect(profile.keys.slice(0, 2)).toEqual(["name", "location.city"]);
    expect(profile.prompt).toMatch(/^name: the user's name; location\.city/);
    const kept = profile.fit([
      { key: "Name", value: "Anong" },
      { key: "email", value: "anong@example.com" },
      { key: "age", value: "41" },
      { key: "age", value: "forty" },
    ]);
    expect(kept).toEqual([
      { key: "name", value: "Anong" },
      { key: "age", value: "41" },
    ]);
  });

  it("refuses a schema that is not an object with properties: CONFIG_INVALID", () => {
    expect(() => profileOf({ type: "string" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", field: "profile" }));
    expect(() => profileOf(z.object({}))).toThrow(/no properties/);
  });
});

describe("a graph with a profile", () => {
  it("offline: keeps the profile's facts only, shown as one User profile block", async () => {
    const graph = await createMemoryGraph({ backend: "memory", chatModel: null, profile: PROFILE, logger: false });
    graphs.push(graph);
    await graph.runTurn({ ...scope, message: "My name is Anong, my email is anong@example.com and I live in Chiang Mai" });
    const facts = (await graph.userMemory(scope)).facts.map((f) => f.key).sort();
    expect(facts).toEqual(["location.city", "name"]);
    const next = await graph.runTurn({ ...scope, sessionId: "s2", message: "What is my name?" });
    expect(next.memoryContext.text).toMatch(/^## User profile\n- name: Anong\n- location city: Chiang Mai/);
  });

  it("asks the model for exactly the profile's keys and checks its values", async () => {
    const classifier = new RecordingChatModel([
      JSON.stringify({ type: "INFORMATION", importance: 0.8, intent: "share_details", attributeUpdates: ["name:Anong", "email:anong@example.com", "phone:call me"] }),
    ]);
    const graph = await createMemoryGraph({ backend: "memory", chatModel: null, classifierModel: classifier, profile: JSON_PROFILE, logger: false });
    graphs.push(graph);
    await graph.runTurn({ ...scope, message: "I'm Anong, anong@example.com" });
    await graph.settled(); // the result does not wait for a model.s classification
    const asked = classifier.prompts[0]?.map((m) => m.text).join("\n") ?? "";
    expect(asked).toContain("attributeUpdates keys: only these, exactly as written (leave out any other fact): name: the user's name; location.city; age");
    expect((await graph.userMemory(scope)).facts.map((f) => `${f.key}=${f.value}`)).toEqual(["name=Anong"]);
  });

  it("over HTTP, from the JSON file PROFILE_SCHEMA_PATH names", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-profile-"));
    const file = path.join(dir, "profile.json");
    fs.writeFileSync(file, JSON.stringify(JSON_PROFILE));
    const { profile } = optionsFromEnv(loadEnv({ PROFILE_SCHEMA_PATH: file }));
    const server = await testServer({ profile });
    try {
      await server.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "s1", message: "My name is Anong and my phone is 555-0100" } });
      const res = await server.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "s2", message: "What is my name?" } });
      const body = (await res.json()) as { memory_context: { text: string } };
      expect(body.memory_context.text).toMatch(/^## User profile\n- name: Anong\n\n## /);
      expect(body.memory_context.text).not.toMatch(/^- phone/m);
    } finally {
      await server.close();
    }
    fs.writeFileSync(file, "{ not json");
    expect(() => optionsFromEnv(loadEnv({ PROFILE_SCHEMA_PATH: file }))).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", field: "PROFILE_SCHEMA_PATH" }));
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
