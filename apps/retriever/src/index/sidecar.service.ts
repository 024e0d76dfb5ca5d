import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { SidecarStatus } from '@app/contracts';
import { directorySidecars, searchText, StageTimer } from '@app/kernel';
import { Embedder } from '@app/embed';
import { redisErrors, SidecarClient, sidecarKey } from '@app/queue';
import { NodeIndexRepository, SidecarClaim } from '@app/store';
import { baseNameWords, embeddingText, INDEX_EMBEDDER, isCollection, parentDirectory } from './index-text';

/** Children a summary is built from: the overview has room for a few hundred one-line entries at most. */
const SUMMARY_CHILDREN = 400;
/**
 * How long the count of a large directory's children is reused. Counting touches every child, so a
 * busy directory of ten thousand files is counted at most this often, not at every refresh; a
 * refresh that reused the count schedules the one that counts again (docs/architecture.md#write-path).
 */
const RECOUNT_MS = 5_000;
/** Ancestors refreshed within one job; a deeper chain goes on in a follow-up job. */
const INLINE_LEVELS = 16;

/**
 * Directory summaries (`.abstract.md` / `.overview.md` sidecars), refreshed at most once per
 * directory per interval however many children change: a refresh asked for within the interval of
 * the previous one is coalesced into one deferred `sidecar` job. Each refresh reads a bounded number
 * of children; a changed abstract moves the refresh one level up. See docs/architecture.md#write-path.
 */
@Injectable()
export class SidecarService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: NodeIndexRepository,
    private readonly sidecars: SidecarClient,
    @Inject(INDEX_EMBEDDER) private readonly embedder: Embedder,
  ) {}

  /**
   * Refreshes `uri`'s summary (at once when `force`d, else unless it was refreshed moments ago), then
   * each ancestor whose listing changed. Returns what became of `uri`'s own summary. Directories in
   * `done` were refreshed earlier in the same job and are not refreshed again. `timer` gets the parts
   * (`sidecar_claim`, `sidecar_read`, `sidecar_text`, `sidecar_embed`, `sidecar_store`, `sidecar_schedule`).
   */
  async refresh(
    accountId: string,
    uri: string,
    force: boolean,
    done = new Set<string>(),
    timer = new StageTimer(() => 0),
  ): Promise<SidecarStatus> {
    let first: SidecarStatus = 'skipped';
    let dir: string | null = uri;
    for (let level = 0; dir; level++) {
      if (done.has(dir)) {
        if (level === 0) first = 'complete';
        break;
      }
      if (level === INLINE_LEVELS) {
        await timer.time('sidecar_schedule', () => this.schedule(accountId, dir as string, 0));
        break;
      }
      const at: string = dir;
      const claim = await timer.time('sidecar_claim', () =>
        this.repo.claimSidecar(accountId, at, this.config.indexing.sidecarIntervalMs, force && level === 0),
      );
      if (claim.state === 'missing') break;
      if (claim.state === 'deferred') {
        // Already due before this claim: the refresh that will clear the mark has not claimed yet, so
        // it reads the children after this job's write; its job needs no second enqueue.
        if (!claim.scheduled) await timer.time('sidecar_schedule', () => this.schedule(accountId, at, claim.delayMs));
        if (level === 0) first = 'deferred';
        break;
      }
      const abstractChanged = await this.recompute(accountId, dir, claim, timer);
      done.add(dir);
      if (level === 0) first = 'complete';
      if (!abstractChanged) break;
      dir = parentDirectory(dir);
    }
    return first;
  }

  /** Recomputes and stores one directory's summary; true when its abstract (what its parent lists) changed. */
  private async recompute(
    accountId: string,
    uri: string,
    claim: Extract<SidecarClaim, { state: 'claimed' }>,
    timer: StageTimer,
  ): Promise<boolean> {
    // These directories gather several users (viking://user) or several peers ({u}/peers), whose
    // views differ: a summary of their children would leak one view into another. No sidecars.
    if (isCollection(uri)) {
      if (claim.indexed && claim.abstract === '' && claim.overview === '') return false;
      await this.repo.storeSidecar(accountId, uri, claim.claim, {
        abstract: '',
        overview: '',
        searchText: '',
        embedding: null,
        embedderId: null,
      });
      return claim.abstract !== '';
    }
    const { children, total, recountInMs } = await timer.time('sidecar_read', () =>
      this.repo.sidecarInputs(accountId, uri, SUMMARY_CHILDREN, RECOUNT_MS),
    );
    if (recountInMs !== null) await timer.time('sidecar_schedule', () => this.schedule(accountId, uri, recountInMs));
    const s = timer.timeSync('sidecar_text', () => directorySidecars(uri, children, total));
    const fresh = claim.indexed && claim.embedderId === this.embedder.id;
    if (fresh && claim.abstract === s.abstract && claim.overview === s.overview) return false;
    const [embedding] = await timer.time('sidecar_embed', () =>
      this.embedder.embed([embeddingText(uri, `${s.abstract}\n${s.overview}`)]),
    );
    const stored = await timer.time('sidecar_store', () =>
      this.repo.storeSidecar(accountId, uri, claim.claim, {
        abstract: s.abstract,
        overview: s.overview,
        searchText: searchText(baseNameWords(uri), s.abstract, s.overview),
        embedding,
        embedderId: this.embedder.id,
      }),
    );
    // A later claim took over: that refresh reads newer children and carries the change upwards.
    return stored && claim.abstract !== s.abstract;
  }

  /**
   * Schedules a coalesced refresh. The store already holds the directory's due mark (or the refresh
   * was asked for by a job that will be retried), so a lost enqueue is repaired by the relay.
   */
  private async schedule(accountId: string, uri: string, delayMs: number): Promise<void> {
    if (delayMs === 0) await this.repo.markSidecarDue(accountId, uri);
    try {
      await this.sidecars.enqueue({ accountId, uri }, { coalesceKey: sidecarKey(accountId, uri), delayMs });
    } catch (err) {
      // Rate-limited: during an outage every index job would log here otherwise.
      redisErrors.error('sidecar refresh left to the relay', err);
    }
  }
}
