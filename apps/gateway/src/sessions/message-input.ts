import { AppConfig } from '@app/config';
import {
  KernelError,
  KernelErrorCode,
  messageText,
  messageTokens,
  MessagePart,
  expandPartUris,
  normaliseParts,
  splitToolAggregate,
} from '@app/kernel';
import { NewMessage } from '@app/store';
import { AddMessageDto } from './dto/sessions.dto';

const PEER_ID = /^[a-zA-Z0-9_.@-]+$/;

const invalid = (field: string, message: string) =>
  new KernelError(KernelErrorCode.InvalidArgument, message, { field });

/**
 * Turns one validated message body into the messages to store (a user message of tool results only
 * becomes one message per result), checking the configured bounds; `field` names it in errors
 * (`messages[3]`). See docs/sessions.md "Messages".
 */
export function buildMessages(dto: AddMessageDto, limits: AppConfig['sessions'], field: string): NewMessage[] {
  // `null` is absence (the reference's optional fields), not an empty message.
  if (dto.content == null && dto.parts == null) {
    throw invalid(field, "Either 'content' or 'parts' must be provided");
  }
  if (dto.parts && dto.parts.length > limits.messageMaxParts) {
    throw invalid(
      `${field}.parts`,
      `${field}.parts has ${dto.parts.length} parts; at most ${limits.messageMaxParts} are allowed`,
    );
  }
  const now = new Date();
  const parts: MessagePart[] = dto.parts
    ? normaliseParts(dto.parts).map((p) => expandPartUris(p, now))
    : [{ type: 'text', text: dto.content ?? '' }];
  for (const [i, p] of parts.entries()) {
    if (p.type === 'text' && typeof p.text !== 'string') {
      throw invalid(`${field}.parts[${i}].text`, `${field}.parts[${i}].text: a text part needs a string text`);
    }
    if (p.type !== 'image_url') continue;
    const img = p.image_url;
    const url =
      typeof img === 'string' ? img : img && typeof img === 'object' ? (img as Record<string, unknown>).url : undefined;
    if (typeof url !== 'string' || url.trim() === '')
      throw invalid(`${field}.parts[${i}].image_url`, 'image_url part requires a non-empty URL');
  }
  // Content is bounded by its own characters (a message of exactly the bound fits); parts by their JSON,
  // since their structure is stored too.
  const size = dto.parts ? JSON.stringify(parts).length : (dto.content ?? '').length;
  if (size > limits.messageMaxChars) {
    const which = dto.parts ? `${field}.parts` : `${field}.content`;
    const what = dto.parts ? `take ${size} characters as JSON` : `is ${size} characters`;
    throw invalid(
      which,
      `${which} ${what}; at most ${limits.messageMaxChars} are allowed (MUNINN_SESSION_MESSAGE_MAX_CHARS)`,
    );
  }
  const extra: Record<string, unknown> = {};
  const peer = dto.peer_id?.trim();
  if (peer) {
    if (!PEER_ID.test(peer) || peer === '.' || peer === '..' || peer.split('@').length > 2) {
      throw invalid(`${field}.peer_id`, `${field}.peer_id must match ^[a-zA-Z0-9_.@-]+$ (not . or .., at most one @)`);
    }
    extra.peer_id = peer;
  }
  if (dto.created_at !== undefined) extra.created_at = dto.created_at;
  if (dto.turn_id !== undefined) extra.turn_id = dto.turn_id;
  if (dto.message_kind !== undefined) extra.message_kind = dto.message_kind;
  if (dto.source_message_ids !== undefined) extra.source_message_ids = dto.source_message_ids;
  const split = splitToolAggregate(dto.role, parts);
  // Each message of a split tool-result aggregate is tool transport unless the client said otherwise.
  const each =
    split.length > 1 && extra.message_kind === undefined ? { ...extra, message_kind: 'tool_transport' } : extra;
  return split.map((ps) => ({
    role: dto.role,
    content: messageText({ parts: ps }),
    parts: ps,
    tokens: messageTokens({ parts: ps }),
    extra: each,
  }));
}
