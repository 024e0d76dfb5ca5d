import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/config';
import {
  canonicalizeUri,
  canWrite,
  checkContentWrite,
  Identity,
  KernelError,
  KernelErrorCode,
  normalizeSearchTags,
} from '@app/kernel';
import { runInWriteScope, UploadGrant, UploadTokenRepository, WriteScope } from '@app/store';
import { invalidUploadToken, UPLOAD_ROUTE } from '../http/upload-route';
import { ContentService } from './content.service';
import { BacklogService } from '../http/backlog.service';

/** Where an upload link points and until when (what the MCP `add_resource` tool tells the agent). */
export interface UploadLink {
  url: string;
  targetUri: string;
  expiresAt: Date;
  /** True when the origin came from the request rather than MUNINN_PUBLIC_BASE_URL. */
  inferredOrigin: boolean;
}

export interface UploadRequest {
  /** The file's path on the agent's machine; only its last segment is used (as the file name). */
  path: string;
  to?: string;
  parent?: string;
  processingMode?: UploadGrant['processingMode'];
  tags?: string[];
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * One-shot upload links for files the server cannot read itself (docs/fs-and-mcp.md, "add_resource").
 * Minting checks everything that does not need the bytes (target, write rights, write rules), so a
 * refused upload is refused before the agent sends anything; the upload itself goes through
 * `POST /content/write` semantics as the minting caller.
 */
@Injectable()
export class UploadService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tokens: UploadTokenRepository,
    private readonly content: ContentService,
    private readonly backlog: BacklogService,
  ) {}

  async mint(caller: Identity, req: UploadRequest, requestOrigin: string): Promise<UploadLink> {
    const targetUri = this.target(caller, req);
    if (!canWrite(caller, targetUri))
      throw new KernelError(KernelErrorCode.PermissionDenied, `Access denied for ${targetUri}`, {
        resource: targetUri,
      });
    checkContentWrite(targetUri, 'create');
    const tags = req.tags && req.tags.length > 0 ? normalizeSearchTags(req.tags) : null;
    const token = randomBytes(24).toString('base64url');
    const grant = { identity: caller, targetUri, processingMode: req.processingMode ?? 'semantic_and_vectors', tags };
    const expiresAt = await this.tokens.mint(token, grant, this.config.uploads.tokenTtlS);
    const origin = this.config.uploads.publicBaseUrl ?? requestOrigin;
    return {
      url: `${origin}${UPLOAD_ROUTE}?token=${token}`,
      targetUri,
      expiresAt,
      inferredOrigin: this.config.uploads.publicBaseUrl === null,
    };
  }

  /** Uses `token` once: the multipart field `file` is written at the token's target. */
  async ingest(token: string, contentType: string, body: Buffer) {
    // The gate checked the token before the body was read; a refused file does not use it up.
    const text = await fileText(contentType, body, this.config.uploads.maxBytes);
    // A full index backlog (429, docs/limits-and-security.md "Backlog bounds") is answered before the
    // token is used, so the same link can be retried.
    const live = await this.tokens.peek(token);
    if (live) await this.backlog.assertIndexRoom(live.identity);
    const grant = await this.tokens.consume(token);
    if (!grant) throw invalidUploadToken();
    const write = (mode: 'create' | 'replace') =>
      this.content.write(
        grant.identity,
        {
          uri: grant.targetUri,
          content: text,
          mode,
          processing_mode: grant.processingMode,
          ...(grant.tags ? { tags: grant.tags } : {}),
        },
        true,
      );
    // A second upload to the same target refreshes it, as re-adding a resource does upstream.
    const store = () =>
      write('create').catch((err: unknown) => {
        if (err instanceof KernelError && err.code === KernelErrorCode.AlreadyExists) return write('replace');
        throw err;
      });
    // A write that stored nothing (refused at the quota, a directory in the way, the store away) gives the token
    // back, so the same link can be retried; the write scope tells whether any of its transactions committed.
    const scope: WriteScope = { state: 'open', applied: false, mark: async () => undefined };
    try {
      return await runInWriteScope(scope, store);
    } catch (err) {
      if (!scope.applied) await this.tokens.restore(token, grant).catch(() => undefined);
      throw err;
    } finally {
      scope.state = 'finished';
    }
  }

  private target(caller: Identity, req: UploadRequest): string {
    if (req.to) return canonicalizeUri(req.to, caller.userId);
    const name =
      req.path
        .split(/[/\\]/)
        .filter((s) => s !== '')
        .pop() ?? '';
    if (!name || name === '.' || name === '..')
      throw new KernelError(KernelErrorCode.InvalidArgument, `path has no file name: ${req.path}`, { field: 'path' });
    const parent = req.parent ? canonicalizeUri(req.parent, caller.userId) : 'viking://resources';
    return canonicalizeUri(`${parent}/${name}`, caller.userId);
  }
}

/** The UTF-8 text of the multipart field `file`; anything else is a 4xx naming `file`. */
async function fileText(contentType: string, body: Buffer, maxBytes: number): Promise<string> {
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new KernelError(KernelErrorCode.InvalidArgument, 'body must be multipart/form-data with a field "file"', {
      field: 'file',
    });
  }
  const file = form.get('file');
  if (!file || typeof file === 'string')
    throw new KernelError(KernelErrorCode.InvalidArgument, 'multipart field "file" (a file) is required', {
      field: 'file',
    });
  if (file.size > maxBytes)
    throw new KernelError(KernelErrorCode.PayloadTooLarge, `file is larger than ${maxBytes} bytes`, {
      field: 'file',
      limit_bytes: maxBytes,
    });
  let text: string;
  try {
    text = UTF8.decode(await file.arrayBuffer());
  } catch {
    throw new KernelError(
      KernelErrorCode.UnsupportedMediaType,
      'only UTF-8 text files can be added; convert the document to text or Markdown first',
      { field: 'file' },
    );
  }
  if (text.includes('\u0000'))
    throw new KernelError(KernelErrorCode.InvalidArgument, 'file must not contain NUL characters', { field: 'file' });
  return text;
}
