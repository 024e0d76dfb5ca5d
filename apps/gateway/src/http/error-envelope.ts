/** One entry of `error.details.validation_errors`, shaped like the reference's pydantic errors. */
export interface ValidationIssue {
  loc: (string | number)[];
  message: string;
  type: string;
}

/** The 400 the reference returns for schema failures (nulls dropped, as its handler does). */
export function validationEnvelope(issues: ValidationIssue[]) {
  const first = issues[0];
  const where = first ? first.loc.join('.') : 'body';
  return {
    status: 'error' as const,
    error: {
      code: 'INVALID_ARGUMENT',
      message: `Invalid request parameters: ${where}: ${first?.message ?? 'invalid'}`,
      details: { validation_errors: issues },
    },
  };
}

/** The envelope of a domain error (this handler keeps the null keys, as the reference's does). */
export function errorEnvelope(code: string, message: string, details: Record<string, unknown> = {}) {
  return { status: 'error' as const, result: null, error: { code, message, details }, telemetry: null, profile: null };
}
