import { ExpandJob } from '@app/contracts';
import { LlmMessage } from '@app/llm';

/** The planner sees at most this many of the latest messages (docs/contract.md#query-expansion). */
export const RECENT_MESSAGES = 5;
/** The planner may add this many queries to the original (docs/contract.md#query-expansion: three searched in all). */
export const EXTRA_QUERIES = 2;

const SYSTEM = `You plan searches in a user's long-term memory for an AI agent.
You get the summary of the conversation so far, its latest messages and the agent's current query.
Propose at most ${EXTRA_QUERIES} additional search queries that would find memories the current query alone could miss:
resolve pronouns and references from the conversation, and name the concrete project, file, person, tool or decision it is about.
Do not repeat the current query and do not answer it.
Reply with JSON only, in the form {"queries": ["first query", "second query"]}, or {"queries": []} when no other search would help.`;

/**
 * Chat messages asking the planner for extra queries (our own wording of the docs/contract.md#query-expansion intent
 * analysis).
 */
export function expandPrompt(job: ExpandJob): LlmMessage[] {
  const recent = job.recentMessages.slice(-RECENT_MESSAGES);
  const transcript = recent.length ? recent.map((m) => `[${m.role}] ${m.content}`).join('\n') : '(none)';
  const user = [
    'Conversation summary:',
    job.latestArchiveOverview.trim() || '(none)',
    '',
    'Latest messages, oldest first:',
    transcript,
    '',
    'Current query:',
    job.query,
  ].join('\n');
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: user },
  ];
}
