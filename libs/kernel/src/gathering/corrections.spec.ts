import { correctedQuery } from '../text/spelling-variants';
import { correctionsOf, MAX_LISTED_CORRECTIONS } from './corrections';
import { RetrievalOutcome } from './retrieval-merge';

const call = {} as RetrievalOutcome['call'];

describe('correctionsOf', () => {
  it("keeps each word once, the first call's reading first, and skips failed calls", () => {
    const outcomes: RetrievalOutcome[] = [
      { call, result: { memories: [], corrected: [{ from: 'kayka', to: 'kayak' }] } },
      { call, error: { name: 'X', message: 'down' } as never },
      { call, result: null },
      {
        call,
        result: {
          memories: [],
          corrected: [
            { from: 'kayka', to: 'kayaks' },
            { from: 'pottrey', to: 'pottery' },
          ],
        },
      },
    ];
    expect(correctionsOf(outcomes)).toEqual([
      { from: 'kayka', to: 'kayak' },
      { from: 'pottrey', to: 'pottery' },
    ]);
    expect(correctionsOf([])).toEqual([]);
  });

  it('lists at most MAX_LISTED_CORRECTIONS words however many queries were searched', () => {
    const many: RetrievalOutcome[] = Array.from({ length: 10 }, (_, q) => ({
      call,
      result: { corrected: Array.from({ length: 4 }, (_, w) => ({ from: `word${q}x${w}`, to: 'w' })) },
    }));
    expect(correctionsOf(many)).toHaveLength(MAX_LISTED_CORRECTIONS);
  });
});

describe('correctedQuery', () => {
  it('replaces whole words in any case, never inside another word', () => {
    const fix = [{ from: 'kayka', to: 'kayak' }];
    expect(correctedQuery('Any Kayka plans? kayka!', fix)).toBe('Any kayak plans? kayak!');
    expect(correctedQuery('kaykas and xkayka stay', fix)).toBe('kaykas and xkayka stay');
    expect(correctedQuery('no change', [])).toBe('no change');
  });

  it('ignores a correction that is not a plain word (it never comes from the store)', () => {
    expect(correctedQuery('a.*b', [{ from: '.*', to: 'x' }])).toBe('a.*b');
  });
});
