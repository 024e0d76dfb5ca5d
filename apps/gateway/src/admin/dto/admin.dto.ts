import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

const ID = /^(?!\.{1,2}$)(?!.*@.*@)[a-zA-Z0-9_.@-]+$/;
/** Longest seed; the shortest is configuration (MUNINN_KEY_SEED_MIN_LENGTH). */
const MAX_SEED = 256;
const ID_MESSAGE = 'must match ^[a-zA-Z0-9_.@-]+$, not be "." or "..", and hold at most one "@"';

export class CreateAccountDto {
  /** The new account's id. */
  @IsDefined()
  @IsString()
  @Matches(ID, { message: `account_id ${ID_MESSAGE}` })
  @Matches(/^[^_]/, { message: 'account_id must not start with "_"' })
  account_id!: string;

  /** The first user of the account, created with role admin. */
  @IsDefined()
  @IsString()
  @Matches(ID, { message: `admin_user_id ${ID_MESSAGE}` })
  admin_user_id!: string;

  /**
   * Derive the key's secret from this seed instead of random bytes (reproducible provisioning): an
   * HMAC under the server secret over account, user and seed. At least MUNINN_KEY_SEED_MIN_LENGTH
   * (default 16) characters.
   */
  @ApiPropertyOptional({ maxLength: MAX_SEED })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_SEED)
  seed?: string;
}

export class CreateUserDto {
  @IsDefined()
  @IsString()
  @Matches(ID, { message: `user_id ${ID_MESSAGE}` })
  user_id!: string;

  @ApiProperty({ enum: ['user', 'admin'], default: 'user' })
  @IsOptional()
  @IsIn(['user', 'admin'], { message: 'Account user role must be user or admin.' })
  role?: 'user' | 'admin';

  /** See CreateAccountDto.seed. */
  @ApiPropertyOptional({ maxLength: MAX_SEED })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_SEED)
  seed?: string;
}

export class SetRoleDto {
  @ApiProperty({ enum: ['user', 'admin'] })
  @IsDefined()
  @IsIn(['user', 'admin'], { message: 'role must be user or admin' })
  role!: 'user' | 'admin';
}

export class RotateKeyDto {
  /** See CreateAccountDto.seed. */
  @ApiPropertyOptional({ maxLength: MAX_SEED })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_SEED)
  seed?: string;
}
