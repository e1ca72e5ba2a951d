export * from "./window.js";
export * from "./node-memory.js";
export * from "./errors.js";
export * from "./values.js";
