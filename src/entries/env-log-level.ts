import { logLevelFromEnv } from "../config.js";
import { setLogLevel } from "../logger.js";

// A library user sets our log level as the service's operator does: LOG_LEVEL (silent for none).
// Evaluated once, when the first entry of the package is imported; setLogLevel/setLogger override it.
const level = logLevelFromEnv();
if (level) setLogLevel(level);
