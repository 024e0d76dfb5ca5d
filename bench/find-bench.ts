import { runEval } from './find-eval';

async function main(): Promise<void> {
  const args = new Map<string, string>();
  for (let i = 2; i < process.argv.length; i++) {
    const key = process.argv[i].replace(/^--/, '');
    const next = process.argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) args.set(key, process.argv[++i]);
    else args.set(key, 'true');
  }
  if (args.has('eval')) return runEval(args);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
