import { KernelError, KernelErrorCode } from '../kernel.error';
import { validateActorPeer, validateHeaderId } from './identifier';

describe('validateActorPeer', () => {
  it.each([
    { name: 'absent header', header: undefined, out: null },
    { name: 'null header', header: null, out: null },
    { name: 'empty header', header: '', out: null },
    { name: 'whitespace only', header: '   ', out: null },
    { name: 'plain id', header: 'current', out: 'current' },
    { name: 'trimmed', header: '  bot-1  ', out: 'bot-1' },
    { name: 'one @ allowed', header: 'agent@host', out: 'agent@host' },
    { name: 'dots and underscores', header: 'a.b_c', out: 'a.b_c' },
  ])('accepts $name', ({ header, out }) => {
    expect(validateActorPeer(header, 128)).toBe(out);
  });

  it.each([
    { name: 'slash', header: 'a/b', message: 'actor_peer_id must not contain path separators.' },
    { name: 'backslash', header: 'a\\b', message: 'actor_peer_id must not contain path separators.' },
    { name: 'dot', header: '.', message: "Invalid peer_id: peer_id must not be '.' or '..'" },
    { name: 'dot-dot', header: '..', message: "Invalid peer_id: peer_id must not be '.' or '..'" },
    { name: 'space inside', header: 'a b', message: 'Invalid peer_id: peer_id must be alpha_numeric string.' },
    { name: 'non-ascii', header: 'pé', message: 'Invalid peer_id: peer_id must be alpha_numeric string.' },
    { name: 'two @', header: 'a@b@c', message: 'Invalid peer_id: peer_id must have at most one @.' },
    {
      name: 'over the id bound',
      header: 'p'.repeat(129),
      message: 'Invalid peer_id: peer_id has 129 characters; at most 128 are allowed (MUNINN_ID_MAX_CHARS)',
    },
  ])('rejects $name', ({ header, message }) => {
    let caught: unknown;
    try {
      validateActorPeer(header, 128);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(KernelError);
    expect((caught as KernelError).code).toBe(KernelErrorCode.InvalidArgument);
    expect((caught as KernelError).message).toBe(message);
  });
});

describe('validateHeaderId', () => {
  it('trims, maps empty to null, and applies the id rules and bound naming the header', () => {
    expect(validateHeaderId('  acme ', 'account_id', 16)).toBe('acme');
    expect(validateHeaderId('', 'user_id', 16)).toBeNull();
    expect(validateHeaderId(undefined, 'user_id', 16)).toBeNull();
    expect(() => validateHeaderId('..', 'account_id', 16)).toThrow(
      "Invalid X-OpenViking-Account header: account_id must not be '.' or '..'",
    );
    expect(() => validateHeaderId('a/b', 'user_id', 16)).toThrow(
      'Invalid X-OpenViking-User header: user_id must be alpha_numeric string.',
    );
    expect(() => validateHeaderId('u'.repeat(17), 'user_id', 16)).toThrow('at most 16 are allowed');
  });
});
