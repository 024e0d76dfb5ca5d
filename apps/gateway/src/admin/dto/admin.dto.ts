import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { Transform } from 'class-transformer';
import { ACCOUNT_LIMITS, AccountLimitName, ACCOUNTS_PAGE, AUDIT_PAGE, SUSPENSION_REASON_MAX_CHARS } from '@app/kernel';
import { toInteger } from '../../http/query-transforms';

/** An account or user id. */
export const ACCOUNT_ID = /^(?!\.{1,2}$)(?!.*@.*@)[a-zA-Z0-9_.@-]+$/;
const ID = ACCOUNT_ID;
/** Longest seed; the shortest is configuration (MUNINN_KEY_SEED_MIN_LENGTH). */
const MAX_SEED = 256;
export const ACCOUNT_ID_MESSAGE = 'must match ^[a-zA-Z0-9_.@-]+$, not be "." or "..", and hold at most one "@"';

export class CreateAccountDto {
  /** The new account's id. */
  @IsDefined()
  @IsString()
  @Matches(ID, { message: `account_id ${ACCOUNT_ID_MESSAGE}` })
  @Matches(/^[^_]/, { message: 'account_id must not start with "_"' })
  account_id!: string;

  /** The first user of the account, created with role admin. */
  @IsDefined()
  @IsString()
  @Matches(ID, { message: `admin_user_id ${ACCOUNT_ID_MESSAGE}` })
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
  @Matches(ID, { message: `user_id ${ACCOUNT_ID_MESSAGE}` })
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

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description:
      'Seconds the key in use until now keeps working, so agents can move to the new one (default 0: it stops at once; at most MUNINN_KEY_ROTATION_GRACE_MAX_S). A key an earlier rotation kept stops at once.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  previous_key_valid_s?: number;
}

/** One limit's schema and validation, from its bounds in the kernel's table. */
const limit = (name: AccountLimitName, description: string) => {
  const { min, max, variable } = ACCOUNT_LIMITS[name];
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      nullable: true,
      minimum: min,
      maximum: max,
      description: `${description}; absent or null: the deployment's ${variable}`,
    }),
    IsOptional(),
    IsInt({ message: `${name} must be an integer` }),
    Min(min, { message: `${name} must be at least ${min}` }),
    Max(max, { message: `${name} must be at most ${max}` }),
  );
};

/**
 * An account's own limits (docs/limits-and-security.md, "Per-account limits"). The body replaces the
 * account's values as a whole: a limit left out or null takes the deployment's value again.
 */
export class AccountLimitsDto {
  @limit('requests_per_minute', 'Requests per minute of the whole account')
  requests_per_minute?: number | null;

  @limit('model_tokens_per_day', 'Model tokens (extraction, query expansion, digest) per UTC day; 0: no budget')
  model_tokens_per_day?: number | null;

  @limit('max_nodes', 'Files and directories the account may hold')
  max_nodes?: number | null;

  @limit('max_content_bytes', 'UTF-8 bytes of content the account may hold')
  max_content_bytes?: number | null;

  @limit('max_sessions', 'Sessions the account may hold')
  max_sessions?: number | null;

  @limit('max_users', 'Users (each with a key) the account may register, its first admin included')
  max_users?: number | null;

  @limit('max_pending_index', 'Files written and not yet indexed before writes are 429; 0: unbounded')
  max_pending_index?: number | null;

  @limit('max_pending_commits', 'Commits awaiting extraction before commits are 429; 0: unbounded')
  max_pending_commits?: number | null;

  @limit('max_inflight', "Requests of the account running at once on each gateway; more wait in the account's line")
  max_inflight?: number | null;

  @limit('max_scans', 'Greps and globs of the account running at once on each gateway')
  max_scans?: number | null;

  @limit(
    'max_large_searches',
    'Searches asking for more candidates than MUNINN_LARGE_SEARCH_CANDIDATES running at once on each gateway',
  )
  max_large_searches?: number | null;

  @limit('max_large_bodies', 'Requests with a body over MUNINN_LARGE_BODY_BYTES running at once on each gateway')
  max_large_bodies?: number | null;
}

/** A page's size in a query: optional, 1 to `page.max`, `page.default` when absent. */
const pageLimit = (page: { max: number; default: number }) =>
  applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: page.max, default: page.default }),
    IsOptional(),
    Transform(toInteger),
    IsInt(),
    Min(1),
    Max(page.max),
  );

/** A page of the accounts, in id order (keyset paging: the previous page's last `account_id` as `after`). */
export class AccountsQueryDto {
  /** Accounts per page: at most 1000 (default 1000). */
  @pageLimit(ACCOUNTS_PAGE)
  limit?: number;

  /** Only accounts whose id sorts after this one: the previous page's last `account_id` (at most MUNINN_ID_MAX_CHARS). */
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  after?: string;
}

/** A page of an account's audit trail, newest first (docs/limits-and-security.md, "Audit trail"). */
export class AuditQueryDto {
  /** Events per page: at most 500 (default 50). */
  @pageLimit(AUDIT_PAGE)
  limit?: number;

  /** Only events older than this event id: the previous page's `next_before`. */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  before?: number;
}

/**
 * Suspends or resumes an account (docs/limits-and-security.md, "Suspending an account"): while it is
 * suspended every key of the account is refused (403, the reason in the message); its data is kept.
 */
export class AccountSuspensionDto {
  /** true: suspend (again: the reason is replaced, the time kept); false: resume. */
  @IsDefined()
  @IsBoolean({ message: 'suspended must be true or false' })
  suspended!: boolean;

  /** Shown to the account's callers in every refusal; only with `suspended: true`. */
  @ApiPropertyOptional({ maxLength: SUSPENSION_REASON_MAX_CHARS })
  @IsOptional()
  @IsString()
  @MaxLength(SUSPENSION_REASON_MAX_CHARS, {
    message: `reason must be at most ${SUSPENSION_REASON_MAX_CHARS} characters`,
  })
  reason?: string;
}
