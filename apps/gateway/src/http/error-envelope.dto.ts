import { ApiProperty } from '@nestjs/swagger';

export class ErrorInfoDto {
  @ApiProperty({ example: 'INVALID_ARGUMENT' })
  code!: string;

  @ApiProperty({ example: 'Invalid request parameters: body.uri: Field required' })
  message!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { validation_errors: [{ loc: ['body', 'uri'], message: 'Field required', type: 'missing' }] },
  })
  details!: Record<string, unknown>;
}

/** Every error response: `{"status":"error","error":{code,message,details}}`. */
export class ErrorEnvelopeDto {
  @ApiProperty({ enum: ['error'] })
  status!: 'error';

  @ApiProperty({ type: ErrorInfoDto })
  error!: ErrorInfoDto;
}
