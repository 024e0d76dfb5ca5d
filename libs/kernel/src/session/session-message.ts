import { expandPathVariables } from '../uri/path-variables';
import { estimateTokens } from '../budget/token-estimate';

/** A message part as stored and served (`text`, `context`, `tool`, `image_url`, …); kept verbatim. */
export type MessagePart = Record<string, unknown>;

/** A session message in its wire shape (docs/sessions.md "Messages"). */
export interface SessionMessage {
  id: string;
  role: string;
  parts: MessagePart[];
  created_at: string;
  peer_id?: string;
  turn_id?: string;
  message_kind?: string;
  source_message_ids?: string[];
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The readable text of a message: text parts, `[tool:NAME (status)] output` for tools and
 * `[context] abstract` for context parts, one per line. What token estimates and extractors see.
 */
export function messageText(m: Pick<SessionMessage, 'parts'>): string {
  const lines: string[] = [];
  for (const p of m.parts) {
    if (p.type === 'text') lines.push(str(p.text));
    else if (p.type === 'tool') {
      const name = str(p.tool_name);
      const out = str(p.tool_output);
      const input = p.tool_input && typeof p.tool_input === 'object' ? JSON.stringify(p.tool_input) : '';
      lines.push(
        `[tool:${name || 'tool'} (${str(p.tool_status) || 'pending'})] ${[input, out].filter(Boolean).join(' ')}`.trim(),
      );
    } else if (p.type === 'context') lines.push(`[context] ${str(p.abstract) || '(no content)'}`);
    else if (p.type === 'image_url') lines.push('[image]');
  }
  return lines.filter((l) => l.length > 0).join('\n');
}

/** `json.dumps` with its default separators (`", "`, `": "`), non-ASCII kept: how the contract counts tool input. */
function pyJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pyJson).join(', ')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pyJson(x)}`)
      .join(', ')}}`;
  return JSON.stringify(v) ?? 'null';
}

/**
 * Token estimate of one message (CJK-aware, like every budget here), of the text the contract counts:
 * the concatenation, with no separator, of text parts, context abstracts, and each tool part's id,
 * name, input (when not empty) and output; images count nothing. So a tool-only message costs tokens.
 */
export function messageTokens(m: Pick<SessionMessage, 'parts'>): number {
  let text = '';
  for (const p of m.parts) {
    if (p.type === 'text') text += str(p.text);
    else if (p.type === 'context') text += str(p.abstract);
    else if (p.type === 'tool') {
      const input = p.tool_input && typeof p.tool_input === 'object' && Object.keys(p.tool_input).length > 0;
      text += str(p.tool_id) + str(p.tool_name) + (input ? pyJson(p.tool_input) : '') + str(p.tool_output);
    }
  }
  return estimateTokens(text);
}

/** The text a user or assistant said (text parts only): what memory is made of. */
export function spokenText(m: Pick<SessionMessage, 'parts'>): string {
  return m.parts
    .filter((p) => p.type === 'text')
    .map((p) => str(p.text))
    .join('\n')
    .trim();
}

/**
 * Normalises client parts: an unknown `type` becomes a text part (its `text`, else the JSON of the
 * part), as the contract says; known parts are kept as sent.
 */
export function normaliseParts(parts: MessagePart[]): MessagePart[] {
  return parts.map((p) => {
    if (['text', 'context', 'tool', 'image_url'].includes(str(p.type))) return p;
    return { type: 'text', text: typeof p.text === 'string' ? p.text : JSON.stringify(p) };
  });
}

const URI_FIELDS: Record<string, string[]> = {
  context: ['uri'],
  tool: ['tool_uri', 'skill_uri', 'tool_output_storage_uri'],
};

/**
 * Path variables (`{calendar:today}`, …) expanded in a part's `viking://` URIs before storage, as the
 * contract's URI pipeline does: `context.uri`, the tool part's URIs and a `viking://` image URL.
 */
export function expandPartUris(part: MessagePart, now: Date): MessagePart {
  const expand = (v: unknown) => (typeof v === 'string' ? expandPathVariables(v, now) : v);
  if (part.type === 'image_url') {
    const img = part.image_url;
    if (typeof img === 'string') return img.startsWith('viking://') ? { ...part, image_url: expand(img) } : part;
    if (img && typeof img === 'object' && typeof (img as { url?: unknown }).url === 'string') {
      const url = (img as { url: string }).url;
      return url.startsWith('viking://') ? { ...part, image_url: { ...img, url: expand(url) } } : part;
    }
    return part;
  }
  const fields = URI_FIELDS[str(part.type)];
  if (!fields) return part;
  const out: MessagePart = { ...part };
  for (const f of fields) if (typeof out[f] === 'string') out[f] = expand(out[f]);
  return out;
}

/**
 * A user message made only of tool parts (two or more) is stored as one message per tool result, so
 * each result is its own step (contract: tool-result aggregate split).
 */
export function splitToolAggregate(role: string, parts: MessagePart[]): MessagePart[][] {
  if (role === 'user' && parts.length >= 2 && parts.every((p) => p.type === 'tool')) return parts.map((p) => [p]);
  return [parts];
}
