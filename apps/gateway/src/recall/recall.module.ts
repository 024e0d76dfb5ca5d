import { Module } from '@nestjs/common';
import { ContextModule } from '../context/context.module';
import { RecallController } from './recall.controller';

/** The deprecated `/recall` preset over the context pipeline. Exports nothing. */
@Module({ imports: [ContextModule], controllers: [RecallController] })
export class RecallModule {}
