import { invalidArgument } from '@app/kernel';

// PostgreSQL's SQLSTATE for a pattern it cannot compile.
const INVALID_REGULAR_EXPRESSION = '2201B';

/**
 * A `.catch` for statements that run a caller's pattern: the kernel's subset check
 * (docs/limits-and-security.md#regex-filters) should leave nothing PostgreSQL refuses, but if a form
 * slips through, the caller gets INVALID_ARGUMENT naming `field` instead of a 500 — and never the
 * database's own error text.
 */
export function refusedPattern(field: string): (err: { code?: string }) => never {
  return (err) => {
    if (err?.code === INVALID_REGULAR_EXPRESSION) {
      throw invalidArgument(
        `${field} is not a pattern the store can run; see docs/limits-and-security.md#regex-filters`,
        { field },
      );
    }
    throw err;
  };
}
