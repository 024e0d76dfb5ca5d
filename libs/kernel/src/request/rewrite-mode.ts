import { invalidArgument } from '../kernel.error';
import { parseLaxBoolean } from '../text/lax-boolean';

/** Requested digest rewrite: on, off, or on when a query planner is configured. */
export type RewriteMode = boolean | 'auto';

/** `rewrite` (docs/contract.md#context-only-fields): a lax boolean or "auto". */
export function parseRewrite(value: unknown): RewriteMode {
  if (value === undefined || value === null) return false;
  if (value === 'auto') return 'auto';
  const flag = parseLaxBoolean(value);
  if (flag === undefined) throw invalidArgument("rewrite: Input should be a valid boolean or 'auto'");
  return flag;
}
