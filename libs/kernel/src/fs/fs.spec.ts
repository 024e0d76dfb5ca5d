import { Identity } from '../identity/identity';
import { KernelError } from '../kernel.error';
import { assertDeletable, assertSubtreeChangeable } from './delete-guard';
import { globToRegex } from './glob-pattern';
import { treeOrder } from './tree-order';
import { checkContentWrite, WriteMode } from './write-rules';

describe('globToRegex', () => {
  const matches = (glob: string, path: string) => new RegExp(globToRegex(glob, 'pattern', 256)).test(path);

  it.each([
    ['*.md', 'a.md', true],
    ['*.md', 'docs/a.md', false],
    ['**/*.md', 'a.md', true],
    ['**/*.md', 'docs/deep/a.md', true],
    ['**/*.md', 'docs/a.txt', false],
    ['docs/**', 'docs/x/y', true],
    ['a?c', 'abc', true],
    ['a?c', 'a/c', false],
    ['[ab].md', 'b.md', true],
    ['[!ab].md', 'c.md', true],
    ['[!ab].md', 'a.md', false],
    ['a.b', 'axb', false],
    ['(x)+', '(x)+', true],
    ['笔记/*.md', '笔记/a.md', true],
    ['**/zzz_*.xyz', 'q/zzz_1.xyz', true],
    ['[a-c-e]', '-', true],
    ['[a-c-e]', 'd', false],
  ])('%s vs %s → %s', (glob, path, want) => {
    expect(matches(glob, path)).toBe(want);
  });

  it.each([
    ['[', 'unclosed ['],
    ['a[b', 'unclosed ['],
    ['[z-a]', 'out-of-order range'],
    ['', 'must not be empty'],
    ['   ', 'must not be empty'],
    ['x'.repeat(300), 'longer than 256'],
  ])('refuses %j', (glob, message) => {
    expect(() => globToRegex(glob, 'pattern', 256)).toThrow(KernelError);
    expect(() => globToRegex(glob, 'pattern', 256)).toThrow(message);
  });

  it('is linear: a long run of stars is one class', () => {
    expect(globToRegex('*'.repeat(200), 'pattern', 256)).toBe('^[^/]*$');
  });
});

describe('treeOrder', () => {
  const e = (uri: string, kind: 'file' | 'directory') => ({ uri, kind });
  const base = 'viking://resources/t';
  const all = [
    e('viking://resources/t/sub', 'directory'),
    e('viking://resources/t/sub/a.md', 'file'),
    e('viking://resources/t/sub/deeper', 'directory'),
    e('viking://resources/t/sub/deeper/b.md', 'file'),
    e('viking://resources/t/top.md', 'file'),
    e('viking://resources/t/.hidden', 'file'),
    e('viking://resources/t/aaa.md', 'file'),
  ];

  it('pre-order, directories before files at each level, hidden files dropped', () => {
    const got = treeOrder(base, all, { levelLimit: 3, nodeLimit: 100, showHidden: false });
    const rels = got.entries.map((x) => x.rel);
    expect(rels).toEqual(['sub', 'sub/deeper', 'sub/deeper/b.md', 'sub/a.md', 'aaa.md', 'top.md']);
    expect(got.truncated).toBe(false);
  });

  it('level and node limits', () => {
    const top = treeOrder(base, all, { levelLimit: 1, nodeLimit: 100, showHidden: true });
    expect(top.entries.map((x) => x.rel)).toEqual(['sub', '.hidden', 'aaa.md', 'top.md']);
    const cut = treeOrder(base, all, { levelLimit: 3, nodeLimit: 1, showHidden: false });
    expect([cut.entries.length, cut.truncated]).toEqual([1, true]);
  });
});

describe('checkContentWrite', () => {
  const refusal = (uri: string, mode: WriteMode, field?: string) => {
    try {
      checkContentWrite(uri, mode, field);
      return null;
    } catch (e) {
      return { code: (e as KernelError).code, field: (e as KernelError).details?.field };
    }
  };

  it.each([
    'viking://user',
    'viking://resources',
    'viking://agent',
    'viking://agent/skills',
    'viking://user/eve',
    'viking://user/eve/memories',
    'viking://user/eve/resources',
    'viking://user/eve/skills',
    'viking://user/eve/sessions',
  ])('no file takes the place of the standing directory %s, in any mode', (uri) => {
    for (const mode of ['replace', 'append', 'create', 'upsert'] as const)
      expect([mode, refusal(uri, mode)]).toEqual([mode, { code: 'INVALID_ARGUMENT', field: 'uri' }]);
  });

  it('upsert passes the rules of create; the refusal names the given field', () => {
    expect(refusal('viking://resources/tool.exe', 'upsert', 'operations[3].uri')).toEqual({
      code: 'INVALID_ARGUMENT',
      field: 'operations[3].uri',
    });
    expect(refusal('viking://resources/tool.exe', 'replace')).toBeNull();
    expect(refusal('viking://user/eve/skills/s.md', 'upsert')).toBeNull();
    expect(refusal('viking://resources/skills', 'replace')).toBeNull();
  });
});

describe('removal guards', () => {
  const user: Identity = { accountId: 'a', userId: 'pat', role: 'user', actorPeerId: null };
  const admin: Identity = { ...user, role: 'admin' };

  it('a move of a namespace root is refused like its delete, and says so', () => {
    expect(() => assertDeletable(admin, 'viking://resources', 'Moving')).toThrow(
      'Moving viking://resources is not supported: namespace root requires root access.',
    );
    expect(() => assertDeletable(admin, 'viking://user', 'Moving')).toThrow('move a file or directory below it');
    expect(() => assertDeletable({ ...admin, role: 'root' }, 'viking://resources', 'Moving')).not.toThrow();
  });

  it('a shared directory changes as a whole only for admins; a user space stays its owner’s', () => {
    expect(() => assertSubtreeChangeable(user, 'viking://resources/proj', 'Moving')).toThrow(
      'Moving a directory of the shared resources tree needs role admin: viking://resources/proj',
    );
    expect(() => assertSubtreeChangeable(admin, 'viking://resources/proj', 'Moving')).not.toThrow();
    expect(() => assertSubtreeChangeable(user, 'viking://user/pat/resources/x')).not.toThrow();
  });
});
