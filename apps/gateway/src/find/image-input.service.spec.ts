import { Embedder } from '@app/embed';
import { Identity, KernelError } from '@app/kernel';
import { NodeRecord, NodeRepository } from '@app/store';
import { ImageInputService } from './image-input.service';

const alice: Identity = { accountId: 'acme', userId: 'alice', role: 'user', actorPeerId: null };
const PNG = 'data:image/png;base64,iVBORw0KGgo=';

function service(supportsImages: boolean, nodes: Record<string, Partial<NodeRecord>> = {}) {
  const embedder = { id: 'fake:v1:8', dim: 8, supportsImages } as Embedder;
  const repo = {
    get: async (_who: Identity, uri: string) => (nodes[uri] ? ({ kind: 'file', ...nodes[uri] } as NodeRecord) : null),
  } as unknown as NodeRepository;
  return new ImageInputService(embedder, repo);
}

async function failure(p: Promise<unknown>): Promise<KernelError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof KernelError) return e;
    throw e;
  }
  throw new Error('expected a KernelError');
}

describe('ImageInputService', () => {
  it('no image → null', async () => {
    expect(await service(false).inline(alice, null)).toBeNull();
    expect(await service(false).inline(alice, '')).toBeNull();
  });

  it.each([
    [
      'unknown scheme',
      false,
      'ftp://x/y.png',
      'INVALID_ARGUMENT',
      'image_url must be a data:image/...;base64 URL, an http(s):// URL or a viking:// URI',
    ],
    [
      'text-only embedder',
      false,
      PNG,
      'INVALID_ARGUMENT',
      'image_url is not supported: the configured embedder (fake:v1:8) has no image support',
    ],
    [
      'data URL that is not an image',
      true,
      'data:text/plain;base64,aGk=',
      'INVALID_ARGUMENT',
      'image_url must hold a base64 data:image/... URL',
    ],
    [
      'http(s) is never fetched server-side',
      true,
      'https://169.254.169.254/latest',
      'INVALID_ARGUMENT',
      'image_url over http(s) is not fetched by this server; send the image inline as a data:image/...;base64 URL',
    ],
    [
      "another user's viking image",
      true,
      'viking://user/bob/resources/a.png',
      'PERMISSION_DENIED',
      'Access denied for viking://user/bob/resources/a.png',
    ],
    [
      'missing viking image',
      true,
      'viking://~/resources/none.png',
      'INVALID_ARGUMENT',
      'image_url viking://user/alice/resources/none.png is not a readable file',
    ],
  ])('rejects %s', async (_name, supports, url, code, message) => {
    const err = await failure(service(supports).inline(alice, url));
    expect([err.code, err.message]).toEqual([code, message]);
  });

  it('passes a data URL through and inlines a stored one when the embedder takes images', async () => {
    const s = service(true, { 'viking://user/alice/resources/a.png': { content: `${PNG}\n` } });
    expect(await s.inline(alice, PNG)).toBe(PNG);
    expect(await s.inline(alice, 'viking://~/resources/a.png')).toBe(PNG);
  });
});
