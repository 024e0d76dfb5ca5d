import { Module } from '@nestjs/common';
import { TasksController } from './tasks.controller';

/** `/tasks`: status of the calling user's commit tasks, read from the store. Exports nothing. */
@Module({ controllers: [TasksController] })
export class TasksModule {}
