import { ValidationPipeOptions } from '@nestjs/common';
import { RequestValidationError } from './request-validation.error';
import { toIssues } from './validation-issues';

/** The one ValidationPipe configuration: unknown fields rejected, one error shape. */
export const validationOptions: ValidationPipeOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  transformOptions: { enableImplicitConversion: false },
  validationError: { target: false, value: true },
  exceptionFactory: (errors) => new RequestValidationError(toIssues(errors)),
};
