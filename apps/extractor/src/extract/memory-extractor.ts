import { setImmediate as nextTurn } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import {
  ExistingPage,
  Extraction,
  ExtractionInput,
  extractionPrompt,
  extractOfflineInSteps,
  parseModelExtraction,
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

  async extract(input: ExtractionInput, existing: ExistingPage[]): Promise<ExtractorRun> {
    const offline = () => inTurns(extractOfflineInSteps(input));
    if (!this.modelConfigured)
      return { extraction: await offline(), extractor: 'offline', fallbackReason: null, usage: null };
    let usage: ExtractorRun['usage'] = null;
    try {
      const messages = extractionPrompt(input, existing, this.config.sessions.extractPromptChars);
      const answer = await this.llm.complete(messages, { timeoutMs: this.config.sessions.extractTimeoutMs });
      usage = answer.usage
        ? { prompt_tokens: answer.usage.prompt_tokens, completion_tokens: answer.usage.completion_tokens }
        : null;
      const parsed = parseModelExtraction(answer.text, input, slug(input.userId) || 'user');
      if (!parsed)
        return { extraction: await offline(), extractor: 'offline', fallbackReason: 'unusable model answer', usage };
      // A model answer without a usable summary keeps its memories; the summary comes from the offline one.
      if (!parsed.overview) ({ overview: parsed.overview, abstract: parsed.abstract } = await offline());
      return { extraction: parsed, extractor: 'model', fallbackReason: null, usage };
    } catch (err) {
      const reason = (err as Error).message;
      this.logger.warn(`model extraction failed, using the offline extractor: ${reason}`);
      return { extraction: await offline(), extractor: 'offline', fallbackReason: reason.slice(0, 200), usage };
    }
  }
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
