import { SessionMessage, spokenText } from './session-message';

/** One spoken turn: who said it, what, and the message it came from. */
export interface Turn {
  id: string;
  role: string;
  speaker: string;
  text: string;
  createdAt: string | undefined;
}

/** The user and assistant turns of an archive that say something (tool steps and empty ones dropped). */
export function turnsOf(messages: SessionMessage[]): Turn[] {
  return messages
    .filter((m) => m.role === 'user' || m.role === 'assistant')
    .map((m) => ({
      id: m.id,
      role: m.role,
      speaker: m.peer_id ?? m.role,
      text: spokenText(m),
      createdAt: m.created_at,
    }))
    .filter((t) => t.text.length > 0);
}

// Split and trim rather than /\s*\n\s*/: that regex rescans long runs of spaces (quadratic on hostile text).
export const turnLine = (t: Turn): string =>
  `[${t.speaker}]: ${t.text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ')}`;
