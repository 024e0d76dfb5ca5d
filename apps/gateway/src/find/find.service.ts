import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '@app/config';
import { FindJob, FindResult } from '@app/contracts';
import {
  assertFilterWithinLimits,
  buildFilter,
  effectiveLimit,
  Identity,
  invalidArgument,
  isPlainObject,
  pyTruthy,
  parseLevels,
  resolveFindTargets,
  WordCorrection,
} from '@app/kernel';
import { FindClient } from '@app/queue';
import { assertSearchableFilter } from '@app/store';
import type { SearchEnvelope } from '../context/context-search.service';
import { FindRequestDto, SearchListRequestDto } from './dto/find-request.dto';
import { validateBody } from '../http/validate-body';
import { AdmissionService } from '../http/admission.service';

/**
 * `/find` and `/search` list mode: validate, resolve targets and filter, run one `find` job (docs/contract.md#find).
 */
@Injectable()
export class FindService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly finder: FindClient,
    private readonly admission: AdmissionService,
  ) {}

  async find(caller: Identity, body: unknown): Promise<SearchEnvelope> {
    this.boundFilter(body);
    return this.run(caller, await validateBody(FindRequestDto, body), 'search.find');
  }

  /** `/search` in list mode: the same primitive and the same bytes as /find. */
  async list(caller: Identity, body: unknown): Promise<SearchEnvelope> {
    this.boundFilter(body);
    return this.run(caller, await validateBody(SearchListRequestDto, body), 'search.search');
  }

  /** Filter size and depth first: the DTO transform walks nested objects recursively (1,000 levels overflow it). */
  private boundFilter(body: unknown): void {
    if (isPlainObject(body) && body['filter'] !== undefined) {
      assertFilterWithinLimits(body['filter'], this.config.filter);
    }
  }

  private async run(caller: Identity, dto: FindRequestDto, operation: string): Promise<SearchEnvelope> {
    const started = Date.now();
    const filter = buildFilter({
      filter: dto.filter,
      contextType: dto.context_type,
      tags: dto.tags,
      since: dto.since,
      until: dto.until,
      timeField: dto.time_field,
      now: new Date(),
      limits: this.config.filter,
    });
    assertSearchableFilter(filter, new Date(), this.config.filter);
    const targets = resolveFindTargets(caller, dto.target_uri);
    const query = dto.query ?? '';
    if (!query.trim()) throw invalidArgument('Search query or image_url must not be empty.');
    const levels = parseLevels(dto.level);
    const limit = effectiveLimit(dto.limit, dto.node_limit);
    // A find with a large limit runs in its account's large-search lane (docs/limits-and-security.md, "Large
    // searches have a narrower lane"); the wait for its slot is part of the request's deadline.
    const deadline = Date.now() + this.config.queues.requestDeadlineMs;
    const job: FindJob = {
      identity: caller,
      query,
      targets,
      filter,
      levels: levels.length ? levels : null,
      limit,
      scoreThreshold: dto.score_threshold ?? null,
    };
    const { found, lexicalOnly, corrected } = await this.admission.inLargeSearchLane(
      caller,
      limit,
      deadline - Date.now(),
      () => this.call(job, deadline - Date.now()),
    );
    const result: FindResult & { provenance?: unknown } = found;
    if (dto.include_provenance) {
      const hits = [...found.memories, ...found.resources, ...found.skills];
      result.provenance = {
        searched_directories: targets.length ? targets : ['viking://'],
        matched_contexts: hits.map((h) => h.uri),
      };
    }
    const envelope: SearchEnvelope = { status: 'ok', result };
    if (pyTruthy(dto.telemetry))
      envelope.telemetry = {
        id: randomUUID(),
        summary: { operation, duration_ms: Date.now() - started, lexical_only: lexicalOnly, corrected },
      };
    return envelope;
  }

  // A worker-side domain failure arrives already decoded into its KernelError (libs/queue job-failure-decode).
  // The worker's stage times are for context requests' telemetry; they never reach a /find answer. Whether
  // the search went without its query's vector, and which words it read as variants, reach it only in the
  // telemetry summary (`lexical_only`, `corrected`), outside the contract's result. Which hits carry their whole
  // body is for context assembly only (docs/context.md, "Bodies the search carries").
  private async call(
    job: FindJob,
    timeoutMs: number,
  ): Promise<{ found: FindResult; lexicalOnly: boolean; corrected: WordCorrection[] }> {
    const found = await this.finder.call(job, timeoutMs);
    const lexicalOnly = Boolean(found.lexicalOnly);
    const corrected = found.corrected ?? [];
    delete found.stages;
    delete found.lexicalOnly;
    delete found.corrected;
    for (const list of [found.memories, found.resources, found.skills]) for (const hit of list) delete hit.wholeBody;
    return { found, lexicalOnly, corrected };
  }
}
