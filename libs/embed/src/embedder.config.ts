export type EmbedderProvider = 'local' | 'openai';

/** Typed embedder settings; built by `libs/config` from the environment, never read from it here. */
export interface EmbedderConfig {
  provider: EmbedderProvider;
  /** OpenAI-compatible API root, e.g. `https://api.openai.com/v1` (the client appends `/embeddings`). */
  baseUrl?: string;
  apiKey?: string;
  /** Remote model name; ignored by `local`. */
  model?: string;
  /** Vector dimension. `local`: hashing width (default 512). `openai`: sent as `dimensions` when set. */
  dim?: number;
  timeoutMs?: number;
  maxRetries?: number;
  batchSize?: number;
}
