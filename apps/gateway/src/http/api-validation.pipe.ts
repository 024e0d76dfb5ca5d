import { ArgumentMetadata, Injectable, ValidationPipe } from '@nestjs/common';
import { RequestValidationError } from './request-validation.error';
import { validationOptions } from './validation-options';

/** The global ValidationPipe, with issue locations naming where the value came from (body/query/path). */
@Injectable()
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super(validationOptions);
  }

  override async transform(value: unknown, metadata: ArgumentMetadata) {
    const input = metadata.type === 'body' && (value === undefined || value === null || value === '') ? {} : value;
    try {
      return await super.transform(input, metadata);
    } catch (err) {
      if (err instanceof RequestValidationError && metadata.type !== 'body') {
        const where = metadata.type === 'param' ? 'path' : metadata.type;
        throw new RequestValidationError(err.issues.map((i) => ({ ...i, loc: [where, ...i.loc.slice(1)] })));
      }
      throw err;
    }
  }
}
