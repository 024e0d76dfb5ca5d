import { randomBytes } from 'node:crypto';
import type { AppConfig } from '@app/config';
import { invalidArgument } from '@app/kernel';
import { undoneWrites } from '@app/store';
import type { UploadLink } from '../content/upload.service';
import type { McpTool } from './mcp-tool';

// health, remember, add_resource and the watch tools (docs/fs-and-mcp.md, "MCP tools"). add_resource
// validates like the reference and hands out a one-shot upload link for a local file; remote sources
// and watches need a fetcher and a scheduler this server does not have, so the watch tools answer the
// reference's own text for a server without a scheduler.

const NO_WATCHES = 'Error: Watch scheduler not running';
const MAX_MESSAGES = 100;
// Paths and URIs an agent passes (the REST routes' URI bound).
const TEXT_MAX = 4096;
const REMOTE = /^(https?:\/\/|git@|ssh:\/\/|git:\/\/|tos:\/\/)/;

export const HEALTH_TOOL: McpTool = {
  name: 'health',
  readOnly: true,
  description: 'Check that the memory server and its storage are up.',
  props: {},
  run: async (_caller, _args, d) => {
    const report = await d.health.report();
    if (report.healthy) return 'OpenViking is healthy (service initialized, storage: VikingFS)';
    const down = Object.entries(report.checks)
      .filter(([, v]) => v === 'down')
      .map(([k]) => k);
    return `OpenViking is unhealthy: ${down.join(', ')} down`;
  },
};

export const REMEMBER_TOOL: McpTool = {
  name: 'remember',
  description:
    'Store a short conversation (user/assistant messages) as a session for memory extraction. ' +
    'Only on explicit request.',
  props: {
    messages: {
      type: 'array',
      maxItems: MAX_MESSAGES,
      itemProps: { role: { type: 'string', enum: ['user', 'assistant'] }, content: { type: 'string' } },
      itemRequired: ['role', 'content'],
      description: 'Messages in order.',
    },
  },
  required: ['messages'],
  run: async (caller, args, d) => {
    const messages = args['messages'] as { role?: unknown; content?: unknown }[];
    for (const [i, m] of messages.entries()) {
      const roleOk = m?.role === 'user' || m?.role === 'assistant';
      if (!m || typeof m !== 'object' || !roleOk || typeof m.content !== 'string') {
        throw invalidArgument(`messages.${i}: each message needs role 'user' or 'assistant' and a string content`, {
          field: `messages.${i}`,
        });
      }
    }
    // Refused for the commit backlog before anything is written: a refusal that changed nothing frees the call's
    // idempotency key for its retry (docs/fs-and-mcp.md, "Retrying a tool call").
    await d.commits.assertRoom(caller);
    const sessionId = `mcp-store-${randomBytes(6).toString('hex')}`;
    const kept = messages
      .map((m) => ({ role: m.role as string, content: m.content as string }))
      .filter((m) => m.content.trim() !== '');
    // The session and its messages in one transaction per batch (one batch unless MUNINN_SESSION_BATCH_MAX is
    // under the tool's 100): a refusal there (the storage quota, the session bounds) stores nothing, so a keyed
    // call's key is freed for its retry.
    const batchMax = d.config.sessions.batchMax;
    let written = false;
    try {
      for (let at = 0; at < kept.length; at += batchMax) {
        await d.sessions.addBatch(caller, sessionId, { messages: kept.slice(at, at + batchMax) });
        written = true;
      }
      if (written) await d.commits.commit(caller, sessionId, {});
    } catch (err) {
      // A refused later batch or commit would leave the session and its messages nobody commits, counted
      // against the account: remove it, so the call stores all or nothing. The refusal is what the agent is told,
      // whatever the removal finds.
      if (written) {
        const removed = await d.sessions.remove(caller, sessionId).then(
          () => true,
          () => false,
        );
        // Nothing of the call stays: its key is freed like a refusal's that changed nothing (before, the refusal
        // was kept on the key for its day, "Commit backlog full" replayed after the backlog had drained). Not when
        // an automatic commit (a default policy) archived part of it meanwhile: its task and extraction stay.
        if (removed && !(await d.commits.committedBefore(caller, sessionId))) await undoneWrites();
      }
      throw err;
    }
    // The count names every message given, skipped empty ones included (the reference's text).
    return `Stored ${messages.length} message(s) and committed for memory extraction.`;
  },
};

export const ADD_RESOURCE_TOOL: McpTool = {
  name: 'add_resource',
  description:
    'Add a local text file as a resource: answers with a one-shot upload link; the uploaded file is stored ' +
    'and indexed automatically.',
  props: {
    path: { type: 'string', default: '', maxLength: TEXT_MAX, description: 'Path of a local text file.' },
    temp_file_id: { type: 'string', default: '', maxLength: TEXT_MAX, description: 'Not kept here (see path).' },
    add_type: { type: 'string', default: '', maxLength: TEXT_MAX, description: 'Ingestion type (needs `to`).' },
    description: { type: 'string', default: '', maxLength: TEXT_MAX, description: 'What the resource is.' },
    watch_interval: { type: 'number', default: 0, description: 'Refresh every n minutes (0: never).' },
    processing_mode: {
      type: 'string',
      enum: ['semantic_and_vectors', 'vectors_only'],
      default: 'semantic_and_vectors',
    },
    to: { type: 'string', default: '', maxLength: TEXT_MAX, description: 'Exact target URI under viking://resources.' },
    parent: {
      type: 'string',
      default: '',
      maxLength: TEXT_MAX,
      description: 'Parent directory under viking://resources.',
    },
    tags: { type: 'array', of: 'string', maxItems: 64, description: 'k=v tags.' },
    tag_mode: { type: 'string', default: 'replace', maxLength: 16, description: '`replace` or `append`.' },
    args: { type: 'object', description: 'Parser options (parse_mode, …).' },
  },
  run: async (caller, args, d, ctx) => {
    const str = (k: string) => ((args[k] as string | undefined) ?? '').trim();
    const [path, tempId, addType, to, parent] = ['path', 'temp_file_id', 'add_type', 'to', 'parent'].map(str) as [
      string,
      string,
      string,
      string,
      string,
    ];
    const interval = (args['watch_interval'] as number | undefined) ?? 0;
    for (const [name, value] of [
      ['to', to],
      ['parent', parent],
    ] as const) {
      if (value && !value.startsWith('viking://resources')) {
        return `Error: '${name}' must target viking://resources/…, got ${value}`;
      }
    }
    if (interval < 0) return 'Error: watch_interval must be >= 0';
    if (addType && (tempId || parent)) return 'Error: add_type cannot be combined with temp_file_id or parent.';
    if (addType && !to) return "Error: add_type requires an exact 'to' target.";
    if (addType && !path) return 'Error: add_type requires path.';
    if (!path && !tempId) return 'Error: either path or temp_file_id is required.';
    if (path && /^(upload|shared)_[A-Za-z0-9]+/.test(path) && !path.includes('/')) {
      return `Error: '${path}' looks like a temp_file_id; pass it as temp_file_id instead of path.`;
    }
    if (!path) return `Error adding resource: ${NO_TEMP_FILES}`;
    if (REMOTE.test(path)) return `Error adding resource: ${NO_REMOTE}`;
    if (interval > 0) return `Error adding resource: ${NO_WATCH}`;
    try {
      const link = await d.uploads.mint(
        caller,
        {
          path,
          to: to || undefined,
          parent: parent || undefined,
          processingMode: args['processing_mode'] as 'semantic_and_vectors' | 'vectors_only' | undefined,
          tags: args['tags'] as string[] | undefined,
        },
        ctx.origin,
      );
      return uploadText(path, link, d.config.uploads, ctx.origin);
    } catch (err) {
      return `Error adding resource: ${(err as Error).message}`;
    }
  },
};

// The reference ingests remote sources and keeps temp uploads; this server only takes uploaded text
// files through one-shot links (docs/fs-and-mcp.md, "add_resource and watches").
const NO_TEMP_FILES =
  "uploads are not kept for a temp_file_id on this server; call add_resource with the file's path to get an upload link.";
const NO_REMOTE =
  'remote sources (URLs, git) are not fetched by this server; download the file and call add_resource with its local path.';
const NO_WATCH = 'watch_interval needs a remote source to refresh, and this server does not fetch remote sources.';

/** The instructions of an upload link: where to POST the file, that nothing else is needed, until when. */
function uploadText(path: string, link: UploadLink, limits: AppConfig['uploads'], origin: string): string {
  const minutes = Math.max(1, Math.round(limits.tokenTtlS / 60));
  const lines = [
    `To add ${path}, upload the file from the machine it is on; this server cannot read local paths.`,
    '',
    `POST it as the multipart form field \`file\` to:`,
    link.url,
    '',
    `For example: curl -sS -X POST -F "file=@${path.replace(/["\\]/g, '\\$&')}" "${link.url}"`,
    '',
    `It is stored at ${link.targetUri} and indexed automatically; no further call is needed. ` +
      `The link works once and expires at ${link.expiresAt.toISOString()} (${minutes} minute(s)). ` +
      `Only UTF-8 text files up to ${limits.maxBytes} bytes are accepted.`,
  ];
  if (link.inferredOrigin) {
    lines.push(
      '',
      `The link's address (${origin}) was inferred from this request. If it is not reachable from where the ` +
        'file is, set MUNINN_PUBLIC_BASE_URL on the server (the reference calls it OPENVIKING_PUBLIC_BASE_URL).',
    );
  }
  return lines.join('\n');
}

export const LIST_WATCHES_TOOL: McpTool = {
  name: 'list_watches',
  readOnly: true,
  description: 'List resource watch tasks.',
  props: {},
  run: async () => NO_WATCHES,
};

export const CANCEL_WATCH_TOOL: McpTool = {
  name: 'cancel_watch',
  description: 'Cancel the watch task of a resource.',
  props: { to_uri: { type: 'string', maxLength: TEXT_MAX, description: 'Target URI of the watch.' } },
  required: ['to_uri'],
  run: async () => NO_WATCHES,
};
