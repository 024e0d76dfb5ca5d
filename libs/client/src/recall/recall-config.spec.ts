// Configuration knobs (docs/contract.md#configuration-knobs): environment → file plugin.<harness> → file plugin →
// default; the file
// schema accepts every documented field and rejects unknown ones with a message naming them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KNOBS, loadRecallConfig, RecallConfigError } from './recall-config';

describe('recall configuration', () => {
  let dir: string;
  const HOME = '/nonexistent-muninn-home';
  const file = (json: unknown) => {
    const path = join(dir, 'client.json');
    writeFileSync(path, typeof json === 'string' ? json : JSON.stringify(json));
    return path;
  };

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'muninn-config-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults of configuration knobs, nothing configured, state dir under HOME', () => {
    const cfg = loadRecallConfig({ env: { HOME } });
    expect(cfg).toMatchObject({
      url: 'http://127.0.0.1:1933',
      recallLimit: 10,
      scoreThreshold: 0.35,
      recallMaxTokens: 1600,
      recallDedupTurns: 5,
      recallQueryExpansion: 'auto',
      recallCompress: 'auto',
      recallContextTimeoutMs: 0,
      recallCompressMinInputChars: 1500,
      recallCompressMaxInputChars: 18000,
      recallCompressMaxBullets: 6,
      recallPeerScope: 'all',
      timeoutMs: 15000,
      minQueryLength: 3,
      autoRecall: true,
      stateDir: join(HOME, '.muninn', 'state'),
    });
    expect([...cfg.configured]).toEqual([]);
  });

  it.each([
    ['OPENVIKING_RECALL_LIMIT', '4', 'recallLimit', 4],
    ['OPENVIKING_SCORE_THRESHOLD', '0.5', 'scoreThreshold', 0.5],
    ['OPENVIKING_RECALL_MAX_TOKENS', '800', 'recallMaxTokens', 800],
    ['OPENVIKING_RECALL_DEDUP_TURNS', '0', 'recallDedupTurns', 0],
    ['OPENVIKING_RECALL_QUERY_EXPANSION', 'off', 'recallQueryExpansion', 'off'],
    ['OPENVIKING_RECALL_COMPRESS', 'client', 'recallCompress', 'client'],
    ['OPENVIKING_RECALL_COMPRESS', 'yes', 'recallCompress', 'auto'],
    ['OPENVIKING_RECALL_COMPRESS', '0', 'recallCompress', 'off'],
    ['OPENVIKING_RECALL_REWRITE', 'true', 'recallCompress', 'auto'],
    ['OPENVIKING_RECALL_REWRITE', 'no', 'recallCompress', 'off'],
    ['OPENVIKING_RECALL_CONTEXT_TIMEOUT_MS', '50000', 'recallContextTimeoutMs', 50000],
    ['OPENVIKING_RECALL_COMPRESS_MIN_INPUT_CHARS', '100', 'recallCompressMinInputChars', 100],
    ['OPENVIKING_RECALL_COMPRESS_MAX_INPUT_CHARS', '9000', 'recallCompressMaxInputChars', 9000],
    ['OPENVIKING_RECALL_COMPRESS_MAX_BULLETS', '3', 'recallCompressMaxBullets', 3],
    ['OPENVIKING_RECALL_PEER_SCOPE', 'actor', 'recallPeerScope', 'actor'],
    ['OPENVIKING_TIMEOUT_MS', '5000', 'timeoutMs', 5000],
    ['OPENVIKING_MIN_QUERY_LENGTH', '5', 'minQueryLength', 5],
    ['OPENVIKING_AUTO_RECALL', 'false', 'autoRecall', false],
    ['OPENVIKING_STATE_DIR', '/tmp/ov-state', 'stateDir', '/tmp/ov-state'],
    ['MUNINN_URL', 'http://muninn:1933', 'url', 'http://muninn:1933'],
  ])('environment %s=%s → %s', (variable, value, knob, expected) => {
    const cfg = loadRecallConfig({ env: { HOME, [variable]: value } });
    expect(cfg[knob as keyof typeof cfg]).toEqual(expected);
    expect(cfg.configured.has(knob as never)).toBe(true);
  });

  it('OPENVIKING_RECALL_COMPRESS wins over the legacy OPENVIKING_RECALL_REWRITE', () => {
    expect(
      loadRecallConfig({ env: { HOME, OPENVIKING_RECALL_COMPRESS: 'server', OPENVIKING_RECALL_REWRITE: 'off' } })
        .recallCompress,
    ).toBe('server');
  });

  it('precedence: environment → plugin.<harness> → plugin → top level → default', () => {
    const configFile = file({
      url: 'http://top:1',
      apiKey: 'top-key',
      plugin: {
        recallLimit: 7,
        recallMaxTokens: 900,
        url: 'http://plugin:2',
        'claude-code': { recallLimit: 3 },
        cli: { recallLimit: 5 },
      },
    });
    const cli = loadRecallConfig({ env: { HOME, OPENVIKING_RECALL_MAX_TOKENS: '1200' }, configFile, harness: 'cli' });
    expect([cli.recallLimit, cli.recallMaxTokens, cli.url, cli.apiKey, cli.scoreThreshold]).toEqual([
      5,
      1200,
      'http://plugin:2',
      'top-key',
      0.35,
    ]);
    const claude = loadRecallConfig({ env: { HOME }, configFile, harness: 'claude-code' });
    expect([claude.recallLimit, claude.recallMaxTokens]).toEqual([3, 900]);
    const none = loadRecallConfig({ env: { HOME }, configFile });
    expect(none.recallLimit).toBe(7);
    expect(none.configured.has('recallLimit')).toBe(true);
    expect(none.configured.has('recallDedupTurns')).toBe(false);
  });

  it('the config file path comes from MUNINN_CLIENT_CONFIG or ~/.muninn/client.json', () => {
    const configFile = file({ plugin: { recallLimit: 2 } });
    expect(loadRecallConfig({ env: { HOME, MUNINN_CLIENT_CONFIG: configFile } }).recallLimit).toBe(2);
    const home = mkdtempSync(join(tmpdir(), 'muninn-home-'));
    try {
      mkdirSync(join(home, '.muninn'));
      writeFileSync(join(home, '.muninn', 'client.json'), JSON.stringify({ plugin: { recallLimit: 9 } }));
      expect(loadRecallConfig({ env: { HOME: home } }).recallLimit).toBe(9);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('accepts every documented knob in plugin and in each harness section, and the legacy recallRewrite spelling', () => {
    const sample: Record<string, unknown> = {
      url: 'http://x:1',
      apiKey: 'k',
      accountId: 'a',
      userId: 'u',
      peerId: 'p',
      stateDir: '/tmp/s',
      autoRecall: false,
      minQueryLength: 2,
      timeoutMs: 1000,
      recallLimit: 3,
      scoreThreshold: 0.1,
      recallMaxTokens: 700,
      recallDedupTurns: 2,
      recallQueryExpansion: 'off',
      recallCompress: 'client',
      recallContextTimeoutMs: 2000,
      recallCompressMinInputChars: 10,
      recallCompressMaxInputChars: 2000,
      recallCompressMaxBullets: 4,
      recallPeerScope: 'actor',
      recallMaxContentChars: 100,
      recallTokenBudget: 900,
    };
    expect(Object.keys(sample).sort()).toEqual(Object.keys(KNOBS).sort());
    const cfg = loadRecallConfig({
      env: { HOME },
      configFile: file({ plugin: { ...sample, codex: sample, openclaw: { recallRewrite: 'server' } } }),
      harness: 'openclaw',
    });
    expect(cfg).toMatchObject({ ...sample, recallCompress: 'server' });
    expect(cfg.configured.size).toBe(Object.keys(KNOBS).length);
  });

  it.each([
    [
      'an unknown plugin key, with a suggestion',
      { plugin: { recalLimit: 4 } },
      /unknown key "plugin\.recalLimit" \(did you mean "plugin\.recallLimit"\?\)/,
    ],
    ['an unknown top-level key', { recallLimit: 4 }, /unknown key "recallLimit"; known keys here: url, apiKey/],
    ['an unknown harness section', { plugin: { cursor: { recallLimit: 1 } } }, /unknown key "plugin\.cursor"/],
    [
      'an unknown key inside a harness section',
      { plugin: { codex: { bogus: 1 } } },
      /unknown key "plugin\.codex\.bogus"/,
    ],
    [
      'a wrong type',
      { plugin: { recallLimit: 'many' } },
      /plugin\.recallLimit: expected an integer in 1\.\.1000, got "many"/,
    ],
    [
      'an out-of-range value',
      { plugin: { recallMaxTokens: 10 } },
      /plugin\.recallMaxTokens: expected an integer in 64\.\.32000, got 10/,
    ],
    ['a bad enum', { plugin: { recallPeerScope: 'everyone' } }, /plugin\.recallPeerScope: expected one of actor, all/],
    ['plugin not an object', { plugin: [1] }, /plugin must be a JSON object/],
    ['not JSON', '{ nope', /not valid JSON/],
  ])('rejects %s with a clear message', (_name, json, message) => {
    const configFile = file(json);
    expect(() => loadRecallConfig({ env: { HOME }, configFile })).toThrow(RecallConfigError);
    expect(() => loadRecallConfig({ env: { HOME }, configFile })).toThrow(message);
  });

  it('rejects a bad environment value naming the variable', () => {
    expect(() => loadRecallConfig({ env: { HOME, OPENVIKING_RECALL_LIMIT: 'ten' } })).toThrow(
      'environment variable OPENVIKING_RECALL_LIMIT: expected an integer in 1..1000, got "ten"',
    );
  });

  it('an explicit config file that does not exist is an error; a missing default file is not', () => {
    expect(() => loadRecallConfig({ env: { HOME }, configFile: join(dir, 'missing.json') })).toThrow(/cannot be read/);
    expect(() => loadRecallConfig({ env: { HOME } })).not.toThrow();
  });
});
