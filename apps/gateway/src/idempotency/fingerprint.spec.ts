import type { Identity } from '@app/kernel';
import { callFingerprint, requestFingerprint } from './fingerprint';

const request = (url: string, body: unknown, peer?: string) =>
  requestFingerprint({ method: 'POST', url, body, headers: peer ? { 'x-openviking-actor-peer': peer } : {} } as never)
    .value;

describe('request fingerprints', () => {
  it('are the same for keys in another order at any depth, and for reordered or re-encoded query parameters', () => {
    const a = { uri: 'viking://x', ops: [{ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } }], 10: 'ten', 9: 'nine' };
    const b = { 9: 'nine', ops: [{ a: { c: null, d: [1, { e: 3, f: 2 }] }, b: 1 }], 10: 'ten', uri: 'viking://x' };
    expect(request('/p?x=1&y=a%20b', a)).toBe(request('/p?y=a+b&x=1', b));
  });

  it('keep a key named __proto__ as a key', () => {
    const a = JSON.parse('{"z":1,"__proto__":{"x":1}}') as unknown;
    const b = JSON.parse('{"z":1,"__proto__":{"x":2}}') as unknown;
    expect(request('/p', a)).not.toBe(request('/p', b));
  });

  it('tell apart what a request means: values, array order, a repeated parameter, path, peer', () => {
    const base = request('/p?x=1&x=2', { list: [1, 2], v: 'a' });
    for (const other of [
      request('/p?x=1&x=2', { list: [2, 1], v: 'a' }),
      request('/p?x=1&x=2', { list: [1, 2], v: 'b' }),
      request('/p?x=1&x=2', { list: [1, 2], v: 'a', w: null }),
      request('/p?x=2&x=1', { list: [1, 2], v: 'a' }),
      request('/q?x=1&x=2', { list: [1, 2], v: 'a' }),
      request('/p?x=1&x=2', { list: [1, 2], v: 'a' }, 'peer-b'),
    ])
      expect(other).not.toBe(base);
  });

  it('count an uploaded body as its bytes, and keep the digest earlier versions stored over the request as sent', () => {
    expect(request('/u', Buffer.from('ab'))).not.toBe(request('/u', Buffer.from('ba')));
    const f = requestFingerprint({ method: 'POST', url: '/p?b=1&a=2', body: { b: 1, a: 2 }, headers: {} } as never);
    const sorted = requestFingerprint({
      method: 'POST',
      url: '/p?a=2&b=1',
      body: { a: 2, b: 1 },
      headers: {},
    } as never);
    expect(f.value).toBe(sorted.value);
    expect(f.earlier?.()).not.toBe(sorted.earlier?.());
  });

  it('are never equal between a tool call and a REST request, and sort tool arguments', () => {
    const caller = { accountId: 'a', userId: 'u' } as Identity;
    expect(callFingerprint(caller, 'write', { uri: 'x', content: 'y' }).value).toBe(
      callFingerprint(caller, 'write', { content: 'y', uri: 'x' }).value,
    );
    expect(callFingerprint(caller, 'write', { uri: 'x' }).value).not.toBe(request('/write', { uri: 'x' }));
  });
});
