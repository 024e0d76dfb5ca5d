import { parseLaxBoolean } from './lax-boolean';

describe('parseLaxBoolean', () => {
  it.each([
    { name: 'true', value: true, out: true },
    { name: '1', value: 1, out: true },
    { name: '"t"', value: 't', out: true },
    { name: '"Yes"', value: 'Yes', out: true },
    { name: '"y"', value: 'y', out: true },
    { name: '"ON"', value: 'ON', out: true },
    { name: 'false', value: false, out: false },
    { name: '0', value: 0, out: false },
    { name: '"f"', value: 'f', out: false },
    { name: '"no"', value: 'no', out: false },
    { name: '"off"', value: 'off', out: false },
    { name: '"0"', value: '0', out: false },
    { name: '"maybe"', value: 'maybe', out: undefined },
    { name: '" true" (untrimmed, as pydantic)', value: ' true', out: undefined },
    { name: '2', value: 2, out: undefined },
    { name: 'null', value: null, out: undefined },
  ])('$name → $out', ({ value, out }) => {
    expect(parseLaxBoolean(value)).toBe(out);
  });
});
