import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS, openStore } from '@app/store';

const READY = 'ready';
const PGLITE = join('@electric-sql', 'pglite');

/**
 * Seeds `pgdata` (an embedded store's folder, absent) with a copy of a migrated template, so a test app
 * opens an existing database instead of creating one. Creating a PGlite database runs its initdb, about
 * 5–7 s on a 2-core machine, against about 1 s to open an existing folder and 0.2 s to copy one
 * (measured; the e2e suites start dozens of PGlite apps). The template is made once per machine by the
 * same `openStore` a server runs (a fresh folder, every migration) and is named by a hash of the
 * migrations and the PGlite version, so a changed migration or an upgrade makes a new one. Fresh-folder
 * start-up stays covered: the template itself is built that way, and suites may ask for a fresh folder.
 */
export async function seedFromPgliteTemplate(pgdata: string): Promise<void> {
  cpSync(await pgliteTemplate(), pgdata, { recursive: true });
}

async function pgliteTemplate(): Promise<string> {
  const dir = join(tmpdir(), `muninn-pglite-template-${templateKey()}`);
  if (existsSync(join(dir, READY))) return join(dir, 'pgdata');
  const build = mkdtempSync(join(tmpdir(), 'muninn-pglite-build-'));
  try {
    const db = await openStore({ databaseUrl: null, dataDir: build });
    await db.close();
    writeFileSync(join(build, READY), '');
    // Atomic: another jest process building the same template at once either wins or finds it here.
    renameSync(build, dir);
  } catch (error) {
    rmSync(build, { recursive: true, force: true });
    if (!existsSync(join(dir, READY))) throw error;
  }
  return join(dir, 'pgdata');
}

function templateKey(): string {
  // The package's exports do not include its package.json, so it is read from the install, found from the
  // resolved entry point: a path relative to this file breaks where the file is compiled elsewhere (the
  // benches build into node_modules/.cache/<bench>/).
  const entry = require.resolve('@electric-sql/pglite');
  const root = entry.slice(0, entry.lastIndexOf(PGLITE) + PGLITE.length);
  const manifest = join(root, 'package.json');
  const pglite = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return createHash('sha256')
    .update(pglite.version)
    .update(JSON.stringify(MIGRATIONS.map((m) => [m.version, m.sql])))
    .digest('hex')
    .slice(0, 16);
}
