import { Inject, Injectable } from '@nestjs/common';
import { Embedder, EMBEDDER } from '@app/embed';
import { canonicalizeUri, canRead, Identity, invalidArgument, permissionDenied } from '@app/kernel';
import { NodeRepository } from '@app/store';

const DATA_URL = /^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+$/i;
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/**
 * Turns `image_url` (docs/contract.md#find-request) into the inline `data:` URL a find job carries: refused with a 400
 * unless
 * the embedder can embed images; `viking://` images are read from the caller's view.
 */
@Injectable()
export class ImageInputService {
  constructor(
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    private readonly nodes: NodeRepository,
  ) {}

  async inline(caller: Identity, imageUrl: string | null | undefined): Promise<string | null> {
    if (!imageUrl) return null;
    const url = imageUrl.trim();
    const scheme = /^data:/i.test(url)
      ? 'data'
      : /^https?:\/\//i.test(url)
        ? 'http'
        : /^viking:\/\//i.test(url)
          ? 'viking'
          : null;
    if (!scheme)
      throw invalidArgument('image_url must be a data:image/...;base64 URL, an http(s):// URL or a viking:// URI');
    if (!this.embedder.supportsImages) {
      throw invalidArgument(
        `image_url is not supported: the configured embedder (${this.embedder.id}) has no image support`,
      );
    }
    if (scheme === 'data') return checkedDataUrl(url);
    if (scheme === 'viking') return this.fromStore(caller, url);
    // Fetching caller-chosen URLs from inside a hosted deployment would open server-side request
    // forgery into the private network; clients send the bytes instead.
    throw invalidArgument(
      'image_url over http(s) is not fetched by this server; send the image inline as a data:image/...;base64 URL',
    );
  }

  private async fromStore(caller: Identity, raw: string): Promise<string> {
    const uri = canonicalizeUri(raw, caller.userId);
    if (!canRead(caller, uri)) throw permissionDenied(`Access denied for ${uri}`, uri);
    const node = await this.nodes.get(caller, uri);
    if (!node || node.kind !== 'file') throw invalidArgument(`image_url ${uri} is not a readable file`);
    return checkedDataUrl(node.content.trim());
  }
}

function checkedDataUrl(url: string): string {
  if (!DATA_URL.test(url)) throw invalidArgument('image_url must hold a base64 data:image/... URL');
  if (url.length > (MAX_IMAGE_BYTES * 4) / 3 + 100) throw invalidArgument('image_url is larger than 10 MB');
  return url;
}
