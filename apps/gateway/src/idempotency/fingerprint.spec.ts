import type { Identity } from '@app/kernel';
import { callFingerprint, requestFingerprint } from './fingerprint';

/** The query as the router hands it over: a name's one value, or its values in order. */
const parsedQuery = (url: string, raw = false) => {
  const query: Record<string, string | string[]> = {};
  const pairs = raw
    ? (url.split('?')[1] ?? '').split('&').map((p) => p.split('=') as [string, string])
    : [...new URL(url, 'http://x').searchParams];
  for (const [k, v] of pairs) {
    const had = query[k];
    query[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v];
  }
  return query;
};
const fingerprint = (url: string, body: unknown, peer?: string, raw = false) =>
  requestFingerprint({
    method: 'POST',
    url,
    query: parsedQuery(url, raw),
    body,
    headers: peer ? { 'x-openviking-actor-peer': peer } : {},
  } as never);
const request = (url: string, body: unknown, peer?: string) => fingerprint(url, body, peer).value;

describe('request fingerprints', () => {
  it('are the same for keys in another order at any depth, and for reordered or re-encoded query parameters', () => {
    const a = { uri: 'viking://x', ops: [{ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } }], 10: 'ten', 9: 'nine' };
    const b = { 9: 'nine', ops: [{ a: { c: null, d: [1, { e: 3, f: 2 }] }, b: 1 }], 10: 'ten', uri: 'viking://x' };
    expect(request('/p?x=1&y=a%20b', a)).toBe(request('/p?y=a+b&x=1', b));
  });

  it('take the query as the router parsed it: values it could not decode stay apart', () => {
    // The router keeps a value whose escapes are not UTF-8 as sent; re-encoding them would make all three one.
    const [ff, fe, replacement] = ['a%FF', 'a%FE', 'a%EF%BF%BD'].map((v) =>
      fingerprint(`/fs?uri=${v}`, null, undefined, true),
    );
    expect(new Set([ff.value, fe.value, replacement.value]).size).toBe(3);
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
    const f = fingerprint('/p?b=1&a=2', { b: 1, a: 2 });
    const sorted = fingerprint('/p?a=2&b=1', { a: 2, b: 1 });
    expect(f.value).toBe(sorted.value);
    expect(f.asSent).not.toBe(sorted.asSent);
  });

  it('are never equal between a tool call and a REST request, and sort tool arguments', () => {
    const caller = { accountId: 'a', userId: 'u' } as Identity;
    expect(callFingerprint(caller, 'write', { uri: 'x', content: 'y' }).value).toBe(
      callFingerprint(caller, 'write', { content: 'y', uri: 'x' }).value,
    );
    expect(callFingerprint(caller, 'write', { uri: 'x' }).value).not.toBe(request('/write', { uri: 'x' }));
  });
});
