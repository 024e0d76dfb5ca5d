import { plannedQueries } from './planned-queries';

describe('plannedQueries', () => {
  it.each([
    { name: 'no planner output', planned: [], out: ['q'] },
    { name: 'original first, then two distinct', planned: ['a', 'b', 'c'], out: ['q', 'a', 'b'] },
    {
      name: 'duplicates, blanks and the original skipped',
      planned: [' q ', '', 'a', 'a', null, ' b '],
      out: ['q', 'a', 'b'],
    },
    { name: 'trimmed', planned: ['  spaced  '], out: ['q', 'spaced'] },
  ])('$name', ({ planned, out }) => {
    expect(plannedQueries('q', planned)).toEqual(out);
  });
});
