import { StageTimer } from './stage-timer';

describe('StageTimer', () => {
  it('adds the wall time of each stage, keeps first-timed order and rounds to hundredths', async () => {
    let t = 0;
    const timer = new StageTimer(() => t);
    await timer.time('sql', () => {
      t += 2.345;
    });
    timer.add('embed', 1);
    await timer.time('sql', async () => {
      t += 1;
      return Promise.resolve();
    });
    expect(timer.timings()).toEqual({ sql: 3.35, embed: 1 });
    expect(Object.keys(timer.timings())).toEqual(['sql', 'embed']);
  });

  it('counts a failed stage and rethrows; negative or non-finite spans count as 0', async () => {
    let t = 10;
    const timer = new StageTimer(() => t);
    await expect(
      timer.time('read', () => {
        t += 4;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    timer.add('skew', -3);
    timer.add('nan', Number.NaN);
    expect(timer.timings()).toEqual({ read: 4, skew: 0, nan: 0 });
  });
});
