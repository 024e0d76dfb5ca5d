import { ExtractionInput } from '../session/extraction-types';
import { SessionMessage } from '../session/session-message';

// A long, deterministic conversation for the extractor's work-count spec and `bench:extract`'s big mode
// (docs/sessions.md, "Offline extractor"). Test data only: nothing in the product imports it.

export const SYNTHETIC_NAMES = [
  'Marguerite',
  'Tobias',
  'Caroline',
  'Priya',
  'Lisbon',
  'Kyoto',
  'Hendrix',
  'Ravensworth',
];
export const SYNTHETIC_TOPICS = ['hiking', 'painting', 'jazz', 'coffee', 'pottery', 'chess', 'sushi'];

/** Sentence `i` of a long, deterministic conversation: names mid-sentence, likes, favourites, questions, dates. */
function sentence(i: number): string {
  const n = SYNTHETIC_NAMES[(i * 5) % SYNTHETIC_NAMES.length];
  const t = SYNTHETIC_TOPICS[(i * 3) % SYNTHETIC_TOPICS.length];
  switch (i % 6) {
    case 0:
      return `Yesterday I went out with ${n} and we talked about ${t} for hours.`;
    case 1:
      return `I love ${t} more than anything else these days, honestly.`;
    case 2:
      return `My favourite ${t} spot is near the river where ${n} lives.`;
    case 3:
      return `Did you ever try ${t} with ${n} on 12 May 2023?`;
    case 4:
      return `On Thursday ${n} said the ${t} class moved to the 3rd of June ${2020 + (i % 5)}.`;
    default:
      return `We also enjoy ${t} when the weather is good and ${n} joins in.`;
  }
}

/** `turns` turns of about `chars` characters each, alternating user and assistant. */
export function syntheticConversation(turns: number, chars: number, sessionDigest: string): ExtractionInput {
  let next = 0;
  const messages: SessionMessage[] = Array.from({ length: turns }, (_, m) => {
    const words: string[] = [];
    for (let len = 0; len < chars; next++) {
      words.push(sentence(next));
      len += words[words.length - 1].length + 1;
    }
    return {
      id: `m${m}`,
      role: m % 2 ? 'assistant' : 'user',
      parts: [{ type: 'text', text: words.join(' ') }],
      created_at: `2023-05-${String(1 + (m % 28)).padStart(2, '0')}T10:00:00Z`,
    };
  });
  return {
    userId: 'alice',
    sessionId: 's-big1',
    sessionDigest,
    archiveIndex: 1,
    messages,
    nowIso: '2023-06-01T00:00:00Z',
    previousOverview: '',
    eventTags: [],
  };
}
