/**
 * `BENCH_EXTRACT_MODE=big npm run bench:extract`: the offline extractor on one commit at the session
 * limits (docs/sessions.md "Offline extractor"): 80 messages of 90,000 characters (1.8M tokens, under
 * MUNINN_SESSION_MAX_LIVE_TOKENS) of English with names mid-sentence, likes, favourites, questions
 * and dates. Prints the growth curve (8, 20, 40, 80 messages) of one synchronous extraction, and the
 * longest event-loop stall (perf_hooks.monitorEventLoopDelay) of that call and of the stepped run the
 * extractor app uses (a setImmediate between steps). No servers; figures are for one noisy machine.
 */
import { createHash } from 'node:crypto';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { Extraction, ExtractionInput, extractOffline, extractOfflineInSteps } from '@app/kernel';
import { syntheticConversation } from '@app/kernel/testing/synthetic-conversation';

const CHARS = Number(process.env.BENCH_EXTRACT_BIG_CHARS ?? 90_000);
const SIZES = (process.env.BENCH_EXTRACT_BIG_MESSAGES ?? '8,20,40,80').split(',').map(Number);

function commit(messages: number): ExtractionInput {
  return syntheticConversation(messages, CHARS, createHash('sha256').update('s-big1').digest('hex'));
}

/** Wall time and longest event-loop stall of `work`, with a timer ticking beside it. */
async function measure(work: () => Promise<Extraction>): Promise<{ ms: number; stallMs: number; out: Extraction }> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const tick = setInterval(() => undefined, 5);
  await sleep(20); // the monitor measures from its first tick on
  const t0 = performance.now();
  const out = await work();
  const ms = performance.now() - t0;
  await sleep(20); // the monitor's timer records the last stall in the timers phase
  clearInterval(tick);
  loop.disable();
  return { ms, stallMs: loop.max / 1e6, out };
}

async function stepped(input: ExtractionInput): Promise<Extraction> {
  const steps = extractOfflineInSteps(input);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await nextTurn();
  }
}

export async function bigCommitBench(): Promise<void> {
  console.log(`offline extraction, messages of ${CHARS} characters\n`);
  console.log('| messages | tokens | memories | one call | max stall | stepped | max stall |');
  console.log('|---|---|---|---|---|---|---|');
  for (const n of SIZES) {
    const input = commit(n);
    const once = await measure(async () => extractOffline(input));
    const steps = await measure(() => stepped(input));
    if (JSON.stringify(steps.out) !== JSON.stringify(once.out)) throw new Error('stepped output differs');
    const cells = [n, (n * CHARS) / 4, once.out.memories.length, once.ms, once.stallMs, steps.ms, steps.stallMs];
    console.log(`| ${cells.map((c, i) => (i > 2 ? `${Math.round(c as number)} ms` : c)).join(' | ')} |`);
  }
}
