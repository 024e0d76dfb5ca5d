import { Injectable } from '@nestjs/common';
import {
  canonicalizeUri,
  Identity,
  KernelError,
  KernelErrorCode,
  overviewFromContent,
  pyStrip,
  stripMemoryFields,
} from '@app/kernel';
import { NodeRepository } from '@app/store';
import { ContentService } from '../content/content.service';

export type ReadLevel = 'abstract' | 'overview' | 'full';

export interface ReadAnswer {
  uri: string;
  kind: 'file' | 'directory';
  level: ReadLevel;
  text: string;
}

const SIDECAR = /\/\.(abstract|overview)\.md$/;

/**
 * The MCP `read` tool: any URI a context entry or a hit carries, at the tier asked for. Directories
 * answer with their sidecars (what GET /content/abstract and /overview give); files answer with their
 * indexed abstract, the overview the assembler would serve, or the body GET /content/read gives.
 */
@Injectable()
export class McpReadService {
  constructor(
    private readonly content: ContentService,
    private readonly nodes: NodeRepository,
  ) {}

  /** `maxChars`: the body is read (in the store) and answered up to that many characters. */
  async read(caller: Identity, rawUri: string, level: ReadLevel, maxChars: number): Promise<ReadAnswer> {
    const uri = canonicalizeUri(rawUri, caller.userId).replace(SIDECAR, '');
    // The actor view applies as on GET /content/read: another peer's URI is a 403 (PERMISSION_DENIED)
    // even when a peer_scope "all" context entry carried it (the entry's text was in that answer).
    const who = caller;
    this.content.readableUri(who, uri);
    const [node] = await this.nodes.getMany(who, [uri], maxChars);
    if (!node) throw new KernelError(KernelErrorCode.NotFound, `Not found: ${uri}`, { resource: uri });
    if (node.kind === 'directory') {
      const text = await this.content.sidecar(who, uri, level === 'abstract' ? 'abstract' : 'overview');
      return { uri, kind: 'directory', level, text };
    }
    const body = node.contextType === 'memory' ? stripMemoryFields(node.content) : node.content;
    const text =
      level === 'full'
        ? body
        : level === 'abstract'
          ? pyStrip(node.abstract)
          : overviewFromContent({ baseUri: uri, isDirectory: false }, body);
    return { uri, kind: 'file', level, text: text.slice(0, maxChars) };
  }
}
