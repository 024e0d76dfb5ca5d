// MCP tool arguments → the REST body of the route each tool mirrors (docs/contract.md#mcp-tools).
import { KernelError } from '@app/kernel';
import { findToolBody, recallToolBody, searchToolBody } from './tool-bodies';

describe('MCP tool bodies', () => {
  it.each([
    ['query only: threshold 0.35', { query: 'q' }, { query: 'q', score_threshold: 0.35 }],
    [
      'everything',
      { query: 'q', target_uri: 'viking://resources', limit: 3, min_score: 0, level: [2], context_type: 'memory' },
      {
        query: 'q',
        target_uri: 'viking://resources',
        limit: 3,
        level: [2],
        context_type: 'memory',
        score_threshold: 0,
      },
    ],
  ])('find: %s', (_name, args, body) => {
    expect(findToolBody(args)).toEqual(body);
  });

  it.each([
    ['list mode default: threshold 0.35, no mode key', { query: 'q' }, { query: 'q', score_threshold: 0.35 }],
    [
      'list mode min_score',
      { query: 'q', mode: 'list' as const, min_score: 0.1, limit: 5 },
      { query: 'q', limit: 5, score_threshold: 0.1 },
    ],
    [
      'context mode: no threshold unless min_score',
      { query: 'q', mode: 'context' as const },
      { query: 'q', mode: 'context' },
    ],
    [
      'context min_score → score_threshold',
      { query: 'q', mode: 'context' as const, min_score: 0.2 },
      { query: 'q', mode: 'context', score_threshold: 0.2 },
    ],
    [
      'detail auto is no pin',
      { query: 'q', mode: 'context' as const, detail: 'auto' as const },
      { query: 'q', mode: 'context' },
    ],
    [
      'detail scalar',
      { query: 'q', mode: 'context' as const, detail: 'full' as const },
      { query: 'q', mode: 'context', detail: 'full' },
    ],
    [
      'detail_by_category wins as the map',
      {
        query: 'q',
        mode: 'context' as const,
        detail: 'auto' as const,
        detail_by_category: { events: 'full' as const },
      },
      { query: 'q', mode: 'context', detail: { events: 'full' } },
    ],
    [
      'other_peer_penalty number',
      { query: 'q', mode: 'context' as const, other_peer_penalty: 0.3 },
      { query: 'q', mode: 'context', other_peer_penalty: 0.3 },
    ],
    [
      'other_peer_penalties map',
      { query: 'q', mode: 'context' as const, other_peer_penalties: { events: 0.5 } },
      { query: 'q', mode: 'context', other_peer_penalty: { events: 0.5 } },
    ],
    [
      'rewrite auto forces true',
      { query: 'q', mode: 'context' as const, rewrite: 'auto' as const },
      { query: 'q', mode: 'context', rewrite: true },
    ],
    [
      'rewrite off sends nothing',
      { query: 'q', mode: 'context' as const, rewrite: 'off' as const },
      { query: 'q', mode: 'context' },
    ],
    [
      'context-only fields pass through',
      {
        query: 'q',
        mode: 'context' as const,
        session_id: 's',
        query_expansion: 'off' as const,
        max_tokens: 900,
        quotas: { events: 2 },
        purpose: 'chat' as const,
        dedup_turns: 3,
        exclude_uris: ['viking://a'],
        peer_scope: 'actor' as const,
        rewrite_max_bullets: 2,
        context_type: 'memory',
        target_uri: 'x',
      },
      {
        query: 'q',
        mode: 'context',
        session_id: 's',
        query_expansion: 'off',
        max_tokens: 900,
        quotas: { events: 2 },
        purpose: 'chat',
        dedup_turns: 3,
        exclude_uris: ['viking://a'],
        peer_scope: 'actor',
        rewrite_max_bullets: 2,
        context_type: 'memory',
        target_uri: 'x',
      },
    ],
    [
      'list mode keeps context-only fields so the route rejects them',
      { query: 'q', max_tokens: 900 },
      { query: 'q', score_threshold: 0.35, max_tokens: 900 },
    ],
  ])('search: %s', (_name, args, body) => {
    expect(searchToolBody(args)).toEqual(body);
  });

  it.each([
    [
      'detail with detail_by_category',
      {
        query: 'q',
        mode: 'context' as const,
        detail: 'full' as const,
        detail_by_category: { events: 'full' as const },
      },
    ],
    [
      'both penalty forms',
      { query: 'q', mode: 'context' as const, other_peer_penalty: 0.1, other_peer_penalties: { events: 0.1 } },
    ],
  ])('search rejects %s', (_name, args) => {
    expect(() => searchToolBody(args)).toThrow(KernelError);
  });

  it.each([
    ['query only: every default left to the route', { query: 'q' }, { query: 'q' }],
    ['max_chars coerced to max(1, int)', { query: 'q', max_chars: 6500.9 }, { query: 'q', max_chars: 6500 }],
    ['max_chars 0 → 1', { query: 'q', max_chars: 0 }, { query: 'q', max_chars: 1 }],
    ['max_chars negative → 1', { query: 'q', max_chars: -5.5 }, { query: 'q', max_chars: 1 }],
    ['peer_scope actor', { query: 'q', peer_scope: 'actor' }, { query: 'q', peer_scope: 'actor' }],
    ['peer_scope anything else → all', { query: 'q', peer_scope: 'peers' }, { query: 'q', peer_scope: 'all' }],
    ['known detail pinned', { query: 'q', detail: 'overview' }, { query: 'q', detail: 'overview' }],
    ['unknown detail degrades to the default', { query: 'q', detail: 'verbose' }, { query: 'q' }],
    ['rewrite false is not sent', { query: 'q', rewrite: false }, { query: 'q' }],
    ['rewrite true', { query: 'q', rewrite: true }, { query: 'q', rewrite: true }],
    [
      'the rest pass through',
      { query: 'q', quotas: { events: 5 }, min_score: 0.2, other_peer_penalty: 0.4, session_id: 's', max_tokens: 700 },
      { query: 'q', quotas: { events: 5 }, min_score: 0.2, other_peer_penalty: 0.4, session_id: 's', max_tokens: 700 },
    ],
  ])('recall: %s', (_name, args, body) => {
    expect(recallToolBody(args)).toEqual(body);
  });
});
