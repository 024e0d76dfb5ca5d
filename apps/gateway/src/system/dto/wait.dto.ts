import { IsNumber, IsOptional, Min } from 'class-validator';

/** `POST /system/wait`. In a `*.dto.ts` file so the Swagger plugin documents its fields. */
export class WaitDto {
  /** Seconds to wait (default: MUNINN_WRITE_WAIT_MS), at most MUNINN_WAIT_MAX_S; then 504. */
  @IsOptional()
  @IsNumber()
  @Min(0)
  timeout?: number | null;
}
