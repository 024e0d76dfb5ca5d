import { setImmediate as nextTurn } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import {
  EVENTS_PER_WINDOW,
  ExistingPage,
  Extraction,
  ExtractionInput,
  extractionPrompt,
  extractionWindows,
  extractOfflineInSteps,
  modelCallTokens,
  pagesAfter,
  parseModelExtraction,
  ProposedMemory,
  slug,
} from '@app/kernel';
import { LlmClient, LlmCompletion, LlmError } from '@app/llm';
import { ModelSpend } from '@app/queue';
import { AnsweredWindow, ExtractProgressStore, ModelRetryLater, resumableWindows } from './extract-progress';

/** What extracted the memories, and what the model cost. */
export interface ExtractorRun {
  extraction: Extraction;
  extractor: 'model' | 'offline';
  /** Why the model's answer was not used (timeout, HTTP error, unusable answer); null when it was. */
  fallbackReason: string | null;
  usage: { prompt_tokens: number; completion_tokens: number } | null;
}

/**
 * The model extractor under a fuse, with the offline extractor as its fallback: no model configured,
 * a failed or late call, or an answer that is not the expected JSON all give the offline result, so a
 * commit never fails for want of a model. See docs/sessions.md "Extraction".
 */
@Injectable()
export class MemoryExtractor {
  private readonly logger = new Logger(MemoryExtractor.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly llm: LlmClient,
  ) {}

  get modelConfigured(): boolean {
    return this.llm.modelFor() !== null;
  }

  /**
   * `maxCalls` caps the model calls below `MUNINN_EXTRACT_MAX_CALLS` (a manual extraction, whose request
   * waits for it, makes one); `cancelled` is asked before every call after the first, and a yes ends the
   * extraction there with what it has (its caller writes nothing of a cancelled task); `budget` is the
   * account's model budget: every call reserves its prompt's estimate first and is counted at its usage.
   * `progress` keeps the answered windows for a retried job; with `retry` a transient provider failure
   * throws {@link ModelRetryLater}, without it (the job's last attempt) the answered windows are kept and
   * the rest extracted offline.
   */
  async extract(input: ExtractionInput, existing: ExistingPage[], opts: ExtractOptions = {}): Promise<ExtractorRun> {
    const offline = () => inTurns(extractOfflineInSteps(input));
    if (!this.modelConfigured)
      return { extraction: await offline(), extractor: 'offline', fallbackReason: null, usage: null };
    const sent: Sent = { usage: null };
    try {
      const calls = Math.min(opts.maxCalls ?? Infinity, this.config.sessions.extractMaxCalls);
      const { windows, leftOut, cut } = extractionWindows(
        input.messages,
        this.config.sessions.extractPromptChars,
        calls,
      );
      const run = await this.sendWindows(input, windows, existing, sent, opts);
      if ('unusable' in run)
        return { extraction: await offline(), extractor: 'offline', fallbackReason: run.unusable, usage: sent.usage };
      const { memories } = run;
      let { summary } = run;
      if (run.stop === 'cancelled')
        return {
          extraction: { memories, ...summary },
          extractor: 'model',
          fallbackReason: 'cancelled',
          usage: sent.usage,
        };
      const refused = stopReason(run, opts);
      if ((run.stop === 'budget' || run.stop === 'failed') && run.sent === 0)
        return { extraction: await offline(), extractor: 'offline', fallbackReason: refused, usage: sent.usage };
      // Messages past the last call (the cap, or the budget), and any the prompt cut, are extracted by the
      // offline extractor (its own event names), so no committed turn goes without memory.
      const sentCount = windows.slice(0, run.sent).reduce((n, w) => n + w.length, 0);
      const cutSent = cut.filter((c) => c.window < run.sent).map((c) => c.message);
      const offlineMessages = [...cutSent, ...input.messages.slice(sentCount)];
      if (offlineMessages.length > 0) {
        this.logger.warn(
          `extraction of ${input.sessionId}: ${offlineMessages.length - cutSent.length} messages past ${run.sent} model calls (${run.stop ?? `${leftOut} past the cap`}) and ${cutSent.length} longer than a prompt, extracted offline`,
        );
        const offlineRest = { ...input, messages: offlineMessages };
        memories.push(...(await inTurns(extractOfflineInSteps(offlineRest))).memories);
      }
      // A model answer without a usable summary keeps its memories; the summary comes from the offline one.
      if (!summary.overview) {
        const o = await offline();
        summary = { overview: o.overview, abstract: o.abstract };
      }
      const reason =
        run.stop === 'budget' || run.stop === 'failed'
          ? `${refused} after call ${run.sent}; the rest extracted offline`
          : null;
      return { extraction: { memories, ...summary }, extractor: 'model', fallbackReason: reason, usage: sent.usage };
    } catch (err) {
      if (err instanceof ModelRetryLater) throw err;
      const reason = (err as Error).message;
      this.logger.warn(`model extraction failed, using the offline extractor: ${reason}`);
      return {
        extraction: await offline(),
        extractor: 'offline',
        fallbackReason: reason.slice(0, 200),
        usage: sent.usage,
      };
    }
  }

  /**
   * One call per window, in order (docs/sessions.md "Extraction"): each is shown the overview and the
   * pages the windows before it left. An unusable answer ends it (`unusable` says which call); so does a
   * cancelled task, a spent budget or, on the job's last attempt, a transient provider failure (`stop`),
   * with the windows `sent` so far. Windows a previous attempt had answered are taken from `progress`.
   */
  private async sendWindows(
    input: ExtractionInput,
    windows: ExtractionInput['messages'][],
    existing: ExistingPage[],
    sent: Sent,
    opts: ExtractOptions,
  ): Promise<WindowsSent | { unusable: string }> {
    const memories: ProposedMemory[] = [];
    let pages = existing;
    let summary: Summary = { overview: '', abstract: '' };
    const counts = windows.map((w) => w.length);
    const answered = resumableWindows(await opts.progress?.load(), counts);
    for (const a of answered) {
      memories.push(...a.memories);
      if (a.overview) summary = { overview: a.overview, abstract: a.abstract };
      pages = pagesAfter(pages, a.memories);
      sent.usage = addUsage(sent.usage, a.usage);
    }
    if (answered.length > 0) this.logger.log(`extraction of ${input.sessionId} resumes at call ${answered.length + 1}`);
    for (let w = answered.length; w < windows.length; w++) {
      const messages = windows[w];
      if (w > 0 && (await opts.cancelled?.())) return { memories, summary, sent: w, stop: 'cancelled' };
      const part: ExtractionInput = {
        ...input,
        messages,
        previousOverview: summary.overview || input.previousOverview,
      };
      const prompt = extractionPrompt(part, pages, this.config.sessions.extractPromptChars);
      const texts = prompt.map((m) => m.content);
      const spend = await opts.budget?.reserve(modelCallTokens(null, texts));
      if (spend === null) return { memories, summary, sent: w, stop: 'budget' };
      const where = windows.length > 1 ? ` (call ${w + 1} of ${windows.length})` : '';
      let answer: LlmCompletion;
      try {
        answer = await this.llm.complete(prompt, { timeoutMs: this.config.sessions.extractTimeoutMs });
      } catch (err) {
        await spend?.failed(err instanceof LlmError && err.kind === 'timeout');
        if (!(err instanceof LlmError && err.transient)) throw err;
        if (!opts.retry) return { memories, summary, sent: w, stop: 'failed', failure: `${err.message}${where}` };
        const delayMs = Math.max(opts.retry.delayMs, err.retryAfterMs ?? 0);
        this.logger.warn(`extraction of ${input.sessionId}: ${err.message}${where}; tried again in ${delayMs} ms`);
        throw new ModelRetryLater(`${err.message}${where}`, delayMs);
      }
      sent.usage = addUsage(sent.usage, answer.usage);
      await spend?.settle(modelCallTokens(answer.usage, [...texts, answer.text]));
      const parsed = parseModelExtraction(answer.text, part, slug(input.userId) || 'user', w * EVENTS_PER_WINDOW);
      if (!parsed)
        return {
          unusable: `unusable model answer${windows.length > 1 ? ` (call ${w + 1} of ${windows.length})` : ''}`,
        };
      memories.push(...parsed.memories);
      if (parsed.overview) summary = { overview: parsed.overview, abstract: parsed.abstract };
      pages = pagesAfter(pages, parsed.memories);
      answered.push({
        memories: parsed.memories,
        overview: parsed.overview,
        abstract: parsed.abstract,
        usage: answer.usage,
      });
      await this.keep(opts.progress, counts, answered);
    }
    return { memories, summary, sent: windows.length, stop: null };
  }

  /** Saves the answered windows for a retried job; a failure to save only costs a retry those calls again. */
  private async keep(progress: ExtractProgressStore | undefined, counts: number[], answered: AnsweredWindow[]) {
    await progress
      ?.save({ counts: counts.slice(0, answered.length), windows: answered })
      .catch((err: Error) => this.logger.warn(`extraction progress not kept: ${err.message}`));
  }
}

/** Why the model's part ended early: the provider failing the job's last attempt, or the budget refusing a call. */
function stopReason(run: WindowsSent, opts: ExtractOptions): string {
  if (run.stop !== 'failed') return opts.budget?.refusal?.() ?? BUDGET_SPENT_REFUSAL;
  return (opts.attempt ?? 1) > 1 ? `${run.failure}, attempt ${opts.attempt}` : (run.failure ?? 'the model failed');
}

/** Why a reservation was refused when the day is spent (the task result's `extractor_fallback_reason`). */
export const BUDGET_SPENT_REFUSAL =
  "the account's model budget for today is spent (MUNINN_ACCOUNT_MODEL_TOKENS_PER_DAY)";

/** An account's model budget as one extraction sees it. */
export interface ExtractBudget {
  /** A call's reservation of its prompt's estimate; null: no call is made (the day is spent, or the account suspended). */
  reserve(estimate: number): Promise<ModelSpend | null>;
  /** Why the last reservation was refused, for the task's result; the spent day's wording when absent. */
  refusal?(): string;
}
interface WindowsSent {
  memories: ProposedMemory[];
  summary: Summary;
  sent: number;
  stop: 'cancelled' | 'budget' | 'failed' | null;
  /** Why the provider failed the call that stopped it (`failed`). */
  failure?: string;
}
interface ExtractOptions {
  maxCalls?: number;
  cancelled?: () => Promise<boolean>;
  budget?: ExtractBudget;
  progress?: ExtractProgressStore;
  /** Set when the job runs again after a failure: how long it waits at least (the provider may ask for more). */
  retry?: { delayMs: number };
  /** This attempt's number (1 for the first), for the fallback reason. */
  attempt?: number;
}
interface Summary {
  overview: string;
  abstract: string;
}
/** The calls' token usage so far, kept outside the calls so a failure after some of them still reports it. */
interface Sent {
  usage: Usage;
}

type Usage = ExtractorRun['usage'];

/** Token usage summed over the calls of one extraction (null while no call reported any). */
function addUsage(sum: Usage, add: { prompt_tokens: number; completion_tokens: number } | null | undefined): Usage {
  if (!add) return sum;
  return {
    prompt_tokens: (sum?.prompt_tokens ?? 0) + add.prompt_tokens,
    completion_tokens: (sum?.completion_tokens ?? 0) + add.completion_tokens,
  };
}

/**
 * Runs the kernel's stepped extraction, giving the event loop a turn between steps: the offline
 * extractor on a commit at the session limits is ~0.6 s of CPU, which would otherwise stall every
 * request and BullMQ's lock renewal of this process (docs/sessions.md "Offline extractor").
 */
async function inTurns<T>(steps: Generator<void, T, void>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await nextTurn();
  }
}
