export * from "./message-meta.js";
export * from "./window.js";
export * from "./node-memory.js";
export * from "./retention.js";
export * from "./errors.js";
export * from "./thread.js";
