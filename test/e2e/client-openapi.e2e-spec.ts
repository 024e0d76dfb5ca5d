// Drift check: libs/client/openapi.json and the client generated from it must equal what the *built*
// server serves at /openapi.json (the swagger CLI plugin only runs in `nest build`). The script
// builds, starts dist/apps/standalone on a free port, regenerates into a temp dir and compares.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { STATS_KEYS } from './context-support';

const ROOT = resolve(__dirname, '../..');
const SCRIPT = join(ROOT, 'libs/client/scripts/generate-client.mjs');
const run = (args: string[]) =>
  promisify(execFile)(process.execPath, [SCRIPT, ...args], { cwd: ROOT, env: process.env, timeout: 300_000 }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({
      code: e.code ?? -1,
      out: `${e.stdout ?? ''}${e.stderr ?? ''}`,
    }),
  );

describe("generated client vs the server's OpenAPI document", () => {
  it('is in sync with the built server (npm run client:generate regenerates it)', async () => {
    const r = await run(['--check']);
    expect(r.out).toContain('libs/client is up to date');
    expect(r.code).toBe(0);
  }, 320_000);

  it('reports drift when the document changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muninn-drift-'));
    try {
      const doc = JSON.parse(readFileSync(join(ROOT, 'libs/client/openapi.json'), 'utf8'));
      doc.components.schemas.ContextEntryDto.properties.rank = { type: 'integer' };
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
      const r = await run(['--check', '--from', join(dir, 'openapi.json')]);
      expect(r.code).toBe(1);
      expect(r.out).toContain('libs/client/openapi.json is out of date');
      expect(r.out).toContain('libs/client/src/generated/openapi.ts is out of date');
      expect(r.out).toContain('run `npm run client:generate`');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('documents the context bodies and answers with real schemas', () => {
    const doc = JSON.parse(readFileSync(join(ROOT, 'libs/client/openapi.json'), 'utf8'));
    const search = doc.paths['/api/v1/search/search'].post;
    expect(search.requestBody.content['application/json'].schema.oneOf.map((s: { $ref: string }) => s.$ref)).toEqual([
      '#/components/schemas/SearchListRequestDto',
      '#/components/schemas/ContextSearchRequestDto',
    ]);
    expect(
      search.responses['200'].content['application/json'].schema.oneOf.map((s: { $ref: string }) => s.$ref),
    ).toEqual(['#/components/schemas/FindEnvelopeDto', '#/components/schemas/ContextEnvelopeDto']);
    const recall = doc.paths['/api/v1/search/recall'].post;
    expect(recall.deprecated).toBe(true);
    expect(recall.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/RecallRequestDto');
    expect(recall.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/ContextEnvelopeDto',
    );
    const stats = doc.components.schemas.ContextStatsDto;
    expect(Object.keys(stats.properties)).toEqual(STATS_KEYS);
    expect(stats.required).not.toContain('retrieval_errors');
    expect(stats.required).not.toContain('ignored');
    expect(Object.keys(doc.components.schemas.ContextEntryDto.properties)).toEqual([
      'uri',
      'category',
      'score',
      'detail',
      'text',
      'origin',
    ]);
    const request = doc.components.schemas.ContextSearchRequestDto;
    for (const field of [
      'mode',
      'query_expansion',
      'max_tokens',
      'quotas',
      'purpose',
      'detail',
      'dedup_turns',
      'exclude_uris',
      'peer_scope',
      'other_peer_penalty',
      'rewrite',
      'rewrite_max_bullets',
      'explain',
    ]) {
      expect([field, field in request.properties]).toEqual([field, true]);
    }
    expect(Object.keys(doc.components.schemas.RecallRequestDto.properties)).toEqual(
      expect.arrayContaining(['query', 'max_chars', 'min_score', 'render']),
    );
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/mcp'))).toEqual([]);
  });
});
