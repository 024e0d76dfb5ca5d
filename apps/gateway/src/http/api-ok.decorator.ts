import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';

type ResultType = Type<unknown> | [Type<unknown>] | 'string' | 'object' | ['string'];

/** The envelope `telemetry` of a route whose body may ask for it (TelemetryInterceptor). */
const TELEMETRY_SCHEMA = {
  type: 'object',
  description: 'Only when the body set `telemetry`.',
  required: ['id', 'summary'],
  properties: {
    id: { type: 'string' },
    summary: {
      type: 'object',
      required: ['operation', 'status', 'duration_ms'],
      properties: { operation: { type: 'string' }, status: { type: 'string' }, duration_ms: { type: 'number' } },
    },
  },
};

/** Documents the success envelope `{"status":"ok","result":<T>[,"telemetry":{…}]}` of a route. */
export function ApiOkEnvelope(result: ResultType, o: { telemetry?: boolean } = {}) {
  const item = (t: Type<unknown> | 'string') => (t === 'string' ? { type: 'string' } : { $ref: getSchemaPath(t) });
  const schema = Array.isArray(result)
    ? { type: 'array', items: item(result[0] as Type<unknown> | 'string') }
    : result === 'object'
      ? { type: 'object', additionalProperties: true }
      : item(result);
  const models = (Array.isArray(result) ? result : [result]).filter((t): t is Type<unknown> => typeof t === 'function');
  return applyDecorators(
    ApiExtraModels(...models),
    ApiOkResponse({
      schema: {
        type: 'object',
        required: ['status', 'result'],
        properties: {
          status: { type: 'string', enum: ['ok'] },
          result: schema,
          ...(o.telemetry ? { telemetry: TELEMETRY_SCHEMA } : {}),
        },
      },
    }),
  );
}
