import { createHash } from 'node:crypto';
import { extractOffline, extractOfflineInSteps, manualExtractionName, OFFLINE_STEP_CHARS } from '..';
import { SYNTHETIC_NAMES, SYNTHETIC_TOPICS, syntheticConversation } from '../testing/synthetic-conversation';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

const conversation = (turns: number, chars: number) => syntheticConversation(turns, chars, sha256('s-big1'));

/**
 * Characters the extraction hands to the string builtins that scan their whole receiver (regex
 * replace, split and match, trim, case mapping): a count of work that no clock or machine load moves.
 */
function charactersScanned(run: () => void): number {
  const proto = String.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const names = ['replace', 'replaceAll', 'split', 'match', 'matchAll', 'trim', 'toLowerCase', 'toUpperCase'];
  const originals = names.map((n) => proto[n]);
  let scanned = 0;
  names.forEach((n, i) => {
    proto[n] = function (this: string, ...args: unknown[]) {
      scanned += this.length;
      return originals[i].apply(this, args);
    };
  });
  try {
    run();
  } finally {
    names.forEach((n, i) => (proto[n] = originals[i]));
  }
  return scanned;
}

describe('offline extractor at the session limits (docs/sessions.md "Offline extractor")', () => {
  it('gives the output it gave before the work was made linear (pinned digests)', () => {
    // Digests of the whole extraction (memories, overview, abstract), recorded before the change.
    const out = extractOffline(conversation(6, 3_000));
    expect(out.memories).toHaveLength(21);
    expect(sha256(JSON.stringify(out))).toBe('5e18f2541073cb4a0ad5d4f4ffffa956744443e7e4647d1c715152b4babeb9f0');
    expect(sha256(JSON.stringify(extractOffline(conversation(2, 40_000))))).toBe(
      '4065b43ee6e18ff2791db45a00936dcee833916419bacd58c88f9bce1df01167',
    );
  });

  it('does work linear in the text: four times longer turns, or four times as many, scan about four times as much', () => {
    // A quote line read the whole turn for every sentence naming something: a turn of L characters then
    // cost ~L²/60, and a commit of 80 turns of 90,000 characters held the event loop for minutes.
    const base = charactersScanned(() => extractOffline(conversation(4, 5_000)));
    const longer = charactersScanned(() => extractOffline(conversation(4, 20_000)));
    const more = charactersScanned(() => extractOffline(conversation(16, 5_000)));
    expect(more / base).toBeLessThan(4.5);
    expect(longer / base).toBeLessThan(4.5);
    // And a constant per input character (~21 now; ~250 when each quote line re-read its turn).
    const input = conversation(4, 20_000).messages.reduce((n, m) => n + String(m.parts[0].text).length, 0);
    expect(longer / input).toBeLessThan(40);
  });

  it('in steps: the same output, with a pause after about every OFFLINE_STEP_CHARS characters read', () => {
    const input = conversation(12, 250_000);
    const steps = extractOfflineInSteps(input);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    expect(step.value).toEqual(extractOffline(input));
    // Three passes over 3,000,000 characters (names counted, names quoted, user turns' preferences),
    // plus a pause after the events and one before the summary.
    expect(pauses).toBe(Math.floor(12 / 2) + Math.floor(12 / 2) + Math.floor(6 / 2) + 2);
    expect(OFFLINE_STEP_CHARS).toBe(500_000);
  });

  it('extracts a turn of 2,000,000 characters whole: events, the names and the preferences', () => {
    const out = extractOffline(conversation(1, 2_000_000));
    const byType = (t: string) => out.memories.filter((m) => m.memoryType === t);
    expect(byType('events')).toHaveLength(1);
    expect(byType('entities').map((m) => m.path)).toEqual(
      expect.arrayContaining(SYNTHETIC_NAMES.map((n) => `entities/mentioned/${n.toLowerCase()}.md`)),
    );
    expect(byType('preferences').length).toBeGreaterThanOrEqual(SYNTHETIC_TOPICS.length);
    for (const m of [...byType('entities'), ...byType('preferences')])
      for (const line of m.content.split('\n')) expect(line.length).toBeLessThan(700);
  });
});

describe('event file names of a manual extraction (docs/sessions.md "Manual extraction")', () => {
  it("name the events after the session's creation time, not an archive; a commit's keep its archive", () => {
    expect(manualExtractionName('2026-12-04T06:15:12.345Z')).toBe('manual_20261204t061512345z');
    expect(() => manualExtractionName('not a time')).toThrow(/needs a time/);
    const input = conversation(2, 400);
    const committed = extractOffline(input).memories.filter((m) => m.memoryType === 'events');
    expect(committed.length).toBeGreaterThan(0);
    expect(committed.every((m) => /_archive_001_p\d+\.md$/.test(m.path))).toBe(true);
    const manual = extractOffline({ ...input, extractionName: manualExtractionName('2026-12-04T06:15:12.345Z') });
    const events = manual.memories.filter((m) => m.memoryType === 'events');
    expect(events.map((m) => m.path)).toEqual(
      committed.map((m) => m.path.replace('_archive_001_', '_manual_20261204t061512345z_')),
    );
    expect(events[0].content).toContain('"source_extraction_id": "s-big1/manual_20261204t061512345z"');
  });
});
