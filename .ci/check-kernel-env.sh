#!/usr/bin/env bash
# Fails when pure code touches the `process` global (process.env, process.cwd(), globalThis.process,
# `const { env } = process`, ...), which dependency-cruiser cannot see. Parses with the TypeScript
# compiler API, so comments and strings never match.
#
# Usage: bash .ci/check-kernel-env.sh [dir ...]     (default: libs/kernel libs/contracts; specs included)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ $# -gt 0 ]] || set -- libs/kernel libs/contracts

node - "$@" <<'EOF'
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const files = [];
const walk = (dir) => {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) { if (entry.name !== 'node_modules') walk(full); }
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(full);
  }
};
process.argv.slice(2).forEach(walk);

const GLOBALS = new Set(['globalThis', 'global', 'window', 'self']);
const isProcess = (n) => n && ts.isIdentifier(n) && n.text === 'process';
const problems = [];
for (const file of files) {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const report = (node, what) => {
    const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
    problems.push(`${file}:${line + 1}:${character + 1}  ${what}: ${node.getText(source).slice(0, 80)}`);
  };
  const visit = (node) => {
    if ((ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) && isProcess(node.expression)) {
      report(node, 'uses the process global');                       // process.env, process['env'], process.cwd()
    } else if (ts.isPropertyAccessExpression(node) && node.name.text === 'process'
      && ts.isIdentifier(node.expression) && GLOBALS.has(node.expression.text)) {
      report(node, 'uses the process global');                       // globalThis.process
    } else if (ts.isVariableDeclaration(node) && node.initializer && isProcess(node.initializer)) {
      report(node, 'aliases the process global');                    // const { env } = process; const p = process
    } else if (ts.isTypeReferenceNode(node) && ts.isQualifiedName(node.typeName)
      && ts.isIdentifier(node.typeName.left) && node.typeName.left.text === 'NodeJS') {
      report(node, 'uses a NodeJS.* type');                          // NodeJS.ProcessEnv: env belongs in libs/config
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
if (problems.length) {
  console.error(`check-kernel-env: ${problems.length} use(s) of process in pure code (read env in libs/config and pass values in):`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(`check-kernel-env: ${files.length} files in ${process.argv.slice(2).join(', ')}: no process/env access`);
EOF
