import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import { SidecarStatus } from '@app/contracts';
import { describedSidecars, directorySidecars, searchText, StageTimer } from '@app/kernel';
import { redisErrors, SidecarClient, sidecarKey } from '@app/queue';
import { NodeIndexRepository, SidecarClaim, TenantBusy } from '@app/store';
import { IndexEmbedding } from './index-embedding';
import { baseNameWords, embeddingText, isCollection, parentDirectory } from './index-text';

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
    private readonly embedding: IndexEmbedding,
  ) {}

  /**
   * A `sidecar` job's refresh of one directory, now. While the account's rows are being removed it throws
   * TenantBusy before any work (its summary could not be stored; the job is put back).
   */
  async refreshJob(accountId: string, uri: string): Promise<SidecarStatus> {
    await this.repo.assertTenantFree(accountId);
    return (await this.refresh(accountId, [uri], new Set([uri]))).get(uri) ?? 'skipped';
  }

  /**
   * Refreshes the summaries of `dirs` (at once for those in `forced`, else unless refreshed moments ago) and
   * then each ancestor whose listing changed, one depth at a time from the deepest: a parent is refreshed
   * after every child this call changes, and once. (Walking each directory's chain up on its own refreshed a
   * shared parent with the first chain and skipped it for the others, whose new abstracts it never listed.)
   * Returns what became of each refreshed directory's summary. `timer` gets the parts (`sidecar_claim`,
   * `sidecar_read`, `sidecar_text`, `sidecar_embed`, `sidecar_store`, `sidecar_schedule`). Without `embed`
   * (the job's files found the embedding provider failing) the summaries are stored without vectors.
   */
  async refresh(
    accountId: string,
    dirs: Iterable<string>,
    forced: ReadonlySet<string>,
    timer = new StageTimer(() => 0),
    embed = true,
  ): Promise<Map<string, SidecarStatus>> {
    // Pending directory → how many levels above a directory of `dirs` it is.
    const pending = new Map<string, number>();
    for (const dir of dirs) pending.set(dir, 0);
    const out = new Map<string, SidecarStatus>();
    while (pending.size > 0) {
      let depth = 0;
      for (const dir of pending.keys()) depth = Math.max(depth, depthOf(dir));
      for (const [dir, level] of [...pending].filter(([d]) => depthOf(d) === depth)) {
        pending.delete(dir);
        if (level === INLINE_LEVELS) {
          await timer.time('sidecar_schedule', () => this.schedule(accountId, dir, 0));
          continue;
        }
        const { status, changed } = await this.refreshOne(accountId, dir, forced.has(dir), timer, embed);
        out.set(dir, status);
        const parent = changed ? parentDirectory(dir) : null;
        if (parent) pending.set(parent, Math.min(pending.get(parent) ?? INLINE_LEVELS, level + 1));
      }
    }
    return out;
  }

  /** One directory: claimed and recomputed, deferred into a coalesced job, or gone. */
  private async refreshOne(
    accountId: string,
    dir: string,
    force: boolean,
    timer: StageTimer,
    embed: boolean,
  ): Promise<{ status: SidecarStatus; changed: boolean }> {
    const claim = await timer.time('sidecar_claim', () =>
      this.repo.claimSidecar(accountId, dir, this.config.indexing.sidecarIntervalMs, force),
    );
    if (claim.state === 'missing') return { status: 'skipped', changed: false };
    if (claim.state === 'deferred') {
      // Already due before this claim: the refresh that will clear the mark has not claimed yet, so
      // it reads the children after this job's write; its job needs no second enqueue.
      if (!claim.scheduled) await timer.time('sidecar_schedule', () => this.schedule(accountId, dir, claim.delayMs));
      return { status: 'deferred', changed: false };
    }
    try {
      return { status: 'complete', changed: await this.recompute(accountId, dir, claim, timer, embed) };
    } catch (err) {
      // Put back while its account's rows are removed (TenantBusy): not a failure, and marking would wait for
      // the removal.
      if (err instanceof TenantBusy) throw err;
      // The claim cleared the directory's due mark: a refresh that fails for good (its job's last attempt, an
      // in-process job that is not retried) would be forgotten, the summary stale or without its vector until
      // a child changed. Marked due again, the relay asks for it after its grace (docs/architecture.md,
      // "Directory summaries").
      await this.repo.markSidecarDue(accountId, dir).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Recomputes and stores one directory's summary; true when its abstract (what its parent lists) changed.
   * A summary whose embedding fails (or is not asked for) is stored without a vector, like a file's, so its
   * new listing is read and searched at once; the failure is thrown after, and a later refresh (the job's
   * retry, the relay) adds the vector.
   */
  private async recompute(
    accountId: string,
    uri: string,
    claim: Extract<SidecarClaim, { state: 'claimed' }>,
    timer: StageTimer,
    embed: boolean,
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
    const s = timer.timeSync('sidecar_text', () =>
      describedSidecars(directorySidecars(uri, children, total), claim.description),
    );
    const same = claim.indexed && claim.abstract === s.abstract && claim.overview === s.overview;
    if (same && (claim.embedderId === this.embedding.id || !embed)) return false;
    let embedding: Float32Array | null = null;
    let failure: unknown = null;
    if (embed) {
      const text = embeddingText(uri, `${s.abstract}\n${s.overview}`);
      embedding = await timer
        .time('sidecar_embed', () => this.embedding.embed(accountId, [text]))
        .then(([v]) => v)
        .catch((err: unknown) => {
          failure = err;
          return null;
        });
    }
    const stored = await timer.time('sidecar_store', () =>
      this.repo.storeSidecar(accountId, uri, claim.claim, {
        abstract: s.abstract,
        overview: s.overview,
        searchText: searchText(baseNameWords(uri), s.abstract, s.overview),
        embedding,
        embedderId: embedding ? this.embedding.id : null,
      }),
    );
    if (failure !== null) throw failure;
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

/** Path segments of a URI: a parent has one fewer than its children. */
function depthOf(uri: string): number {
  let n = 0;
  for (let i = uri.indexOf('://') + 3; i < uri.length; i++) if (uri.charCodeAt(i) === 47) n += 1;
  return n;
}
