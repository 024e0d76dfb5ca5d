/**
 * `npm run bench:scan`: what one grep costs the store (docs/fs-and-mcp.md, "Grep and glob"). Writes
 * `--files` files of about 1 MB of hex lines (~200 MB by default) straight into the nodes table, then
 * times NodeScanRepository.grep over them with a pattern that matches nothing (every byte is read),
 * and measures the answer of a grep whose 1000 matching lines are 10,000 characters long. Runs on
 * PGlite (the embedded store, on its worker thread) and, with MUNINN_BENCH_DATABASE_URL, on PostgreSQL.
 *   npm run bench:scan [-- --files 200] [--runs 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Identity } from '@app/kernel';
import { Db, migrate, NodeScanRepository, PgDb, PgliteWorkerDb } from '@app/store';

const identity: Identity = { accountId: 'bench', userId: 'u', role: 'root', actorPeerId: null };
// The server defaults (libs/config/src/load-config.ts); the repository ignores keys it does not know.
const query = {
  uri: 'viking://resources',
  caseInsensitive: false,
  levelLimit: 10,
  excludeUri: null,
  maxFiles: 10000,
  maxLines: 1000,
  maxBytes: 32 * 1024 * 1024,
  maxLineChars: 1000,
};

async function main(): Promise<void> {
  const args = new Map(process.argv.slice(2).map((a, i, all) => [a.replace(/^--/, ''), all[i + 1] ?? '']));
  const files = Number(args.get('files') || 200);
  const runs = Number(args.get('runs') || 3);
  const rows: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'muninn-scan-bench-'));
  const stores: [string, () => Promise<Db>][] = [
    ['PGlite', () => PgliteWorkerDb.open(dir, { statementTimeoutMs: 600_000 })],
  ];
  const url = process.env['MUNINN_BENCH_DATABASE_URL'];
  if (url) stores.push(['PostgreSQL', async () => new PgDb(url, 2, 600_000)]);
  for (const [name, open] of stores) {
    const db = await open();
    try {
      await migrate(db);
      await db.query(`DELETE FROM nodes WHERE account_id = 'bench'`);
      const bytes = await seed(db, files);
      const scans = new NodeScanRepository(db);
      const ms: number[] = [];
      let scanned = 0;
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        const r = await scans.grep(identity, { ...query, uri: 'viking://resources/big', regex: 'zzq' });
        ms.push(performance.now() - t0);
        scanned = r.filesScanned;
      }
      const long = await scans.grep(identity, { ...query, uri: 'viking://resources/long', regex: 'x' });
      const answer = Buffer.byteLength(JSON.stringify(long.rows));
      ms.sort((a, b) => a - b);
      const median = ms[Math.floor(ms.length / 2)]!;
      rows.push(
        `| ${name} | ${files} (${(bytes / 1e6).toFixed(0)} MB) | ${scanned} | ${median.toFixed(0)} ms | ${long.rows.length} | ${answer} |`,
      );
      console.log(rows[rows.length - 1]);
      await db.query(`DELETE FROM nodes WHERE account_id = 'bench'`);
    } finally {
      await db.close();
    }
  }
  rmSync(dir, { recursive: true, force: true });
  console.log(`\n### one grep: store time and answer size (median of ${runs} runs)\n`);
  console.log('| store | files in scope | files scanned | grep (no match) | long lines returned | answer bytes |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(r);
}

/** `files` files of 30,000 hex lines (~1 MB each) and one of 1000 lines of 10,000 'x'; returns the bytes written. */
async function seed(db: Db, files: number): Promise<number> {
  for (let i = 0; i < files; i++) {
    await db.query(
      `INSERT INTO nodes (account_id, uri, parent_uri, kind, context_type, content)
       SELECT 'bench', $1, 'viking://resources/big', 'file', 'resource',
              (SELECT string_agg(md5($2 || '-' || j), E'\\n') FROM generate_series(1, 30000) j)`,
      [`viking://resources/big/f${String(i).padStart(5, '0')}.md`, String(i)],
    );
  }
  await db.query(
    `INSERT INTO nodes (account_id, uri, parent_uri, kind, context_type, content)
     SELECT 'bench', 'viking://resources/long/x.md', 'viking://resources/long', 'file', 'resource',
            (SELECT string_agg(repeat('x', 10000), E'\\n') FROM generate_series(1, 1000))`,
  );
  const { rows } = await db.query<{ n: string }>(
    `SELECT sum(octet_length(content))::text AS n FROM nodes WHERE account_id = 'bench' AND uri LIKE 'viking://resources/big/%'`,
  );
  return Number(rows[0]?.n ?? 0);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
