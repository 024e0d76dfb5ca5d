import { KernelError, KernelErrorCode } from '../kernel.error';
import { canRead, canWrite } from './access';
import { defaultTargets } from './default-targets';
import { resolveFindTargets } from './find-targets';
import { Identity, openContext } from './identity';

const U = 'viking://user/alice';
const user: Identity = { accountId: 'acme', userId: 'alice', role: 'user', actorPeerId: null };
const actor: Identity = { ...user, actorPeerId: 'current' };
const admin: Identity = { ...user, role: 'admin' };
const root: Identity = { accountId: 'acme', userId: 'default', role: 'root', actorPeerId: null };

function failure(run: () => unknown): KernelError {
  try {
    run();
  } catch (error) {
    if (error instanceof KernelError) return error;
    throw error;
  }
  throw new Error('expected a KernelError');
}

describe('defaultTargets', () => {
  it.each([
    { name: 'root is unrestricted', who: root, type: undefined, out: [] },
    { name: 'root has no typed defaults either', who: root, type: 'resource' as const, out: [] },
    { name: 'user without actor', who: user, type: undefined, out: [U, 'viking://resources'] },
    {
      name: 'user with actor (no agent skills)',
      who: actor,
      type: undefined,
      out: [
        'viking://resources',
        `${U}/memories`,
        `${U}/resources`,
        `${U}/skills`,
        `${U}/peers/current/memories`,
        `${U}/peers/current/resources`,
      ],
    },
    { name: 'memory without actor', who: user, type: 'memory' as const, out: [U] },
    {
      name: 'memory with actor',
      who: actor,
      type: 'memory' as const,
      out: [`${U}/memories`, `${U}/peers/current/memories`],
    },
    {
      name: 'resource without actor: whole user root',
      who: user,
      type: 'resource' as const,
      out: ['viking://resources', U],
    },
    {
      name: 'resource with actor',
      who: actor,
      type: 'resource' as const,
      out: ['viking://resources', `${U}/resources`, `${U}/peers/current/resources`],
    },
    { name: 'skill', who: actor, type: 'skill' as const, out: [`${U}/skills`, 'viking://agent/skills'] },
  ])('$name', ({ who, type, out }) => {
    expect(defaultTargets(who, type)).toEqual(out);
  });
});

describe('resolveFindTargets', () => {
  it.each([
    { name: 'undefined → defaults', who: user, target: undefined, out: [U, 'viking://resources'] },
    { name: 'empty string → defaults', who: user, target: '', out: [U, 'viking://resources'] },
    { name: 'ignored entries → defaults', who: user, target: ['', '/', 'viking://'], out: [U, 'viking://resources'] },
    { name: 'root with nothing → unrestricted', who: root, target: '', out: [] },
    { name: 'explicit resources', who: user, target: 'viking://resources/docs', out: ['viking://resources/docs'] },
    { name: 'home alias expands', who: user, target: 'viking://~/memories', out: [`${U}/memories`] },
    { name: 'duplicates collapse', who: user, target: ['viking://~/skills', `${U}/skills`], out: [`${U}/skills`] },
    { name: 'user root without actor', who: user, target: U, out: [U] },
    {
      name: 'user root with actor applies the view',
      who: actor,
      target: 'viking://~',
      out: [
        `${U}/memories`,
        `${U}/resources`,
        `${U}/skills`,
        `${U}/peers/current/memories`,
        `${U}/peers/current/resources`,
      ],
    },
    { name: 'peers collection without actor: whole collection', who: user, target: `${U}/peers`, out: [`${U}/peers`] },
    {
      name: 'peers collection with actor: only the actor',
      who: actor,
      target: `${U}/peers`,
      out: [`${U}/peers/current/memories`, `${U}/peers/current/resources`],
    },
    {
      name: 'own peer root with actor',
      who: actor,
      target: `${U}/peers/current`,
      out: [`${U}/peers/current/memories`, `${U}/peers/current/resources`],
    },
    {
      name: 'some peer without actor',
      who: user,
      target: `${U}/peers/bob`,
      out: [`${U}/peers/bob/memories`, `${U}/peers/bob/resources`],
    },
    {
      name: 'peer memories subtree',
      who: actor,
      target: `${U}/peers/current/memories/events`,
      out: [`${U}/peers/current/memories/events`],
    },
    { name: 'agent skills', who: actor, target: 'viking://agent/skills', out: ['viking://agent/skills'] },
    { name: 'root may target another user', who: root, target: 'viking://user/bob', out: ['viking://user/bob'] },
  ])('$name', ({ who, target, out }) => {
    expect(resolveFindTargets(who, target)).toEqual(out);
  });

  it.each([
    {
      name: 'another user space',
      who: user,
      target: 'viking://user/bob/memories',
      code: KernelErrorCode.PermissionDenied,
      message: 'Access denied for viking://user/bob/memories',
    },
    {
      name: 'the bare user container',
      who: user,
      target: 'viking://user',
      code: KernelErrorCode.PermissionDenied,
      message: 'Access denied for viking://user',
    },
    {
      name: 'another peer while an actor is set',
      who: actor,
      target: `${U}/peers/bob`,
      code: KernelErrorCode.PermissionDenied,
      message: "Actor peer cannot access another peer's context.",
    },
    {
      name: "another peer's memories while an actor is set",
      who: actor,
      target: `${U}/peers/bob/memories`,
      code: KernelErrorCode.PermissionDenied,
      message: "Actor peer cannot access another peer's context.",
    },
    {
      name: 'non-searchable peer subtree',
      who: user,
      target: `${U}/peers/bob/sessions`,
      code: KernelErrorCode.InvalidArgument,
      message: 'Only peer memories and resources are searchable.',
    },
    {
      name: 'legacy uid-less target',
      who: user,
      target: 'viking://user/memories',
      code: KernelErrorCode.InvalidUri,
      message: expect.stringContaining('Invalid URI'),
    },
  ])('rejects $name', ({ who, target, code, message }) => {
    const error = failure(() => resolveFindTargets(who, target));
    expect(error.code).toBe(code);
    expect(error.message).toEqual(message);
  });
});

describe('canRead / canWrite', () => {
  it.each([
    { name: 'user reads own memories', who: user, uri: `${U}/memories/events/a.md`, read: true, write: true },
    { name: 'user reads own root', who: user, uri: U, read: true, write: true },
    {
      name: 'user reads shared resources and may add to them',
      who: user,
      uri: 'viking://resources/x',
      read: true,
      write: true,
    },
    {
      name: 'user reads agent skills but may not change them',
      who: user,
      uri: 'viking://agent/skills/s',
      read: true,
      write: false,
    },
    { name: 'admin may change agent skills', who: admin, uri: 'viking://agent/skills/s', read: true, write: true },
    { name: 'user cannot see another user', who: user, uri: 'viking://user/bob/memories', read: false, write: false },
    {
      name: 'admin cannot write another user',
      who: admin,
      uri: 'viking://user/bob/memories',
      read: false,
      write: false,
    },
    {
      name: 'user-id prefix is not ownership',
      who: user,
      uri: 'viking://user/alice2/memories',
      read: false,
      write: false,
    },
    { name: 'actor sees the peers collection', who: actor, uri: `${U}/peers`, read: true, write: true },
    { name: 'actor sees its own peer', who: actor, uri: `${U}/peers/current/memories/x.md`, read: true, write: true },
    {
      name: 'actor does not see another peer',
      who: actor,
      uri: `${U}/peers/bob/memories/x.md`,
      read: false,
      write: false,
    },
    {
      name: 'no actor: every own peer visible',
      who: user,
      uri: `${U}/peers/bob/memories/x.md`,
      read: true,
      write: true,
    },
    {
      name: 'actor view leaves non-peer content alone',
      who: actor,
      uri: `${U}/resources/r.md`,
      read: true,
      write: true,
    },
    { name: 'the namespace root lists but is not writable', who: user, uri: 'viking://', read: true, write: false },
    {
      name: 'root reads and writes anything in its account',
      who: root,
      uri: 'viking://user/bob/memories',
      read: true,
      write: true,
    },
    { name: 'root still cannot write the namespace root', who: root, uri: 'viking://', read: true, write: false },
    { name: 'non-viking input is refused', who: root, uri: '/etc/passwd', read: false, write: false },
  ])('$name', ({ who, uri, read, write }) => {
    expect(canRead(who, uri)).toBe(read);
    expect(canWrite(who, uri)).toBe(write);
  });

  it('openContext drops only the actor view', () => {
    expect(openContext(actor)).toEqual({ ...actor, actorPeerId: null });
  });
});
