import { baseName, isUnder, parentUri, stripSidecarSuffix, uriSegments, userRoot } from './uri-path';

describe('uri path helpers', () => {
  it.each([
    {
      name: 'deep file',
      uri: 'viking://user/u/memories/events/a.md',
      parent: 'viking://user/u/memories/events',
      base: 'a.md',
    },
    { name: 'scope root', uri: 'viking://resources', parent: 'viking://', base: 'resources' },
    { name: 'trailing slash ignored', uri: 'viking://resources/docs/', parent: 'viking://resources', base: 'docs' },
    { name: 'the root itself', uri: 'viking://', parent: null, base: '' },
  ])('parentUri / baseName: $name', ({ uri, parent, base }) => {
    expect(parentUri(uri)).toBe(parent);
    expect(baseName(uri)).toBe(base);
  });

  it.each([
    { name: 'equal URIs', uri: 'viking://resources', prefix: 'viking://resources', under: true },
    { name: 'child', uri: 'viking://resources/a', prefix: 'viking://resources', under: true },
    {
      name: 'sibling sharing a prefix string',
      uri: 'viking://resourcesX/a',
      prefix: 'viking://resources',
      under: false,
    },
    {
      name: 'peer id prefix is not a match',
      uri: 'viking://user/u/peers/bob2/x',
      prefix: 'viking://user/u/peers/bob',
      under: false,
    },
    { name: 'everything is under the root', uri: 'viking://agent/skills', prefix: 'viking://', under: true },
    { name: 'parent is not under its child', uri: 'viking://resources', prefix: 'viking://resources/a', under: false },
    { name: 'trailing slash on prefix', uri: 'viking://resources/a', prefix: 'viking://resources/', under: true },
    { name: 'non-viking input', uri: '/etc/passwd', prefix: 'viking://', under: false },
  ])('isUnder: $name', ({ uri, prefix, under }) => {
    expect(isUnder(uri, prefix)).toBe(under);
  });

  it.each([
    {
      name: 'abstract sidecar',
      uri: 'viking://user/u/memories/entities/.abstract.md',
      baseUri: 'viking://user/u/memories/entities',
      isDirectory: true,
    },
    {
      name: 'overview sidecar',
      uri: 'viking://resources/docs/.overview.md',
      baseUri: 'viking://resources/docs',
      isDirectory: true,
    },
    {
      name: 'sidecar with trailing slash',
      uri: 'viking://resources/docs/.overview.md/',
      baseUri: 'viking://resources/docs',
      isDirectory: true,
    },
    {
      name: 'ordinary file',
      uri: 'viking://resources/docs/guide.md',
      baseUri: 'viking://resources/docs/guide.md',
      isDirectory: false,
    },
    {
      name: 'name merely ending like a sidecar',
      uri: 'viking://resources/x.overview.md',
      baseUri: 'viking://resources/x.overview.md',
      isDirectory: false,
    },
    {
      name: 'trailing slash on a directory',
      uri: 'viking://resources/docs/',
      baseUri: 'viking://resources/docs',
      isDirectory: false,
    },
  ])('stripSidecarSuffix: $name', ({ uri, baseUri, isDirectory }) => {
    expect(stripSidecarSuffix(uri)).toEqual({ baseUri, isDirectory });
  });

  it('uriSegments and userRoot', () => {
    expect(uriSegments('viking://user/u/peers')).toEqual(['user', 'u', 'peers']);
    expect(uriSegments('viking://')).toEqual([]);
    expect(userRoot('test_user')).toBe('viking://user/test_user');
  });
});
