/** The default system prompt (also recorded in architecture.yaml; a test keeps them equal). */
export const DEFAULT_SYSTEM_PROMPT =
  "You are a helpful assistant with memory of this user. Use the memory you are given when it is relevant, say so when you are unsure, and never invent facts about the user.";

/**
 * The embeddings model used when OpenAI (or a compatible server) is configured and no embeddings
 * are given; OPENAI_EMBEDDINGS_MODEL's default (architecture.yaml).
 */
export const DEFAULT_EMBEDDINGS_MODEL = "text-embedding-3-small";

/** A model call's timeout when none is given; OPENAI_TIMEOUT_MS's default. */
export const DEFAULT_MODEL_TIMEOUT_MS = 30_000;
