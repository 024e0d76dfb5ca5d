import { LlmError } from './llm.error';

/** Token usage of exactly one model call. */
export interface LlmUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** The text and usage of one chat completion. */
export interface LlmCompletion {
  text: string;
  /** This call's usage as the server reported it, or null when it reported none. */
  usage: LlmUsage | null;
  model: string;
}

/**
 * Reads the answer text and usage out of a chat-completion body, trusting nothing: a body that is not
 * an object with `choices[0].message` (the SDK hands back non-JSON bodies as strings) is `malformed`.
 */
export function readCompletion(body: unknown, model: string): LlmCompletion {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new LlmError('malformed', `not a chat completion: ${preview(body)}`);
  const { choices, usage } = body as { choices?: unknown; usage?: unknown };
  const first = Array.isArray(choices) ? (choices[0] as { message?: { content?: unknown } } | undefined) : undefined;
  const message = first && typeof first === 'object' ? first.message : undefined;
  if (!message || typeof message !== 'object')
    throw new LlmError('malformed', `chat completion without choices[0].message: ${preview(body)}`);
  const content = message.content;
  if (content !== null && content !== undefined && typeof content !== 'string')
    throw new LlmError('malformed', 'choices[0].message.content is not text');
  return { text: content ?? '', usage: readUsage(usage), model };
}

function readUsage(usage: unknown): LlmUsage | null {
  if (!usage || typeof usage !== 'object') return null;
  const { prompt_tokens, completion_tokens } = usage as Record<string, unknown>;
  if (typeof prompt_tokens !== 'number' && typeof completion_tokens !== 'number') return null;
  return { prompt_tokens: count(prompt_tokens), completion_tokens: count(completion_tokens) };
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}

function preview(v: unknown): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}
