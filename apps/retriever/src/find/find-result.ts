import { FindHit, FindResult } from '@app/contracts';
import { NodeSearchHit } from '@app/store';

const LIST = { memory: 'memories', resource: 'resources', skill: 'skills' } as const;

/**
 * Store hits → the /find result (docs/contract.md#find-response): one list per context type, each by score desc,
 * non-finite scores 0.
 */
export function toFindResult(hits: NodeSearchHit[]): FindResult {
  const result: FindResult = { memories: [], resources: [], skills: [], total: 0 };
  for (const h of hits) {
    const item: FindHit = {
      context_type: h.contextType,
      uri: h.uri,
      level: h.level,
      score: Number.isFinite(h.score) ? h.score : 0,
      abstract: h.abstract,
      tags: h.tags,
      ...(h.wholeBody ? { wholeBody: true as const } : {}),
    };
    result[LIST[h.contextType]].push(item);
  }
  for (const list of [result.memories, result.resources, result.skills]) list.sort((a, b) => b.score - a.score);
  result.total = result.memories.length + result.resources.length + result.skills.length;
  return result;
}
