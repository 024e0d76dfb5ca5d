import { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { isPlainObject } from '@app/kernel';
import { RequestValidationError } from '../http/request-validation.error';
import { toIssues } from '../http/validation-issues';
import { validationOptions } from '../http/validation-options';

/**
 * Validates a raw JSON body against a DTO class exactly as the global ValidationPipe would (same
 * options, same 400 shape). For routes that must look at the raw body first, such as /search
 * deciding between list and context mode.
 */
export async function validateBody<T extends object>(cls: Type<T>, body: unknown): Promise<T> {
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
    forbidNonWhitelisted: true,
    validationError: { target: false, value: true },
  });
  if (errors.length) throw new RequestValidationError(toIssues(errors));
  return dto;
}
