import { ValidationIssue } from './error-envelope';

/** Thrown by the global ValidationPipe and hand-written body checks; rendered as the reference's 400. */
export class RequestValidationError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues[0]?.message ?? 'Invalid request parameters');
    this.name = 'RequestValidationError';
  }
}
