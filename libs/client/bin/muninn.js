#!/usr/bin/env node
// `npx muninn recall "query"`: runs the compiled CLI (dist/libs/client/src/cli/muninn-cli.js), compiling
// libs/client first (tsc -p libs/client/tsconfig.lib.json, a few seconds) when it is missing or older than the sources.
'use strict';
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = join(__dirname, '..', '..', '..');
const compiled = join(root, 'dist', 'libs', 'client', 'src', 'cli', 'muninn-cli.js');
/** Newest modification time under `dir` (the client's sources). */
function newest(dir) {
  return readdirSync(dir, { withFileTypes: true }).reduce((t, e) => {
    const p = join(dir, e.name);
    return Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }, 0);
}

if (!existsSync(compiled) || statSync(compiled).mtimeMs < newest(join(root, 'libs', 'client', 'src'))) {
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  const built = spawnSync(process.execPath, [tsc, '-p', join(root, 'libs', 'client', 'tsconfig.lib.json')], {
    stdio: 'inherit',
  });
  if (built.status !== 0) {
    process.stderr.write('muninn: building libs/client failed (npm run build:client)\n');
    process.exit(2);
  }
}
require(compiled)
  .main(process.argv.slice(2), {
    env: process.env,
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
  })
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`muninn: ${err && err.stack ? err.stack : err}\n`);
      process.exitCode = 1;
    },
  );
