import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { LlmError, retryAfterMs } from './llm.error';
import { LlmModelRole, LlmSettings } from './llm-settings';
import { LlmCompletion, readCompletion } from './read-completion';

/** One chat message. */
export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Per-call options: the deadline is mandatory, since a model call is always made under a fuse. */
export interface LlmCallOptions {
  timeoutMs: number;
  /** Aborts the call early (e.g. shutdown); reported as `timeout`. */
  signal?: AbortSignal;
  /** Which configured model to use (default: `default`). */
  model?: LlmModelRole;
}

// Local OpenAI-compatible servers need no key, but the SDK refuses to start without one.
const PLACEHOLDER_KEY = 'no-key';

/**
 * OpenAI-compatible chat completions through the official SDK. No retries (the caller's fuse is the
 * deadline) and no shared usage counter: each call returns its own usage.
 */
export class LlmClient {
  private readonly sdk: OpenAI | null;

  constructor(private readonly settings: LlmSettings) {
    this.sdk = settings.baseUrl
      ? new OpenAI({
          baseURL: settings.baseUrl,
          apiKey: settings.apiKey || PLACEHOLDER_KEY,
          // Explicit values keep the SDK from falling back to OPENAI_* variables (config is read once, in
          // libs/config); only OPENAI_CUSTOM_HEADERS is read by the SDK unconditionally.
          organization: null,
          project: null,
          adminAPIKey: null,
          webhookSecret: null,
          maxRetries: 0,
          logLevel: 'off',
        })
      : null;
  }

  /** The model name a role resolves to, or null when none is configured. */
  modelFor(role: LlmModelRole = 'default'): string | null {
    if (!this.settings.baseUrl) return null;
    return role === 'planner' ? (this.settings.plannerModel ?? this.settings.model) : this.settings.model;
  }

  /** One chat completion, answered within `timeoutMs` or failed with an {@link LlmError}. */
  async complete(messages: LlmMessage[], opts: LlmCallOptions): Promise<LlmCompletion> {
    const model = this.modelFor(opts.model);
    if (!this.sdk || !model) throw new LlmError('unavailable', 'no LLM configured (set LLM_BASE_URL and LLM_MODEL)');
    const timeoutMs = Math.max(1, Math.ceil(opts.timeoutMs));
    const deadline = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // The race is the fuse: it holds even if the SDK or the server keeps a body stream open past the deadline.
    const fuse = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        deadline.abort();
        reject(new LlmError('timeout', `LLM call timed out after ${timeoutMs} ms`));
      }, timeoutMs);
    });
    const signal = opts.signal ? AbortSignal.any([deadline.signal, opts.signal]) : deadline.signal;
    const call = this.sdk.chat.completions
      .create({ model, messages }, { timeout: timeoutMs, signal, maxRetries: 0 })
      .then((body: unknown) => readCompletion(body, model));
    try {
      return await Promise.race([call, fuse]);
    } catch (err) {
      throw toLlmError(err, deadline.signal.aborted, timeoutMs);
    } finally {
      clearTimeout(timer);
      call.catch(() => undefined);
    }
  }
}

function toLlmError(err: unknown, deadlineHit: boolean, timeoutMs: number): LlmError {
  if (err instanceof LlmError) return err;
  if (deadlineHit || err instanceof APIConnectionTimeoutError) {
    return new LlmError('timeout', `LLM call timed out after ${timeoutMs} ms`, undefined, { cause: err });
  }
  if (err instanceof APIUserAbortError) return new LlmError('timeout', 'LLM call aborted', undefined, { cause: err });
  if (err instanceof APIConnectionError)
    return new LlmError('unavailable', `LLM unreachable: ${err.message}`, undefined, { cause: err, unreachable: true });
  if (err instanceof APIError && typeof err.status === 'number') {
    return new LlmError('http', `LLM answered HTTP ${err.status}: ${err.message}`, err.status, {
      cause: err,
      retryAfterMs: retryAfterMs(err.headers?.get('retry-after')),
    });
  }
  // By name: the body parser's SyntaxError may come from another realm (undici inside a VM sandbox).
  const { name, message } = (err ?? {}) as { name?: unknown; message?: unknown };
  if (name === 'SyntaxError')
    return new LlmError('malformed', `LLM answered a body that is not JSON: ${String(message)}`, undefined, {
      cause: err,
    });
  const msg = typeof message === 'string' ? message : String(err);
  return new LlmError('unavailable', `LLM call failed: ${msg}`, undefined, { cause: err });
}
