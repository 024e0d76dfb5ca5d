import { StageTimer } from '../stats/stage-timer';
import { sidecarDirectory } from '../tiering/tier-text';
import {
  AssembledBlock,
  assembleBlock,
  BlockRequest,
  carriedBodies,
  planBlockReads,
  planBodies,
} from './assemble-block';
import { ContentRead } from './read-policy';

/** Reads bodies (the assembler's store read); absent keys are bodies that could not be read. */
export type BodyRead = (reads: ContentRead[]) => Promise<ReadonlyMap<string, string>>;

/** An assembled block and how many bodies were read for it. */
export interface ReadBlock extends AssembledBlock {
  /** Bodies the store returned: not those asked for, since the reader skips bodies past the plan's total. */
  bodiesRead: number;
}

/** A plan of a block, and whether it looked for one of the bodies not read yet ({@link planBlock}). */
export interface PlannedBlock {
  block: AssembledBlock;
  asked: boolean;
}

/**
 * Plans a block from `contents` ({@link planBlock}): on the caller's thread, or elsewhere (the assembler plans a
 * large block on a worker thread, docs/limits-and-security.md "Work per byte"), always by the same function.
 */
export type BlockPlanner = (
  req: BlockRequest,
  contents: ReadonlyMap<string, string>,
  unread: readonly string[],
) => Promise<PlannedBlock>;

/**
 * Plans and renders the block from `contents` (the bodies within {@link planBodies}' total), noting whether the
 * planner looked for one of the `unread` bodies: a plan that never did is the plan those bodies would give too.
 */
export function planBlock(
  req: BlockRequest,
  contents: ReadonlyMap<string, string>,
  unread: readonly string[],
  timer: StageTimer,
): PlannedBlock {
  if (!unread.length) return { block: assembleBlock(req, contents, timer), asked: false };
  const watched = new WatchedContents(contents, new Set(unread));
  const block = assembleBlock(req, watched, timer);
  return { block, asked: watched.asked };
}

/** {@link planBlock} on the caller's thread, its `plan` and `render` stages on `timer`. */
export function planHere(timer: StageTimer): BlockPlanner {
  return (req, contents, unread) => Promise.resolve(planBlock(req, contents, unread, timer));
}

/**
 * Plans a block reading as few bodies as it can (docs/context.md, "Bodies the search carries"): the bodies the
 * search carried are not read, memory bodies are read before planning (their words weigh the excerpts of every
 * memory), and directory sidecars only if the plan asks for one. Directories rank after the files below them and
 * a served file usually makes its directory redundant, so the plan seldom reaches a directory's overview; when it
 * does, the sidecars are read and the block is planned again, so it is always the block these bodies, read up
 * front, would give. With `explain` every candidate's overview is looked at, so everything is read first. The plan
 * works over the bodies within {@link planBodies}' total; `plan` runs it (default: here).
 */
export async function assembleReading(
  req: BlockRequest,
  read: BodyRead,
  timer: StageTimer = new StageTimer(() => 0),
  plan: BlockPlanner = planHere(timer),
): Promise<ReadBlock> {
  const carried = carriedBodies(req);
  const reads = planBlockReads(req, carried);
  const later = req.explain ? [] : reads.filter((r) => sidecarDirectory(r.uri) !== null);
  const first = later.length ? reads.filter((r) => sidecarDirectory(r.uri) === null) : reads;
  let bodiesRead = 0;
  const readTimed = async (some: ContentRead[]) => {
    if (!some.length) return new Map<string, string>();
    const got = await timer.time('body_read', () => read(some));
    bodiesRead += got.size;
    return got;
  };
  const contents = new Map([...carried, ...(await readTimed(first))]);
  if (later.length) {
    const { block, asked } = await plan(
      req,
      planBodies(req, contents),
      later.map((r) => r.uri),
    );
    if (!asked) return { ...block, bodiesRead };
    for (const [uri, text] of await readTimed(later)) contents.set(uri, text);
  }
  const { block } = await plan(req, planBodies(req, contents), []);
  return { ...block, bodiesRead };
}

/**
 * The bodies read so far, noting whether planning looked for one of the `unread` ones: a plan that never did is
 * the plan those bodies would give too (the planner reads bodies through `get` only; any other look counts).
 */
class WatchedContents implements ReadonlyMap<string, string> {
  asked = false;

  constructor(
    private readonly inner: ReadonlyMap<string, string>,
    private readonly unread: ReadonlySet<string>,
  ) {}

  get(key: string): string | undefined {
    if (this.unread.has(key)) this.asked = true;
    return this.inner.get(key);
  }

  has(key: string): boolean {
    if (this.unread.has(key)) this.asked = true;
    return this.inner.has(key);
  }

  get size(): number {
    return this.whole().size;
  }

  forEach(fn: (value: string, key: string, map: ReadonlyMap<string, string>) => void): void {
    this.whole().forEach((value, key) => fn(value, key, this));
  }

  entries(): MapIterator<[string, string]> {
    return this.whole().entries();
  }

  keys(): MapIterator<string> {
    return this.whole().keys();
  }

  values(): MapIterator<string> {
    return this.whole().values();
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.whole()[Symbol.iterator]();
  }

  private whole(): ReadonlyMap<string, string> {
    if (this.unread.size) this.asked = true;
    return this.inner;
  }
}
