export * from "./window.js";
export * from "./errors.js";
export * from "./values.js";
