import { candidate } from '../testing/candidate';
import { Candidate } from '../tiering/candidate';
import { breadthShare, planEntries } from '../planning/plan-entries';
import { focusTerms, focusWeights, queryExcerpt } from './query-excerpt';

const U = 'viking://user/u';
const turns = Array.from(
  { length: 40 },
  (_, i) => `[D1:${i + 1}] Ann: small talk number ${i + 1} about nothing in particular today.`,
);
turns[27] = '[D1:28] Ann: I adopted a greyhound named Biscuit from the shelter last week.';
const BODY = `# Summary\nMonday 8 May 2023, session 1, Ann and Bo.\n[D1:1] Ann: hello\n# 2023-05-08 ChatLog:\n${turns.join('\n')}\n`;

const eventCandidate = (uri: string, score: number, abstract: string) => candidate(uri, 'events', { score, abstract });

describe('query excerpts', () => {
  it('focus terms: stemmed words without function words; CJK pairs', () => {
    expect(focusTerms('What did Ann name the greyhound she adopted?')).toEqual(['ann', 'name', 'greyhound', 'adopt']);
    expect(focusTerms('她喜欢猫')).toEqual(['她喜', '喜欢', '欢猫']);
  });

  it('serves the matching line whole, under the summary head, with gaps marked', () => {
    const weights = focusWeights(focusTerms('Which dog did Ann adopt from the shelter?'), [BODY]);
    const text = queryExcerpt(BODY, weights, 60)!;
    expect(text.split('\n')[0]).toMatch(/^Monday 8 May 2023,/);
    expect(text).toContain(turns[27]);
    expect(text).toContain('…');
    expect(text).not.toContain('small talk number 3 ');
  });

  it("never serves the head's own line a second time", () => {
    const summary = 'Ann and Bo talked about the greyhound Ann adopted, the shelter, the vet and the long walks.';
    const body = `# Summary\n${summary}\n# ChatLog:\n${turns.join('\n')}\n`;
    const text = queryExcerpt(body, focusWeights(focusTerms('Which greyhound did Ann adopt?'), [body]), 80)!;
    expect(text.startsWith('Ann and Bo talked')).toBe(true);
    expect(text.split('the greyhound Ann adopted').length - 1).toBeLessThanOrEqual(1);
    expect(text).toContain(turns[27]);
  });

  it('a term on every line counts for little: the rare match wins the room', () => {
    const chat = [
      ...Array.from({ length: 30 }, (_, i) => `Ann: today we chatted about item ${i}, nothing much today.`),
      'Ann: the greyhound came home.',
    ].join('\n');
    const weights = focusWeights(focusTerms('What did Ann say today about the greyhound?'), [chat]);
    const text = queryExcerpt(chat, weights, 20)!;
    expect(text).toContain('the greyhound came home');
    expect(text).not.toContain('item 0,');
  });

  it.each([
    ['ends the line', '[D2:21] Bo: Which shelter did you adopt the greyhound from?'],
    ['is followed by a caption', '[D2:21] Bo: Which shelter did you adopt the greyhound from? [shares a photo]'],
    [
      'is full-width, as Chinese and Japanese chat write it',
      '[D2:21] Bo: Which shelter did you adopt the greyhound from？',
    ],
  ])('the line after a matching question (the "?" %s) is served with it: it holds the answer', (_, question) => {
    const chat = [
      ...Array.from({ length: 20 }, (_, i) => `[D2:${i + 1}] Bo: the weather was fine on day ${i + 1}.`),
      question,
      '[D2:22] Cy: Elm Street, last spring.',
      '[D2:23] Bo: I adopted a cat once.',
    ].join('\n');
    const text = queryExcerpt(chat, focusWeights(focusTerms('Where did they adopt the greyhound?'), [chat]), 36)!;
    expect(text).toContain('[D2:22] Cy: Elm Street, last spring.');
    expect(text).toContain('[D2:21]');
  });

  it('null when no line matches (the plain overview is served instead)', () => {
    expect(queryExcerpt(BODY, focusWeights(['zebra'], [BODY]), 100)).toBeNull();
  });

  it('an 800-token block serves the evidence line of a long event instead of its leading text', () => {
    const c = eventCandidate(`${U}/memories/events/s1.md`, 0.8, BODY);
    const contents = new Map([[c.baseUri, BODY]]);
    const plain = planEntries({ candidates: [c], contents, maxTokens: 200 });
    expect(plain.entries[0]!.text).not.toContain('greyhound');
    const focused = planEntries({ candidates: [c], contents, maxTokens: 200, query: 'Which greyhound did Ann adopt?' });
    expect(focused.entries[0]!.detail).toBe('overview');
    expect(focused.entries[0]!.text).toContain(turns[27]);
    expect(focused.stats.usedTokens).toBeLessThanOrEqual(200);
  });

  it('is linear in the body: a 100 000-line body is excerpted from its first lines only', () => {
    const big = Array.from({ length: 100000 }, (_, i) => `line ${i} zebra`).join('\n');
    const text = queryExcerpt(big, focusWeights(['zebra'], [big]), 50)!;
    expect(text.startsWith('line 0 zebra')).toBe(true);
  });
});

/** `n` event candidates in rank order, scores 1, 1 − 1/step, 1 − 2/step, … */
function rankedEvents(n: number, prefix: string, step: number): Candidate[] {
  return Array.from({ length: n }, (_, i) =>
    eventCandidate(`${U}/memories/events/${prefix}${i}.md`, 1 - i / step, 'x'),
  );
}

describe('small budgets: depth before breadth', () => {
  it('breadth first takes 70% of a large budget, and leaves at least 480 tokens (at most 60%) for depth', () => {
    expect(breadthShare(3200)).toBe(2240);
    expect(breadthShare(1600)).toBe(1120);
    expect(breadthShare(800)).toBe(320);
    expect(breadthShare(400)).toBe(160);
  });

  it('at 800 tokens the two best-ranked ~200-token events are served whole', () => {
    const events = rankedEvents(12, 'p', 30);
    const body = (i: number) =>
      `# Summary\npart ${i} of the chat, Ann and Bo\n# ChatLog:\n${Array.from({ length: 12 }, (_, t) => `[D${i}:${t}] Ann: we talked about the weather, the garden and the long walk.`).join('\n')}`;
    const contents = new Map(events.map((c, i) => [c.baseUri, body(i)]));
    const { entries, stats } = planEntries({ candidates: events, contents, maxTokens: 800 });
    expect(entries.slice(0, 2).map((e) => e.detail)).toEqual(['full', 'full']);
    expect(stats.usedTokens).toBeLessThanOrEqual(800);
  });

  it('at a small budget the best-ranked event is served whole before lower-ranked overviews', () => {
    const events = rankedEvents(10, 'e', 20);
    const body = (i: number) =>
      `# Summary\nevent ${i} lead line\n# ChatLog:\n${'we talked about the weather and the garden. '.repeat(12)}`;
    const contents = new Map(events.map((c, i) => [c.baseUri, body(i)]));
    const { entries, stats } = planEntries({ candidates: events, contents, maxTokens: 500 });
    expect(entries[0]!.uri).toBe(events[0]!.baseUri);
    expect(entries[0]!.detail).toBe('full');
    expect(stats.usedTokens).toBeLessThanOrEqual(500);
    expect(stats.returned + stats.dropped + stats.deduped + stats.redundant).toBe(10);
  });
});
