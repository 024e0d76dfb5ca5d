import { KernelErrorCode } from '../kernel.error';
import {
  decideIdempotency,
  idempotencyKeyProblem,
  IdempotencyRecord,
  keepsReply,
  readPendingIndexWait,
} from './idempotency';

describe('idempotency keys', () => {
  const reply = { status: 200, contentType: 'application/json', body: '{"status":"ok"}' };
  const record = (over: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
    fingerprint: 'sent-f',
    canonicalFingerprint: 'f',
    applied: false,
    reply: null,
    leaseExpired: false,
    ...over,
  });

  it('accepts printable ASCII up to the bound and names the header otherwise', () => {
    expect(idempotencyKeyProblem('0b6f3c1e-7f0a-4a63-9d55-0c1f7a1d2b3c', 255)).toBeNull();
    expect(idempotencyKeyProblem('x'.repeat(16), 16)).toBeNull();
    for (const bad of ['', 'x'.repeat(17), 'a b', 'tab\there', 'é', 'a, b'])
      expect(idempotencyKeyProblem(bad, 16)).toMatchObject({
        code: KernelErrorCode.InvalidArgument,
        details: { field: 'Idempotency-Key' },
      });
  });

  it('replays a finished attempt of the same request, whatever it applied', () => {
    expect(
      decideIdempotency(record({ reply, applied: true, leaseExpired: true }), { value: 'f', asSent: 'sent-f' }),
    ).toEqual({
      kind: 'replay',
      reply,
    });
  });

  it('takes a retry in another key order by the canonical digest, and a key of the version before by the digest as sent', () => {
    expect(decideIdempotency(record({ reply }), { value: 'f', asSent: 'sent-reordered' })).toEqual({
      kind: 'replay',
      reply,
    });
    const before = record({ reply, fingerprint: 'sent-f', canonicalFingerprint: null });
    expect(decideIdempotency(before, { value: 'whatever', asSent: 'sent-f' })).toEqual({ kind: 'replay', reply });
    expect(decideIdempotency(before, { value: 'f', asSent: 'sent-g' })).toMatchObject({ kind: 'refuse' });
  });

  it('refuses another request with the key (422) before anything else', () => {
    for (const r of [record(), record({ reply }), record({ leaseExpired: true })])
      expect(decideIdempotency(r, { value: 'g', asSent: 'sent-g' })).toMatchObject({
        kind: 'refuse',
        error: { code: KernelErrorCode.IdempotencyKeyReused, details: { reason: 'different_request' } },
      });
  });

  it('refuses while the first attempt holds its lease, takes over only one that changed nothing', () => {
    expect(decideIdempotency(record(), { value: 'f', asSent: 'sent-f' })).toMatchObject({
      kind: 'refuse',
      error: { code: KernelErrorCode.Conflict, details: { reason: 'in_progress', retry_after_s: 1 } },
    });
    expect(decideIdempotency(record({ applied: true }), { value: 'f', asSent: 'sent-f' })).toMatchObject({
      error: { details: { reason: 'in_progress' } },
    });
    expect(decideIdempotency(record({ leaseExpired: true }), { value: 'f', asSent: 'sent-f' })).toEqual({
      kind: 'take-over',
    });
    expect(
      decideIdempotency(record({ leaseExpired: true, applied: true }), { value: 'f', asSent: 'sent-f' }),
    ).toMatchObject({
      kind: 'refuse',
      error: { code: KernelErrorCode.Conflict, details: { reason: 'reply_lost' } },
    });
  });

  it('keeps the reply of an attempt that applied something or succeeded', () => {
    expect([keepsReply(200, false), keepsReply(500, true), keepsReply(400, true)]).toEqual([true, true, true]);
    expect([keepsReply(400, false), keepsReply(429, false), keepsReply(503, false)]).toEqual([false, false, false]);
  });

  it('reads back only a kept wait it can resume', () => {
    const wait = {
      route: 'write',
      answer: { uri: 'viking://resources/a.md' },
      entries: [{ outboxId: 7, jobId: null, nodes: 1 }],
      timeoutS: null,
      startedAt: 1,
    };
    expect(readPendingIndexWait(wait)).toEqual(wait);
    for (const bad of [
      null,
      'x',
      { ...wait, route: 'upload' },
      { ...wait, answer: null },
      { ...wait, answer: [] },
      { ...wait, entries: [null] },
      { ...wait, entries: [{ outboxId: '7', jobId: null, nodes: 1 }] },
      { ...wait, entries: [{ outboxId: 7, jobId: 3, nodes: 1 }] },
      { ...wait, entries: [{ outboxId: 7, jobId: null, nodes: -1 }] },
      { ...wait, timeoutS: 'soon' },
      { ...wait, startedAt: undefined },
    ])
      expect(readPendingIndexWait(bad)).toBeNull();
  });
});
