import { describe, expect, it } from "vitest";
import { memoryNeedOf } from "../../src/rules/memory-need.js";

describe("memoryNeedOf", () => {
  it.each([
    { text: "What is the capital of France?", need: "standalone" },
    { text: "hello", need: "standalone" },
    { text: "Write a haiku about rain", need: "standalone" },
    { text: "Thanks!", need: "standalone" },
    { text: "", need: "standalone" },
    { text: "What is my name?", need: "about_user" },
    { text: "I want a laptop for video editing", need: "about_user" },
    { text: "When is Caroline's birthday party?", need: "about_user" },
    { text: "เบอร์โทรของฉันคืออะไร", need: "about_user" },
    { text: "mera order kab aayega", need: "about_user" },
    { text: "As I said earlier, the blender is broken", need: "refers_back" },
    { text: "Can you explain that again?", need: "refers_back" },
    { text: "What did you recommend last time?", need: "refers_back" },
    { text: "yes please", need: "refers_back" },
    { text: "why?", need: "refers_back" },
    { text: "เมื่อกี้พูดถึงอะไร", need: "refers_back" },
  ])("$text → $need", ({ text, need }) => {
    expect(memoryNeedOf(text)).toBe(need);
  });
});
