import {
  assertSearchModeFields,
  buildFilter,
  canonicalizeExcludeUris,
  CONTEXT_DEFAULTS,
  defaultContextLimit,
  effectiveLimit,
  FilterLimits,
  foldRecallRequest,
  Identity,
  ignoredFields,
  KernelError,
  KernelErrorCode,
  normalizePenalties,
  parseRewrite,
  Purpose,
  pyTruthy,
  resolveQuotas,
  validateDetailField,
  validateQuotasField,
} from '@app/kernel';
import { assertSearchableFilter } from '@app/store';
import { validateBody } from '../http/validate-body';
import { RequestValidationError } from '../http/request-validation.error';
import { ContextParams } from './context-params';
import { ContextSearchRequestDto, RecallRequestDto } from './dto/context-request.dto';

/**
 * `/search` with `mode="context"`: schema, then cross-field rules, then resolution (docs/contract.md#context-request).
 * Defaults are the kernel's `CONTEXT_DEFAULTS`, the same values the schema documents.
 */
export async function parseSearchContext(
  body: unknown,
  caller: Identity,
  now: Date,
  limits?: FilterLimits,
): Promise<ContextParams> {
  const value = given(await validateBody(ContextSearchRequestDto, body));
  modelRule(() => {
    assertSearchModeFields(value);
    validateQuotasField(value['quotas']);
    validateDetailField(value['detail']);
  });
  const maxTokens = (value['max_tokens'] as number | null | undefined) ?? CONTEXT_DEFAULTS.maxTokens;
  const nodeLimit = value['node_limit'] as number | null | undefined;
  const limitGiven = value['limit'] !== undefined || (nodeLimit !== undefined && nodeLimit !== null);
  const quotas = resolveQuotas(
    value['quotas'] === undefined ? null : value['quotas'],
    (value['purpose'] as Purpose | null) ?? null,
  );
  return {
    query: (value['query'] as string | undefined) ?? '',
    sessionId: nonEmpty(value['session_id']),
    ...(limitGiven || quotas ? {} : { primary: effectiveLimit(undefined, undefined) }),
    limit: limitGiven
      ? effectiveLimit(value['limit'] as number | undefined, nodeLimit)
      : defaultContextLimit(maxTokens),
    scoreThreshold: (value['score_threshold'] as number | null | undefined) ?? null,
    filter: foldFilter(value, now, limits),
    quotas,
    purpose: (value['purpose'] as Purpose | null | undefined) ?? null,
    detail: value['detail'] ?? null,
    maxTokens,
    dedupTurns: (value['dedup_turns'] as number | null | undefined) ?? CONTEXT_DEFAULTS.dedupTurns,
    excludeUris: canonicalizeExcludeUris((value['exclude_uris'] as string[] | null | undefined) ?? [], caller.userId),
    peerScope: (value['peer_scope'] as 'actor' | 'all' | null | undefined) ?? CONTEXT_DEFAULTS.peerScope,
    penalties: normalizePenalties(value['other_peer_penalty'] ?? null),
    rewrite: parseRewrite(value['rewrite']),
    rewriteMaxBullets:
      (value['rewrite_max_bullets'] as number | null | undefined) ?? CONTEXT_DEFAULTS.rewriteMaxBullets,
    queryExpansion: (value['query_expansion'] as 'off' | 'auto' | null | undefined) ?? CONTEXT_DEFAULTS.queryExpansion,
    render: true,
    telemetry: pyTruthy(value['telemetry']),
    explain: value['explain'] === true,
    ignored: ignoredFields(value),
  };
}

/** `/recall` (docs/contract.md#recall-preset): its own schema, then the v1 folding rules onto a context request. */
export async function parseRecall(body: unknown, caller: Identity): Promise<ContextParams> {
  const value = given(await validateBody(RecallRequestDto, body));
  modelRule(() => {
    validateQuotasField(value['quotas']);
    validateDetailField(value['detail']);
  });
  const f = foldRecallRequest(value);
  return {
    query: f.query,
    sessionId: f.sessionId,
    limit: f.limit,
    scoreThreshold: f.scoreThreshold,
    filter: null,
    quotas: resolveQuotas(f.quotas, f.purpose),
    purpose: f.purpose,
    detail: f.detail,
    maxTokens: f.maxTokens,
    dedupTurns: f.dedupTurns,
    excludeUris: canonicalizeExcludeUris(f.excludeUris, caller.userId),
    peerScope: f.peerScope,
    penalties: normalizePenalties(f.otherPeerPenalty),
    rewrite: f.rewrite,
    rewriteMaxBullets: f.rewriteMaxBullets,
    queryExpansion: f.queryExpansion,
    render: f.render,
    telemetry: pyTruthy(value['telemetry']),
    aliasesUsed: f.aliasesUsed,
  };
}

/**
 * The request filter folded like list mode's, and refused (400) like list mode's before any fan-out
 * (docs/contract.md#error-policy).
 */
function foldFilter(value: Record<string, unknown>, now: Date, limits: FilterLimits | undefined) {
  const filter = buildFilter({
    filter: value['filter'] ?? null,
    contextType: value['context_type'] ?? null,
    tags: value['tags'] ?? null,
    since: (value['since'] as string | null | undefined) ?? null,
    until: (value['until'] as string | null | undefined) ?? null,
    timeField: (value['time_field'] as string | null | undefined) ?? null,
    now,
    limits,
  });
  assertSearchableFilter(filter, now, limits);
  return filter;
}

/** Model-level rules answer like pydantic's model validators: loc ["body"], "Value error, …". */
function modelRule(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    if (err instanceof KernelError && err.code === KernelErrorCode.InvalidArgument) {
      throw new RequestValidationError([
        { loc: ['body'], message: `Value error, ${err.message}`, type: 'value_error' },
      ]);
    }
    throw err;
  }
}

/** The validated body as a record of the keys the request sent (the parsers' presence rules read it). */
function given(dto: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(dto).filter(([, v]) => v !== undefined));
}

function nonEmpty(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}
