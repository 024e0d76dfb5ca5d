import { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { isPlainObject } from '@app/kernel';
import { RequestValidationError } from './request-validation.error';
import { toIssues } from './validation-issues';
import { validationOptions } from './validation-options';

/**
 * Validates a raw JSON body against a DTO class exactly as the global ValidationPipe would (same
 * options, same 400 shape). For routes that must look at the raw body first, such as /search
 * deciding between list and context mode. `unknownKeys: 'ignore'` drops keys the DTO does not
 * declare instead of refusing them: the session routes the agent plugins call send extra keys
 * (`wait`, `metadata`, …) that the contract says are ignored.
 */
export async function validateBody<T extends object>(
  cls: Type<T>,
  body: unknown,
  opts: { unknownKeys: 'refuse' | 'ignore' } = { unknownKeys: 'refuse' },
): Promise<T> {
  const input = body === undefined || body === null || body === '' ? {} : body;
  if (!isPlainObject(input)) {
    throw new RequestValidationError([
      {
        loc: ['body'],
        message: 'Input should be a valid dictionary or object to extract fields from',
        type: 'model_attributes_type',
      },
    ]);
  }
  const dto = plainToInstance(cls, input, validationOptions.transformOptions);
  const errors = await validate(dto, {
    whitelist: true,
    forbidNonWhitelisted: opts.unknownKeys === 'refuse',
    validationError: { target: false, value: true },
  });
  if (errors.length) throw new RequestValidationError(toIssues(errors));
  return dto;
}
