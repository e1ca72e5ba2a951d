export { createServer, OPEN_TENANT, type ServerOptions } from "./create-server.js";
export { parseApiKeys, type KeyEntry } from "./api-keys.js";
export { openApiDocument } from "./openapi.js";
