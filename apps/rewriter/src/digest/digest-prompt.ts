import { DigestJob } from '@app/contracts';
import { NO_RELEVANT_MEMORY } from '@app/kernel';
import { LlmMessage } from '@app/llm';

function system(maxBullets: number): string {
  return `You are a memory relevance compressor for an AI agent. You get the agent's current query and a block of memory entries, each inside a <memory uri="..."> element.
Write a short digest of only what in those memories helps with the query.
- Do not call or mention tools; answer from the memories alone.
- Keep concrete facts exactly: file paths, identifiers, names, numbers, decisions and constraints.
- One bullet per topic, at most ${maxBullets} bullet${maxBullets === 1 ? '' : 's'}.
- Every bullet starts with "- " and ends with the uri of the memory it comes from, copied character for character, as "source: viking://...".
- Output the bullets only: no heading, no introduction, no closing remark.
If nothing in the memories is relevant to the query, output exactly ${NO_RELEVANT_MEMORY} and nothing else.`;
}

/**
 * Chat messages asking for a cited digest of a rendered block (our own wording of the docs/contract.md#digest-rewrite
 * prompt).
 */
export function digestPrompt(job: DigestJob): LlmMessage[] {
  return [
    { role: 'system', content: system(Math.max(1, job.maxBullets)) },
    { role: 'user', content: `Query:\n${job.query}\n\nMemories:\n${job.rendered}` },
  ];
}
