import { parseArgs } from 'node:util';
import { KnobName, loadRecallConfig, RecallConfigError } from '../recall/recall-config';
import { RecallClient } from '../recall/recall-client';

const USAGE = `Usage: muninn recall "<query>" [options]

Runs one agent-plugin recall turn against Muninn: context face, then /recall, then /find,
and prints the block an agent would get.

Options:
  --session <id>       session id (enables expansion and cross-turn dedup)
  --exclude <uri>      a URI never to serve (repeatable)
  --url <url>          server (env MUNINN_URL / OPENVIKING_URL, default http://127.0.0.1:1933)
  --api-key <key>      API key (env MUNINN_API_KEY / OPENVIKING_API_KEY)
  --config <file>      JSON config file (env MUNINN_CLIENT_CONFIG, default ~/.muninn/client.json)
  --state-dir <dir>    legacy marker and digest cache (env MUNINN_STATE_DIR / OPENVIKING_STATE_DIR)
  --json               print the whole result (source, entries, stats, trace) as JSON
  -h, --help           this text

Exit status: 0 answered (possibly with nothing relevant), 1 no server step answered, 2 usage or configuration error.`;

const WHY_NOTHING: Partial<Record<string, string>> = {
  none: 'no server step answered',
  skipped: 'the query is shorter than minQueryLength',
};

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** `muninn recall "query"`: exercises the recall client (docs/contract.md#agent-plugin-client) from a terminal. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        session: { type: 'string' },
        exclude: { type: 'string', multiple: true },
        url: { type: 'string' },
        'api-key': { type: 'string' },
        config: { type: 'string' },
        'state-dir': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    io.stderr(`muninn: ${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  const [command, ...words] = positionals;
  if (command !== 'recall' || words.length === 0) {
    io.stderr(`${USAGE}\n`);
    return 2;
  }
  const overrides: Partial<Record<KnobName, unknown>> = {};
  if (values.url) overrides.url = values.url;
  if (values['api-key']) overrides.apiKey = values['api-key'];
  if (values['state-dir']) overrides.stateDir = values['state-dir'];
  let config;
  try {
    config = loadRecallConfig({ env: io.env, configFile: values.config, harness: 'cli', overrides });
  } catch (err) {
    if (err instanceof RecallConfigError) {
      io.stderr(`muninn: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const client = new RecallClient({ config, log: (m) => io.stderr(`muninn: ${m}\n`) });
  const result = await client.recall({
    query: words.join(' '),
    sessionId: values.session ?? null,
    excludeUris: values.exclude ?? [],
  });
  if (values.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  else
    io.stdout(
      result.injection
        ? `${result.injection}\n`
        : `(nothing to inject: ${WHY_NOTHING[result.source] ?? 'no relevant memory'})\n`,
    );
  return result.source === 'none' ? 1 : 0;
}
