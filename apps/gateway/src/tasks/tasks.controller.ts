import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { Identity, KernelError, KernelErrorCode } from '@app/kernel';
import { SessionTaskRepository } from '@app/store';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { ApiOkEnvelope } from '../http/api-ok.decorator';
import { toInteger } from '../http/query-transforms';
import { Idempotent } from '../idempotency/idempotency.interceptor';

export class TaskIdParamDto {
  @IsDefined()
  @IsString()
  @MaxLength(64)
  taskId!: string;
}

export class TaskListQueryDto {
  @IsOptional()
  @IsString()
  @MaxLength(64)
  task_type?: string;

  @IsOptional()
  @IsString()
  @MaxLength(32)
  status?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  resource_id?: string;

  /** At most 200 (default 50). */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;
}

/** Commit tasks of the calling user (docs/sessions.md "Tasks"); poll on `status`. */
@ApiTags('tasks')
@ApiErrors(400, 401, 404)
@Controller('api/v1/tasks')
export class TasksController {
  constructor(private readonly tasks: SessionTaskRepository) {}

  @Get()
  @ApiOperation({ summary: 'Your tasks, newest first (exact-match filters)' })
  @ApiOkEnvelope('object')
  list(@Caller() c: Identity, @Query() q: TaskListQueryDto) {
    return this.tasks.list(c, { taskType: q.task_type, status: q.status, resourceId: q.resource_id }, q.limit ?? 50);
  }

  @Get(':taskId')
  @ApiOperation({ summary: 'One task: status, result, error' })
  @ApiOkEnvelope('object')
  async get(@Caller() c: Identity, @Param() p: TaskIdParamDto) {
    return (await this.tasks.get(c, p.taskId)) ?? notFound(p.taskId);
  }

  @Post(':taskId/cancel')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel a pending or running commit task (412 once completed or failed; repeats are no-ops)',
  })
  @ApiOkEnvelope('object')
  @ApiErrors(403, 412)
  async cancel(@Caller() c: Identity, @Param() p: TaskIdParamDto) {
    // As in the reference: a ROOT caller (the dev-mode identity) may not cancel tenants' work.
    if (c.role === 'root') throw new KernelError(KernelErrorCode.PermissionDenied, 'ROOT cannot cancel tasks');
    return (await this.tasks.cancel(c, p.taskId)) ?? notFound(p.taskId);
  }
}

function notFound(taskId: string): never {
  throw new KernelError(KernelErrorCode.NotFound, 'Task not found or expired', { resource: taskId, type: 'task' });
}
