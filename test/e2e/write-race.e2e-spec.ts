// Two transactions writing one new file at the same moment (docs/architecture.md "Write path"): the loser of the
// insert race finds the winner's row committed. An upsert then updates that row (a merge sees what the
// winner wrote); a create is refused. Only PostgreSQL runs transactions side by side (PGlite has one
// connection), so this suite needs the CI's PostgreSQL server.
import { Client } from 'pg';
import { Identity, KernelError } from '@app/kernel';
import { Db, NodeRepository, openStore, writeNodes } from '@app/store';
import { createTestDatabase, TestDatabase } from '@app/testing';

const PG = process.env.MUNINN_TEST_DATABASE_URL;
const suite = PG ? describe : describe.skip;
const alice: Identity = { accountId: 'race', userId: 'alice', role: 'user', actorPeerId: null };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

suite('write race on one new file (PostgreSQL)', () => {
  let pg: TestDatabase;
  let db: Db;
  let nodes: NodeRepository;
  let probe: Client;

  beforeAll(async () => {
    pg = await createTestDatabase(PG!);
    db = await openStore({ databaseUrl: pg.url, dataDir: 'memory://unused', statementTimeoutMs: 10_000 });
    nodes = new NodeRepository(db, { graceMs: 60_000 });
    probe = new Client({ connectionString: pg.url });
    await probe.connect();
  }, 120_000);
  afterAll(async () => {
    await probe?.end();
    await db?.close();
    await pg?.drop();
  });

  /** Waits until some backend waits on a row or transaction lock: the second writer's insert is parked. */
  const parked = async () => {
    for (let i = 0; i < 200; i += 1) {
      const { rows } = await probe.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`,
      );
      if (rows[0].n > 0) return;
      await sleep(25);
    }
    throw new Error('the second writer never waited on the first');
  };

  /**
   * The first writer inserts `uri` and holds its transaction open until the second writer (`second`)
   * is parked on that row, then commits. Returns the second writer's outcome, or its error.
   */
  async function race<T>(uri: string, first: string, second: () => Promise<T>): Promise<T | KernelError> {
    // Parent directories committed beforehand: the second writer then parks on the file's insert itself
    // (its lock read having found nothing), not earlier on the first writer's new directories.
    const dir = uri.slice(0, uri.lastIndexOf('/'));
    await nodes.writeMany(alice, [{ uri: `${dir}/.sibling.md`, mode: 'upsert', content: 'here' }]);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const ready = new Promise<void>((r) => (inserted = r));
    const winner = db.transaction(async (tx) => {
      await writeNodes(tx, alice, [{ uri, mode: 'upsert', content: first }], { graceMs: 60_000 });
      inserted();
      await held;
    });
    await ready;
    const loser = second().catch((err: KernelError) => err);
    await parked();
    release();
    await winner;
    return loser;
  }

  it('an upsert that loses the insert race updates the winner’s row', async () => {
    const uri = 'viking://user/alice/memories/profile.md';
    const out = await race(uri, 'Likes tea.', () =>
      nodes.writeMany(alice, [{ uri, mode: 'upsert', content: 'Likes coffee.' }]),
    );
    expect(out).not.toBeInstanceOf(Error);
    expect((out as any).items).toEqual([
      { uri, created: false, changed: true, size: Buffer.byteLength('Likes coffee.') },
    ]);
    expect((await nodes.get(alice, uri))?.content).toBe('Likes coffee.');
  });

  it('a merge that loses the race merges into what the winner wrote', async () => {
    const uri = 'viking://user/alice/memories/entities/tea.md';
    const add = (current: string | null) => `${current ?? '# Tea\n'}- [m2] "Green, please."\n`;
    const out = await race(uri, '# Tea\n- [m1] "I like tea."\n', () =>
      nodes.writeMany(alice, [{ uri, mode: 'upsert', content: add(null), merge: add }]),
    );
    expect(out).not.toBeInstanceOf(Error);
    expect((await nodes.get(alice, uri))?.content).toBe('# Tea\n- [m1] "I like tea."\n- [m2] "Green, please."\n');
  });

  it('a create that loses the race is refused with ALREADY_EXISTS and writes nothing', async () => {
    const uri = 'viking://user/alice/memories/events/once.md';
    const out = await race(uri, 'first', () => nodes.writeMany(alice, [{ uri, mode: 'create', content: 'second' }]));
    expect(out).toBeInstanceOf(KernelError);
    expect((out as KernelError).code).toBe('ALREADY_EXISTS');
    expect((await nodes.get(alice, uri))?.content).toBe('first');
  });
});
