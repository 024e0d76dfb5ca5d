/**
 * How a worker reports a domain failure through a queue: BullMQ keeps only a failed job's message, so
 * the error code travels as its prefix (`INVALID_ARGUMENT: filter.field 'x' is not searchable`).
 */
export function jobFailureMessage(code: string, message: string): string {
  return `${code}: ${message}`;
}

/** The code and message of a failure written by {@link jobFailureMessage}, or null for any other error. */
export function parseJobFailure(message: string): { code: string; message: string } | null {
  const m = /^([A-Z][A-Z_]+): ([\s\S]*)$/.exec(message);
  return m ? { code: m[1], message: m[2] } : null;
}
