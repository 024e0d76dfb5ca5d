import { AccountReadings } from './account-readings';

describe('AccountReadings', () => {
  const counting = () => {
    const calls: string[] = [];
    let next = 0;
    const read = (account: string) => {
      calls.push(account);
      return Promise.resolve(++next);
    };
    return { calls, read };
  };

  afterEach(() => jest.useRealTimers());

  it('reads an account once per ttl, shares the reading meanwhile, and reads again after it', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { calls, read } = counting();
    const readings = new AccountReadings(1000, read);
    const [a, b] = await Promise.all([readings.get('acme'), readings.get('acme')]);
    expect([a, b]).toEqual([1, 1]);
    expect(await readings.get('other')).toBe(2);
    jest.setSystemTime(1_000_999);
    expect(await readings.get('acme')).toBe(1);
    jest.setSystemTime(1_001_000);
    expect(await readings.get('acme')).toBe(3);
    expect(calls).toEqual(['acme', 'other', 'acme']);
  });

  it('does not keep a failed reading: the next request reads again', async () => {
    let fail = true;
    const readings = new AccountReadings(60_000, () =>
      fail ? Promise.reject(new Error('store away')) : Promise.resolve(7),
    );
    await expect(readings.get('acme')).rejects.toThrow('store away');
    fail = false;
    expect(await readings.get('acme')).toBe(7);
  });

  it('remembers at most 10,000 accounts, dropping the oldest readings first', async () => {
    const { calls, read } = counting();
    const readings = new AccountReadings(60_000, read);
    for (let i = 0; i <= 10_000; i++) await readings.get(`a${i}`);
    expect(calls).toHaveLength(10_001);
    await readings.get('a10000');
    await readings.get('a1');
    expect(calls).toHaveLength(10_001);
    await readings.get('a0');
    expect(calls.slice(10_001)).toEqual(['a0']);
  });
});
