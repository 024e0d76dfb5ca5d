import { Inject, Injectable, Logger } from '@nestjs/common';
import { IndexJob, IndexResult } from '@app/contracts';
import { directorySidecars, fileAbstract, searchText } from '@app/kernel';
import { Embedder, EMBEDDER } from '@app/embed';
import { NodeRecord, NodeRepository } from '@app/store';

/** Makes a written node searchable: abstract, lexical text, embedding; then refreshes parent sidecars. */
@Injectable()
export class IndexService {
  private readonly logger = new Logger(IndexService.name);

  constructor(private readonly nodes: NodeRepository, @Inject(EMBEDDER) private readonly embedder: Embedder) {}

  async index(job: IndexJob): Promise<IndexResult> {
    let indexed = false;
    if (job.op === 'upsert') {
      const node = await this.nodes.getForIndex(job.accountId, job.uri);
      if (node) {
        await this.indexNode(job.accountId, node);
        indexed = true;
      }
    }
    // Nearest parent first; once a directory's sidecars come out unchanged, its own parent's cannot
    // change either (they are built from child abstracts only), so the walk stops there.
    let refreshed = 0;
    for (const dir of job.parents) {
      if (!(await this.refreshDirectory(job.accountId, dir))) break;
      refreshed += 1;
    }
    return { uri: job.uri, indexed, embedderId: indexed ? this.embedder.id : null, refreshedDirectories: refreshed };
  }

  private async indexNode(accountId: string, node: NodeRecord): Promise<void> {
    if (node.kind === 'directory') {
      await this.refreshDirectory(accountId, node.uri);
      return;
    }
    const abstract = fileAbstract(node.uri, node.content);
    const [embedding] = await this.embedder.embed([embeddingText(node.uri, abstract)]);
    await this.nodes.setIndex(accountId, node.uri, {
      abstract,
      searchText: searchText(baseNameWords(node.uri), abstract, node.content.slice(0, 20000)),
      embedding,
      embedderId: this.embedder.id,
    });
  }

  /** Recomputes a directory's sidecars from its children and re-embeds them; false when nothing changed. */
  private async refreshDirectory(accountId: string, uri: string): Promise<boolean> {
    const dir = await this.nodes.getForIndex(accountId, uri);
    if (!dir || dir.kind !== 'directory') return false;
    // These directories gather several users (viking://user) or several peers ({u}/peers), whose
    // views differ: a summary of their children would leak one view into another. No sidecars.
    const sidecars = isCollection(uri) ? { abstract: '', overview: '' } : directorySidecars(uri, await this.nodes.childrenForIndex(accountId, uri));
    const fresh = dir.indexedAt !== null && (dir.embedderId === this.embedder.id || isCollection(uri));
    if (fresh && dir.abstract === sidecars.abstract && dir.overview === sidecars.overview) return false;
    if (isCollection(uri)) {
      await this.nodes.setIndex(accountId, uri, { abstract: '', overview: '', searchText: '', embedding: null, embedderId: null });
      return true;
    }
    const [embedding] = await this.embedder.embed([embeddingText(uri, `${sidecars.abstract}\n${sidecars.overview}`)]);
    await this.nodes.setIndex(accountId, uri, {
      abstract: sidecars.abstract,
      overview: sidecars.overview,
      searchText: searchText(baseNameWords(uri), sidecars.abstract, sidecars.overview),
      embedding,
      embedderId: this.embedder.id,
    });
    this.logger.debug(`refreshed sidecars of ${uri}`);
    return true;
  }
}

/** `viking://user` and `viking://user/{u}/peers`: directories spanning separately scoped subtrees. */
function isCollection(uri: string): boolean {
  return uri === 'viking://user' || /^viking:\/\/user\/[^/]+\/peers$/.test(uri);
}

function baseNameWords(uri: string): string {
  return uri.slice(uri.lastIndexOf('/') + 1).replace(/\.[a-z0-9]+$/i, '').replace(/[_-]+/g, ' ');
}

/** What is embedded: the file's name words and its abstract (memory abstracts are whole bodies). */
function embeddingText(uri: string, abstract: string): string {
  return `${baseNameWords(uri)}\n${abstract}`.slice(0, 8000);
}
