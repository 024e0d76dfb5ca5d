// Shared by the session suites: polling for asynchronous outcomes (commits, extraction, indexing) and
// the fake model's Working Memory answers. The seven headings are restated from docs/sessions.md
// ("Working Memory") as an oracle, not imported from the kernel under test.
import type { FakeLlmRequest } from '@app/testing';

export { eventually } from '@app/testing';

export const WORKING_MEMORY_SECTIONS = [
  'Session Title',
  'Current State',
  'Task & Goals',
  'Key Facts & Decisions',
  'Files & Context',
  'Errors & Corrections',
  'Open Issues',
];

/** A well-formed Working Memory overview with the given title, as a model would write it. */
export const workingMemory = (title: string) =>
  `# Working Memory\n\n${WORKING_MEMORY_SECTIONS.map((s) => `## ${s}\n${s === 'Session Title' ? title : '- noted'}`).join('\n\n')}`;

/** Whether a fake-model request is the extraction call (not the archive summary). */
export const isExtraction = (req: FakeLlmRequest) =>
  req.messages[0]?.content.startsWith('You extract long-term memories') ?? false;
