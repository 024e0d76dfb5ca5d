import { Candidate } from '../tiering/candidate';
import { Category } from '../tiering/category';

/**
 * Test-only (the build excludes this folder; only specs may import it, see .dependency-cruiser.js): one own,
 * non-directory memory candidate at level 2, score 0.5 unless `over` says otherwise. Kernel specs import only the
 * kernel, so their shared fixtures live here rather than in libs/testing.
 */
export function candidate(baseUri: string, category: Category, over: Partial<Candidate> = {}): Candidate {
  const score = over.score ?? 0.5;
  return {
    uri: baseUri,
    baseUri,
    category,
    score,
    rankedScore: score,
    level: 2,
    abstract: '',
    origin: 'self',
    isDirectory: false,
    ...over,
  };
}
