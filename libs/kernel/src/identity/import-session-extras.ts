import { UriShapeBounds, uriShapeIssue } from '../uri/uri-shape';
import { Fields, importProblem, USER_ID } from './import-fields';

/**
 * What else of a session an account export carries, after its live messages (docs/limits-and-security.md,
 * "Importing an account"): the records of its externalised tool outputs (the outputs themselves are files, among
 * the nodes) and the usage records not yet consumed by a commit. Without them an imported session's tool-result
 * routes found nothing for the outputs its messages point at, and its next commit counted no usage.
 */

/** The record of one externalised tool output (docs/sessions.md, "Tool results"). */
export interface ImportToolResultLine {
  type: 'tool_result';
  user_id: string;
  session_id: string;
  tool_result_id: string;
  tool_id: string;
  tool_name: string;
  message_id: string;
  mime_type: string;
  original_chars: number;
  preview_chars: number;
  sha256: string;
  reason: string;
  created_at: string;
}

/** A usage record (`POST …/used`) no commit has consumed yet (docs/sessions.md, "Usage records"). */
export interface ImportUsageLine {
  type: 'usage';
  user_id: string;
  session_id: string;
  kind: 'context' | 'skill';
  uri: string;
  skill: Record<string, unknown> | null;
  created_at: string;
}

/** Characters of an id or name a tool-result record holds at most (the store's own are far shorter). */
const NAME_MAX = 256;

export function readToolResultLine(r: Fields): ImportToolResultLine {
  return {
    type: 'tool_result',
    user_id: r.match('user_id', USER_ID),
    session_id: r.sessionId(),
    tool_result_id: r.match('tool_result_id', /^[\w.-]{1,128}$/),
    tool_id: r.stringUpTo('tool_id', NAME_MAX),
    tool_name: r.stringUpTo('tool_name', NAME_MAX),
    message_id: r.stringUpTo('message_id', NAME_MAX),
    mime_type: r.stringUpTo('mime_type', NAME_MAX),
    original_chars: r.int('original_chars', 0),
    preview_chars: r.int('preview_chars', 0),
    sha256: r.match('sha256', /^[0-9a-f]{64}$/),
    reason: r.stringUpTo('reason', NAME_MAX),
    created_at: r.date('created_at'),
  };
}

export function readUsageLine(r: Fields, line: number, uri: UriShapeBounds): ImportUsageLine {
  const u = r.string('uri');
  const shape = uriShapeIssue(u, uri);
  if (shape) throw importProblem(line, `uri: ${shape.message}`, 'uri');
  const kind = r.oneOf('kind', ['context', 'skill'] as const);
  return {
    type: 'usage',
    user_id: r.match('user_id', USER_ID),
    session_id: r.sessionId(),
    kind,
    uri: u,
    skill: r.has('skill') && r.raw('skill') !== null ? r.object('skill') : null,
    created_at: r.date('created_at'),
  };
}
