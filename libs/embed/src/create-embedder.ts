import { EmbedError, EmbedErrorCode } from './embed.error';
import { EmbedderConfig } from './embedder.config';
import { Embedder } from './embedder.port';
import { HashingEmbedder } from './hashing-embedder';
import { OpenAIEmbedder } from './openai-embedder';

/** Builds the configured embedder; `local` needs nothing else and never touches the network. */
export function createEmbedder(config: EmbedderConfig): Embedder {
  switch (config.provider) {
    case 'local':
      return new HashingEmbedder({ dim: config.dim });
    case 'openai':
      return new OpenAIEmbedder({
        baseUrl: config.baseUrl ?? '',
        apiKey: config.apiKey,
        model: config.model ?? '',
        dim: config.dim,
        timeoutMs: config.timeoutMs,
        maxRetries: config.maxRetries,
        batchSize: config.batchSize,
      });
    default:
      throw new EmbedError(EmbedErrorCode.InvalidConfig, `unknown embedder provider ${String(config.provider)}`, false);
  }
}
