import { defaultContextLimit } from './context-bounds';

describe('defaultContextLimit', () => {
  it.each([
    [64, 10],
    [800, 12],
    [1600, 25],
    [3200, 50],
    [32000, 500],
  ])('max_tokens %i → %i candidates', (maxTokens, limit) => {
    expect(defaultContextLimit(maxTokens)).toBe(limit);
  });
});
