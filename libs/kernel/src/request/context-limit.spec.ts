import { defaultContextLimit } from './context-bounds';

describe('defaultContextLimit', () => {
  it.each([
    [64, 10],
    [800, 20],
    [1600, 40],
    [3200, 80],
    [32000, 800],
  ])('max_tokens %i → %i candidates', (maxTokens, limit) => {
    expect(defaultContextLimit(maxTokens)).toBe(limit);
  });
});
