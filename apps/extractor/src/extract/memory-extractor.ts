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
  pagesAfter,
  parseModelExtraction,
  ProposedMemory,
  slug,
} from '@app/kernel';
import { LlmClient } from '@app/llm';

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
   * extraction there with what it has (its caller writes nothing of a cancelled task).
   */
  async extract(input: ExtractionInput, existing: ExistingPage[], opts: ExtractOptions = {}): Promise<ExtractorRun> {
    const offline = () => inTurns(extractOfflineInSteps(input));
    if (!this.modelConfigured)
      return { extraction: await offline(), extractor: 'offline', fallbackReason: null, usage: null };
    const sent: Sent = { usage: null };
    try {
      const calls = Math.min(opts.maxCalls ?? Infinity, this.config.sessions.extractMaxCalls);
      const { windows, leftOut } = extractionWindows(input.messages, this.config.sessions.extractPromptChars, calls);
      const run = await this.sendWindows(input, windows, existing, sent, opts.cancelled);
      if ('unusable' in run)
        return { extraction: await offline(), extractor: 'offline', fallbackReason: run.unusable, usage: sent.usage };
      const { memories } = run;
      let { summary } = run;
      if (run.cancelled)
        return {
          extraction: { memories, ...summary },
          extractor: 'model',
          fallbackReason: 'cancelled',
          usage: sent.usage,
        };
      // Messages past the last call are extracted by the offline extractor (its own event names), so no
      // committed turn goes without memory; the summary stays the model's.
      if (leftOut > 0) {
        const rest = input.messages.slice(input.messages.length - leftOut);
        this.logger.warn(
          `extraction of ${input.sessionId}: ${leftOut} messages past ${calls} model calls, extracted offline`,
        );
        memories.push(...(await inTurns(extractOfflineInSteps({ ...input, messages: rest }))).memories);
      }
      // A model answer without a usable summary keeps its memories; the summary comes from the offline one.
      if (!summary.overview) {
        const o = await offline();
        summary = { overview: o.overview, abstract: o.abstract };
      }
      return { extraction: { memories, ...summary }, extractor: 'model', fallbackReason: null, usage: sent.usage };
    } catch (err) {
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
   * pages the windows before it left. An unusable answer ends it (`unusable` says which call).
   */
  private async sendWindows(
    input: ExtractionInput,
    windows: ExtractionInput['messages'][],
    existing: ExistingPage[],
    sent: Sent,
    cancelled?: () => Promise<boolean>,
  ): Promise<{ memories: ProposedMemory[]; summary: Summary; cancelled: boolean } | { unusable: string }> {
    const memories: ProposedMemory[] = [];
    let pages = existing;
    let summary: Summary = { overview: '', abstract: '' };
    for (const [w, messages] of windows.entries()) {
      if (w > 0 && (await cancelled?.())) return { memories, summary, cancelled: true };
      const part: ExtractionInput = {
        ...input,
        messages,
        previousOverview: summary.overview || input.previousOverview,
      };
      const answer = await this.llm.complete(extractionPrompt(part, pages, this.config.sessions.extractPromptChars), {
        timeoutMs: this.config.sessions.extractTimeoutMs,
      });
      sent.usage = addUsage(sent.usage, answer.usage);
      const parsed = parseModelExtraction(answer.text, part, slug(input.userId) || 'user', w * EVENTS_PER_WINDOW);
      if (!parsed)
        return {
          unusable: `unusable model answer${windows.length > 1 ? ` (call ${w + 1} of ${windows.length})` : ''}`,
        };
      memories.push(...parsed.memories);
      if (parsed.overview) summary = { overview: parsed.overview, abstract: parsed.abstract };
      pages = pagesAfter(pages, parsed.memories);
    }
    return { memories, summary, cancelled: false };
  }
}

interface ExtractOptions {
  maxCalls?: number;
  cancelled?: () => Promise<boolean>;
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
