import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { Identity, KernelError, KernelErrorCode } from '@app/kernel';
import { SessionTaskRepository } from '@app/store';
import { Caller } from '../auth/caller.decorator';
import { ApiErrors } from '../http/api-errors.decorator';
import { ApiOkEnvelope } from '../http/api-ok.decorator';
import { toInteger } from '../http/query-transforms';

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
    const t = await this.tasks.get(c, p.taskId);
    if (!t)
      throw new KernelError(KernelErrorCode.NotFound, 'Task not found or expired', {
        resource: p.taskId,
        type: 'task',
      });
    return t;
  }
}
