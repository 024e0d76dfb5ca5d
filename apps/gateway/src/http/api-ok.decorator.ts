import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';

type ResultType = Type<unknown> | [Type<unknown>] | 'string' | 'object' | ['string'];

/** Documents the success envelope `{"status":"ok","result":<T>}` of a route. */
export function ApiOkEnvelope(result: ResultType) {
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
        properties: { status: { type: 'string', enum: ['ok'] }, result: schema },
      },
    }),
  );
}
