// The public surface of `@app/client`: the generated typed client and the agent-plugin recall client.
export type * from './generated/openapi';
export { createMuninnClient, identityHeaders, type MuninnClient, type MuninnClientOptions } from './muninn-client';

export { loadRecallConfig, defaultConfigFile, KNOBS, HARNESSES, RecallConfigError } from './recall/recall-config';
export type { RecallConfig, KnobName, Harness, CompressMode, LoadRecallConfigOptions } from './recall/recall-config';
export {
  scaleQuotas,
  buildContextSearchBody,
  buildLegacyRecallBody,
  CODING_WEIGHTS,
  V1_WEIGHTS,
  type TurnInput,
} from './recall/request-bodies';
export { contextRequestTimeoutMs } from './recall/deadline';
export { LegacyMarker, LEGACY_MARKER_FILE, LEGACY_MARKER_TTL_MS } from './recall/legacy-marker';
export {
  compressRecallContext,
  digestCacheKey,
  normalizeCompressed,
  repairDigestUris,
  snapUri,
  buildCompressionPrompt,
  DIGEST_HEADER,
  DIGEST_CACHE_FILE,
  type RunCompressor,
  type CompressOutcome,
} from './recall/local-digest';
export { assembleFromFind, findFallbackLimit, renderElement } from './recall/find-assembly';
export {
  RecallClient,
  looksLikeUnknownField,
  CONTEXT_TAG,
  CONTEXT_HEADER,
  type RecallResult,
  type RecallSource,
} from './recall/recall-client';
