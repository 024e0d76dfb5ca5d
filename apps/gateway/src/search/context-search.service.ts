import { Injectable } from '@nestjs/common';
import { contextOnlyFieldsPresent, Identity, KernelError, KernelErrorCode, modeMismatchMessage } from '@app/kernel';
import { RequestValidationError } from '../http/request-validation.error';

/** The whole success body of `/search`: the route answers raw so `telemetry` can sit beside `result` (§3.4). */
export interface SearchEnvelope {
  status: 'ok';
  result: unknown;
  telemetry?: unknown;
}

/**
 * `/search` with `mode="context"` (contract §3). The search controller sends it every body that is in
 * context mode or carries a context-only field; list-mode bodies never reach it.
 */
@Injectable()
export class ContextSearchService {
  async search(_caller: Identity, body: Record<string, unknown>): Promise<SearchEnvelope> {
    if ((body['mode'] ?? 'list') !== 'context') {
      // §3.2 rule 1: a model-level validation error, so loc ["body"] and pydantic's "Value error, " prefix.
      const message = `Value error, ${modeMismatchMessage(contextOnlyFieldsPresent(body))}`;
      throw new RequestValidationError([{ loc: ['body'], message, type: 'value_error' }]);
    }
    throw new KernelError(KernelErrorCode.Unavailable, 'context mode is not available yet');
  }
}
