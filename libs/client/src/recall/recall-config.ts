import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { editDistance } from './edit-distance';

// The recall client's configuration (docs/contract.md#configuration-knobs). Precedence: environment → config file
// `plugin.<harness>` → config file `plugin` → default. The file is JSON; unknown keys and wrong
// types are errors naming the key, so a typo never silently falls back to a default.

export type CompressMode = 'off' | 'client' | 'server' | 'auto';

export interface RecallConfig {
  url: string;
  apiKey: string;
  accountId: string;
  userId: string;
  peerId: string;
  stateDir: string;
  autoRecall: boolean;
  minQueryLength: number;
  timeoutMs: number;
  recallLimit: number;
  scoreThreshold: number;
  recallMaxTokens: number;
  recallDedupTurns: number;
  recallQueryExpansion: 'off' | 'auto';
  recallCompress: CompressMode;
  recallContextTimeoutMs: number;
  recallCompressMinInputChars: number;
  recallCompressMaxInputChars: number;
  recallCompressMaxBullets: number;
  recallPeerScope: 'actor' | 'all';
  recallMaxContentChars: number;
  recallTokenBudget: number;
  /**
   * Knobs the user set (environment or file), as opposed to defaults: the server owns those
   * (docs/contract.md#context-request-body).
   */
  configured: ReadonlySet<KnobName>;
}

export type KnobName = Exclude<keyof RecallConfig, 'configured'>;

type Parse = (raw: unknown) => { ok: true; value: unknown } | { ok: false; expected: string };

const int =
  (min: number, max = Number.MAX_SAFE_INTEGER): Parse =>
  (raw) => {
    const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
    return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max
      ? { ok: true, value: n }
      : { ok: false, expected: `an integer in ${min}..${max === Number.MAX_SAFE_INTEGER ? '∞' : max}` };
  };
const num =
  (min: number, max: number): Parse =>
  (raw) => {
    const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
    return typeof n === 'number' && Number.isFinite(n) && n >= min && n <= max
      ? { ok: true, value: n }
      : { ok: false, expected: `a number in ${min}..${max}` };
  };
const str: Parse = (raw) =>
  typeof raw === 'string' ? { ok: true, value: raw.trim() } : { ok: false, expected: 'a string' };
const oneOf =
  (...values: string[]): Parse =>
  (raw) =>
    typeof raw === 'string' && values.includes(raw.trim().toLowerCase())
      ? { ok: true, value: raw.trim().toLowerCase() }
      : { ok: false, expected: `one of ${values.join(', ')}` };
const TRUE_WORDS = ['1', 'true', 'yes', 'on'];
const FALSE_WORDS = ['0', 'false', 'no', 'off'];
const bool: Parse = (raw) => {
  if (typeof raw === 'boolean') return { ok: true, value: raw };
  const word = String(raw).trim().toLowerCase();
  if (TRUE_WORDS.includes(word)) return { ok: true, value: true };
  if (FALSE_WORDS.includes(word)) return { ok: true, value: false };
  return { ok: false, expected: 'a boolean' };
};
/** `off|client|server|auto`; `1/true/yes` → auto, `0/false/no` → off (docs/contract.md#configuration-knobs). */
const compress: Parse = (raw) => {
  const word = typeof raw === 'boolean' ? String(raw) : String(raw).trim().toLowerCase();
  if (['off', 'client', 'server', 'auto'].includes(word)) return { ok: true, value: word };
  if (['1', 'true', 'yes'].includes(word)) return { ok: true, value: 'auto' };
  if (['0', 'false', 'no'].includes(word)) return { ok: true, value: 'off' };
  return { ok: false, expected: 'one of off, client, server, auto (or a boolean)' };
};

interface KnobSpec {
  parse: Parse;
  default: unknown;
  /** Environment variables, first set wins. */
  env: string[];
  /** Other spellings accepted in the file (legacy names). */
  aliases?: string[];
}

/** Every documented knob: its parser, default and environment variables. */
export const KNOBS: Record<KnobName, KnobSpec> = {
  url: { parse: str, default: 'http://127.0.0.1:1933', env: ['MUNINN_URL', 'OPENVIKING_URL'] },
  apiKey: { parse: str, default: '', env: ['MUNINN_API_KEY', 'OPENVIKING_API_KEY'] },
  accountId: { parse: str, default: '', env: ['OPENVIKING_ACCOUNT'] },
  userId: { parse: str, default: '', env: ['OPENVIKING_USER'] },
  peerId: { parse: str, default: '', env: ['OPENVIKING_PEER_ID'] },
  stateDir: { parse: str, default: '', env: ['MUNINN_STATE_DIR', 'OPENVIKING_STATE_DIR'] },
  autoRecall: { parse: bool, default: true, env: ['OPENVIKING_AUTO_RECALL'] },
  minQueryLength: { parse: int(0, 10000), default: 3, env: ['OPENVIKING_MIN_QUERY_LENGTH'] },
  timeoutMs: { parse: int(1, 600000), default: 15000, env: ['OPENVIKING_TIMEOUT_MS'] },
  recallLimit: { parse: int(1, 1000), default: 10, env: ['OPENVIKING_RECALL_LIMIT'] },
  scoreThreshold: { parse: num(0, 1), default: 0.35, env: ['OPENVIKING_SCORE_THRESHOLD'] },
  recallMaxTokens: { parse: int(64, 32000), default: 1600, env: ['OPENVIKING_RECALL_MAX_TOKENS'] },
  recallDedupTurns: { parse: int(0, 100), default: 5, env: ['OPENVIKING_RECALL_DEDUP_TURNS'] },
  recallQueryExpansion: { parse: oneOf('off', 'auto'), default: 'auto', env: ['OPENVIKING_RECALL_QUERY_EXPANSION'] },
  recallCompress: {
    parse: compress,
    default: 'auto',
    env: ['OPENVIKING_RECALL_COMPRESS', 'OPENVIKING_RECALL_REWRITE'],
    aliases: ['recallRewrite'],
  },
  recallContextTimeoutMs: { parse: int(0, 600000), default: 0, env: ['OPENVIKING_RECALL_CONTEXT_TIMEOUT_MS'] },
  recallCompressMinInputChars: {
    parse: int(0, 1000000),
    default: 1500,
    env: ['OPENVIKING_RECALL_COMPRESS_MIN_INPUT_CHARS'],
  },
  recallCompressMaxInputChars: {
    parse: int(1000, 1000000),
    default: 18000,
    env: ['OPENVIKING_RECALL_COMPRESS_MAX_INPUT_CHARS'],
  },
  recallCompressMaxBullets: { parse: int(1, 20), default: 6, env: ['OPENVIKING_RECALL_COMPRESS_MAX_BULLETS'] },
  recallPeerScope: { parse: oneOf('actor', 'all'), default: 'all', env: ['OPENVIKING_RECALL_PEER_SCOPE'] },
  recallMaxContentChars: { parse: int(50, 100000), default: 500, env: ['OPENVIKING_RECALL_MAX_CONTENT_CHARS'] },
  recallTokenBudget: { parse: int(200, 1000000), default: 2000, env: ['OPENVIKING_RECALL_TOKEN_BUDGET'] },
};

/** Per-harness override sections allowed inside `plugin`. */
export const HARNESSES = ['claude-code', 'codex', 'openclaw', 'cli'] as const;
export type Harness = (typeof HARNESSES)[number];

/** Keys the file accepts at its top level besides `plugin` (connection settings). */
const TOP_LEVEL_KEYS: KnobName[] = ['url', 'apiKey', 'accountId', 'userId', 'peerId', 'stateDir'];

export class RecallConfigError extends Error {
  override readonly name = 'RecallConfigError';
}

export interface LoadRecallConfigOptions {
  /** The environment to read (the CLI passes `process.env`). */
  env?: Record<string, string | undefined>;
  /** A config file path; else `$MUNINN_CLIENT_CONFIG`, else `~/.muninn/client.json` when it exists. */
  configFile?: string;
  /** Which `plugin.<harness>` section applies. */
  harness?: Harness;
  /** Values that win over everything (e.g. CLI flags); they count as configured. */
  overrides?: Partial<Record<KnobName, unknown>>;
}

/** The default config file location. */
export function defaultConfigFile(env: Record<string, string | undefined>): string {
  return env['MUNINN_CLIENT_CONFIG'] || join(env['HOME'] || homedir(), '.muninn', 'client.json');
}

/**
 * Reads and validates the configuration (docs/contract.md#configuration-knobs); throws `RecallConfigError` with the
 * offending key.
 */
export function loadRecallConfig(opts: LoadRecallConfigOptions = {}): RecallConfig {
  const env = opts.env ?? {};
  const explicitFile = opts.configFile ?? env['MUNINN_CLIENT_CONFIG'];
  const file = explicitFile ? readConfigFile(explicitFile, true) : readConfigFile(defaultConfigFile(env), false);
  const layers = file ? fileLayers(file.path, file.json, opts.harness) : [];
  const values: Record<string, unknown> = {};
  const configured = new Set<KnobName>();
  for (const [name, spec] of Object.entries(KNOBS) as [KnobName, KnobSpec][]) {
    values[name] = spec.default;
    const fromOverride = opts.overrides?.[name];
    const envName = spec.env.find((v) => env[v] !== undefined && env[v] !== '');
    const layer = layers.find((l) => name in l.values);
    let raw: unknown;
    let where: string;
    if (fromOverride !== undefined) [raw, where] = [fromOverride, `option ${name}`];
    else if (envName) [raw, where] = [env[envName], `environment variable ${envName}`];
    else if (layer) [raw, where] = [layer.values[name], `${file!.path}: ${layer.prefix}${name}`];
    else continue;
    const parsed = spec.parse(raw);
    if (!parsed.ok) throw new RecallConfigError(`${where}: expected ${parsed.expected}, got ${JSON.stringify(raw)}`);
    values[name] = parsed.value;
    configured.add(name);
  }
  if (!values['stateDir']) values['stateDir'] = join(env['HOME'] || homedir(), '.muninn', 'state');
  return { ...(values as Omit<RecallConfig, 'configured'>), configured };
}

function readConfigFile(path: string, required: boolean): { path: string; json: unknown } | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (!required && (err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new RecallConfigError(`config file ${path}: cannot be read (${(err as Error).message})`);
  }
  try {
    return { path, json: JSON.parse(text) };
  } catch (err) {
    throw new RecallConfigError(`config file ${path}: not valid JSON (${(err as Error).message})`);
  }
}

interface Layer {
  prefix: string;
  values: Record<string, unknown>;
}

/** Validates the file's shape; returns the layers in precedence order (harness section first). */
function fileLayers(path: string, json: unknown, harness: Harness | undefined): Layer[] {
  const top = asObject(json, path, '(top level)');
  const plugin = top['plugin'] === undefined ? {} : asObject(top['plugin'], path, 'plugin');
  checkKeys(path, '', top, [...TOP_LEVEL_KEYS, 'plugin']);
  const pluginKnobs = Object.keys(KNOBS);
  checkKeys(path, 'plugin.', plugin, [...pluginKnobs, ...aliasNames(), ...HARNESSES]);
  const layers: Layer[] = [];
  for (const h of HARNESSES) {
    if (plugin[h] === undefined) continue;
    const section = asObject(plugin[h], path, `plugin.${h}`);
    checkKeys(path, `plugin.${h}.`, section, [...pluginKnobs, ...aliasNames()]);
    if (h === harness) layers.push({ prefix: `plugin.${h}.`, values: resolveAliases(section) });
  }
  layers.push({ prefix: 'plugin.', values: resolveAliases(withoutHarnesses(plugin)) });
  layers.push({ prefix: '', values: withoutKey(top, 'plugin') });
  return layers;
}

function aliasNames(): string[] {
  return Object.values(KNOBS).flatMap((k) => k.aliases ?? []);
}

function resolveAliases(section: Record<string, unknown>): Record<string, unknown> {
  const out = { ...section };
  for (const [name, spec] of Object.entries(KNOBS)) {
    for (const alias of spec.aliases ?? []) {
      if (out[alias] !== undefined && out[name] === undefined) out[name] = out[alias];
      delete out[alias];
    }
  }
  return out;
}

function withoutHarnesses(plugin: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(plugin).filter(([k]) => !(HARNESSES as readonly string[]).includes(k)));
}

function withoutKey(o: Record<string, unknown>, key: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));
}

function asObject(value: unknown, path: string, where: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new RecallConfigError(`config file ${path}: ${where} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

function checkKeys(path: string, prefix: string, o: Record<string, unknown>, known: string[]): void {
  for (const key of Object.keys(o)) {
    if (known.includes(key)) continue;
    const near = known
      .map((k) => [k, editDistance(k.toLowerCase(), key.toLowerCase())] as const)
      .sort((a, b) => a[1] - b[1])[0];
    const hint =
      near && near[1] <= Math.max(2, Math.floor(key.length / 4)) ? ` (did you mean "${prefix}${near[0]}"?)` : '';
    throw new RecallConfigError(
      `config file ${path}: unknown key "${prefix}${key}"${hint}; known keys here: ${known.join(', ')}`,
    );
  }
}
