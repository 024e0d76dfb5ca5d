import { ProposedMemory } from './extraction-types';
import { ExistingPage } from './model-extraction';
import { SessionMessage } from './session-message';
import { turnLine, turnsOf } from './turns';

/** Pages shown to the model in one call at most: the earlier windows' newest first, then the stored ones. */
export const WINDOW_PAGES = 40;
/** Event numbers a window may use (a model answer holds at most 50 events); window w numbers from w × this. */
export const EVENTS_PER_WINDOW = 50;

/** An archive cut for the model: the windows it is sent in, and the messages no window took. */
export interface ExtractionWindows {
  windows: SessionMessage[][];
  leftOut: number;
  /** Messages longer than a window (each a window of its own, cut by the prompt), with that window's index. */
  cut: { message: SessionMessage; window: number }[];
}

/**
 * The archive's messages cut at message boundaries into windows whose numbered conversation fits
 * `maxChars` each (docs/sessions.md "Extraction with a model"): a commit larger than one prompt is sent
 * whole, in order, over several calls, instead of only its first `maxChars`. A message longer than a
 * window is a window of its own (the prompt cuts it). At most `maxWindows`; the messages after them are
 * left out and counted. Linear: each message's line is measured once.
 */
export function extractionWindows(messages: SessionMessage[], maxChars: number, maxWindows: number): ExtractionWindows {
  const windows: SessionMessage[][] = [];
  let current: SessionMessage[] = [];
  let used = 0;
  let taken = 0;
  const cut: ExtractionWindows['cut'] = [];
  for (const m of messages) {
    const cost = lineCost(m);
    if (current.length && cost > 0 && used + cost > maxChars) {
      windows.push(current);
      current = [];
      used = 0;
      if (windows.length >= maxWindows) break;
    }
    if (cost > maxChars) cut.push({ message: m, window: windows.length });
    current.push(m);
    used += cost;
    taken += 1;
  }
  if (current.length) windows.push(current);
  return { windows, leftOut: messages.length - taken, cut };
}

/** A message's share of a prompt: its numbered line `[i] [speaker]: text` and newline; 0 when it is no turn. */
function lineCost(m: SessionMessage): number {
  const turn = turnsOf([m])[0];
  return turn ? turnLine(turn).length + 8 : 0;
}

/**
 * The pages the next window's call is shown: what the earlier windows proposed (profile, preferences,
 * entities; the newest version of each) ahead of the stored pages they replace, at most {@link WINDOW_PAGES}.
 */
export function pagesAfter(existing: ExistingPage[], proposed: ProposedMemory[]): ExistingPage[] {
  const key = (p: { path: string; peerId?: string }) => `${p.peerId ?? ''}/${p.path}`;
  const fresh = new Map<string, ExistingPage>();
  for (const m of proposed) {
    if (m.memoryType === 'events') continue;
    const page: ExistingPage = { path: m.path, content: m.content, ...(m.peerId ? { peerId: m.peerId } : {}) };
    fresh.delete(key(page));
    fresh.set(key(page), page);
  }
  const newestFirst = [...fresh.values()].reverse();
  return [...newestFirst, ...existing.filter((p) => !fresh.has(key(p)))].slice(0, WINDOW_PAGES);
}
