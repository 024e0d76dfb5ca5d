import { Module } from '@nestjs/common';
import { ContextModule } from '../context/context.module';
import { FindModule } from '../find/find.module';
import { SearchController } from './search.controller';

/** The `/search` route: list mode goes to find, context mode to the context pipeline. Exports nothing. */
@Module({ imports: [FindModule, ContextModule], controllers: [SearchController] })
export class SearchModule {}
