import type { RecallConfig } from './recall-config';

/** Server fuses a context request may spend (expansion 5 s, rewrite 30 s) plus the work between. */
const EXPANSION_DEADLINE_MS = 15000;
const REWRITE_DEADLINE_MS = 45000;
/** The #3534 plugin waited this long, and only for a rewrite. */
const V3534_REWRITE_DEADLINE_MS = 35000;

type DeadlineConfig = Pick<RecallConfig, 'timeoutMs' | 'recallContextTimeoutMs'>;

interface DeadlineBody {
  rewrite?: boolean | 'auto' | null;
  session_id?: string | null;
  query_expansion?: 'off' | 'auto' | null;
}

/**
 * How long to wait for a context request (docs/contract.md#deadlines), or undefined for the caller's own timeout. It
 * follows the stages the body asks the server for: a rewrite may use both fuses, a session with
 * expansion the expansion fuse, a bare retrieval none. `recallContextTimeoutMs` pins it (≥ 1 s).
 * `generation: "3534"` gives the older plugin's rule (only a rewrite extends the deadline).
 */
export function contextRequestTimeoutMs(
  cfg: DeadlineConfig,
  body: DeadlineBody,
  generation: 'main' | '3534' = 'main',
): number | undefined {
  const rewrite = body.rewrite === true || body.rewrite === 'auto';
  if (cfg.recallContextTimeoutMs > 0) return Math.max(1000, cfg.recallContextTimeoutMs);
  if (generation === '3534') return rewrite ? Math.max(cfg.timeoutMs, V3534_REWRITE_DEADLINE_MS) : undefined;
  if (rewrite) return Math.max(cfg.timeoutMs, REWRITE_DEADLINE_MS);
  if (body.session_id && body.query_expansion !== 'off') return Math.max(cfg.timeoutMs, EXPANSION_DEADLINE_MS);
  return undefined;
}
