import { KernelError, KernelErrorCode } from '../kernel.error';
import { canonicalizeUri, parseVikingUri } from './viking-uri';

const U = 'alice';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof KernelError ? error.code : 'not-a-kernel-error';
  }
}

describe('canonicalizeUri', () => {
  it.each([
    { name: 'root stays root', raw: 'viking://', out: 'viking://' },
    { name: 'root with extra slash', raw: 'viking:///', out: 'viking://' },
    { name: 'resources scope', raw: 'viking://resources', out: 'viking://resources' },
    { name: 'trailing slash stripped', raw: 'viking://resources/docs/', out: 'viking://resources/docs' },
    { name: 'several trailing slashes stripped', raw: 'viking://resources/docs///', out: 'viking://resources/docs' },
    { name: 'surrounding whitespace trimmed', raw: '  viking://agent/skills  ', out: 'viking://agent/skills' },
    { name: 'home alias alone', raw: 'viking://~', out: 'viking://user/alice' },
    { name: 'home alias with path', raw: 'viking://~/memories/events', out: 'viking://user/alice/memories/events' },
    { name: 'tilde later in the path is literal', raw: 'viking://resources/~/x', out: 'viking://resources/~/x' },
    { name: 'legacy session alias', raw: 'viking://session/s1', out: 'viking://user/alice/sessions/s1' },
    {
      name: 'legacy session alias with a file',
      raw: 'viking://session/s1/messages.jsonl',
      out: 'viking://user/alice/sessions/s1/messages.jsonl',
    },
    { name: 'legacy session root', raw: 'viking://session', out: 'viking://user/alice/sessions' },
    { name: 'explicit own uid is canonical', raw: 'viking://user/alice/memories', out: 'viking://user/alice/memories' },
    {
      name: 'explicit other uid passes validation',
      raw: 'viking://user/bob/resources',
      out: 'viking://user/bob/resources',
    },
    { name: 'bare user container', raw: 'viking://user', out: 'viking://user' },
    {
      name: 'user literally named like a reserved segment keeps their root',
      raw: 'viking://user/memories/x',
      out: 'viking://user/memories/x',
      userId: 'memories',
    },
    { name: 'non-ascii names are kept', raw: 'viking://resources/笔记/a b.md', out: 'viking://resources/笔记/a b.md' },
    { name: 'ordinary percent-encoding is kept', raw: 'viking://resources/a%20b', out: 'viking://resources/a%20b' },
    { name: 'peer subtree', raw: 'viking://~/peers/bot@x/memories', out: 'viking://user/alice/peers/bot@x/memories' },
  ])('$name', ({ raw, out, userId }) => {
    expect(canonicalizeUri(raw, userId ?? U)).toBe(out);
  });

  it.each([
    { name: 'empty string', raw: '' },
    { name: 'whitespace only', raw: '   ' },
    { name: 'wrong scheme', raw: 'http://resources/x' },
    { name: 'scheme in upper case', raw: 'VIKING://resources' },
    { name: 'relative path', raw: 'resources/x' },
    { name: 'dot-dot segment', raw: 'viking://resources/../user/bob' },
    { name: 'dot segment', raw: 'viking://resources/./x' },
    { name: 'encoded dot-dot segment', raw: 'viking://resources/%2E%2e/x' },
    { name: 'double slash (empty segment)', raw: 'viking://resources//x' },
    { name: 'leading empty segment', raw: 'viking:////resources' },
    { name: 'backslash', raw: 'viking://resources\\x' },
    { name: 'encoded slash lower case', raw: 'viking://resources/a%2fb' },
    { name: 'encoded slash upper case', raw: 'viking://resources/a%2Fb' },
    { name: 'encoded backslash', raw: 'viking://resources/a%5Cb' },
    { name: 'NUL control character', raw: 'viking://resources/a\u0000b' },
    { name: 'newline control character', raw: 'viking://resources/a\nb' },
    { name: 'DEL control character', raw: 'viking://resources/a\u007fb' },
    { name: 'unknown scope', raw: 'viking://temp/x' },
    { name: 'internal queue scope', raw: 'viking://queue/x' },
    { name: 'legacy uid-less memories', raw: 'viking://user/memories/events' },
    { name: 'legacy uid-less resources', raw: 'viking://user/resources' },
    { name: 'legacy uid-less skills', raw: 'viking://user/skills/x' },
    { name: 'legacy uid-less peers', raw: 'viking://user/peers/p1' },
    { name: 'legacy uid-less privacy', raw: 'viking://user/privacy' },
    { name: 'legacy uid-less sessions', raw: 'viking://user/sessions/s1' },
    { name: 'invalid user id characters', raw: 'viking://user/al ice/memories' },
    { name: 'user id with two @', raw: 'viking://user/a@b@c' },
    { name: 'invalid peer id', raw: 'viking://user/alice/peers/p!1/memories' },
  ])('rejects $name with INVALID_URI', ({ raw }) => {
    expect(codeOf(() => canonicalizeUri(raw, U))).toBe(KernelErrorCode.InvalidUri);
  });

  it('reports the reference message shape and details', () => {
    try {
      canonicalizeUri('viking://user/memories/x', U);
      throw new Error('expected a failure');
    } catch (error) {
      const failure = error as KernelError;
      expect(failure.message).toMatch(/^Invalid URI: viking:\/\/user\/memories\/x \(.*viking:\/\/~\/memories\/x.*\)$/);
      expect(failure.details).toEqual({ uri: 'viking://user/memories/x', reason: expect.any(String) });
    }
  });

  it.each([
    { name: 'root', raw: 'viking://', scope: '', segments: [] },
    {
      name: 'alias expanded into segments',
      raw: 'viking://~/skills',
      scope: 'user',
      segments: ['user', 'alice', 'skills'],
    },
    { name: 'agent scope', raw: 'viking://agent/skills/a', scope: 'agent', segments: ['agent', 'skills', 'a'] },
  ])('parses $name', ({ raw, scope, segments }) => {
    const parsed = parseVikingUri(raw, U);
    expect(parsed.scope).toBe(scope);
    expect(parsed.segments).toEqual(segments);
  });
});
