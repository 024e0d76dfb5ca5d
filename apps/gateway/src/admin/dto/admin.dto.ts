import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsString, Matches } from 'class-validator';

const ID = /^(?!\.{1,2}$)(?!.*@.*@)[a-zA-Z0-9_.@-]+$/;
const ID_MESSAGE = 'must match ^[a-zA-Z0-9_.@-]+$, not be "." or "..", and hold at most one "@"';

export class CreateAccountDto {
  /** The new account's id. */
  @IsDefined() @IsString() @Matches(ID, { message: `account_id ${ID_MESSAGE}` }) @Matches(/^[^_]/, { message: 'account_id must not start with "_"' })
  account_id!: string;

  /** The first user of the account, created with role admin. */
  @IsDefined() @IsString() @Matches(ID, { message: `admin_user_id ${ID_MESSAGE}` })
  admin_user_id!: string;

  /** Derive the key's secret from this seed instead of random bytes (reproducible provisioning). */
  @IsOptional() @IsString()
  seed?: string;
}

export class CreateUserDto {
  @IsDefined() @IsString() @Matches(ID, { message: `user_id ${ID_MESSAGE}` })
  user_id!: string;

  @ApiProperty({ enum: ['user', 'admin'], default: 'user' })
  @IsOptional() @IsIn(['user', 'admin'], { message: 'Account user role must be user or admin.' })
  role?: 'user' | 'admin';

  @IsOptional() @IsString()
  seed?: string;
}

export class SetRoleDto {
  @ApiProperty({ enum: ['user', 'admin'] })
  @IsDefined() @IsIn(['user', 'admin'], { message: 'role must be user or admin' })
  role!: 'user' | 'admin';
}

export class RotateKeyDto {
  @IsOptional() @IsString()
  seed?: string;
}
