import { KernelError, KernelErrorCode } from '../kernel.error';
import { MemoryRouting, memoryRouting } from './memory-routing';
import { SessionMessage } from './session-message';

/** A session's memory policy, normalised (docs/sessions.md "Memory policy"). */
export interface MemoryPolicy {
  self: { enabled: boolean };
  peer: { enabled: boolean };
  /** Present only when off (the contract's stored shape). */
  working_memory?: { enabled: false };
  /** Sorted; null: every enabled type. */
  memory_types: string[] | null;
}

/** Memory types a policy may name (the contract's enabled schemas; `tools` and `skills` are disabled there). */
export const MEMORY_TYPES = [
  'cases',
  'entities',
  'events',
  'experiences',
  'identity',
  'preferences',
  'profile',
  'soul',
  'trajectories',
] as const;
/** Types trained by agent evolution: only present together, and only with `experiences`. */
const AGENT_TYPES = ['cases', 'experiences', 'trajectories'];
const KEYS = ['self', 'peer', 'memory_types', 'working_memory'];
const FALSY = new Set(['false', 'off', '0', 'no', '']);

const invalid = (field: string, message: string) =>
  new KernelError(KernelErrorCode.InvalidArgument, message, { field });

/** A target's `enabled`: a JSON bool, or a legacy value coerced as the contract says; omitted → true. */
function enabled(field: string, target: unknown): boolean {
  if (target === undefined) return true;
  if (typeof target !== 'object' || target === null || Array.isArray(target))
    throw invalid(field, `${field} must be an object`);
  for (const k of Object.keys(target)) {
    if (k !== 'enabled') throw invalid(`${field}.${k.slice(0, 64)}`, `${field} has an unknown key: ${k.slice(0, 64)}`);
  }
  const v = (target as { enabled?: unknown }).enabled;
  if (v === undefined) return true;
  if (typeof v === 'boolean') return v;
  if (v === null) return false;
  return !FALSY.has(String(v).trim().toLowerCase());
}

/**
 * A client's `memory_policy` in its stored form: `self`/`peer` always, `working_memory` only when off,
 * `memory_types` sorted with the agent-evolution types added together with `experiences` and removed
 * otherwise (so `["cases"]` is `[]`). Unknown keys or type names are 400 naming the field.
 */
export function normaliseMemoryPolicy(input: unknown): MemoryPolicy {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalid('memory_policy', 'memory_policy must be an object or null');
  for (const k of Object.keys(input)) {
    if (!KEYS.includes(k))
      throw invalid(`memory_policy.${k.slice(0, 64)}`, `memory_policy has an unknown key: ${k.slice(0, 64)}`);
  }
  const raw = input as Record<string, unknown>;
  const out: MemoryPolicy = {
    self: { enabled: enabled('memory_policy.self', raw.self) },
    peer: { enabled: enabled('memory_policy.peer', raw.peer) },
    memory_types: memoryTypes(raw.memory_types),
  };
  if (!enabled('memory_policy.working_memory', raw.working_memory)) out.working_memory = { enabled: false };
  return out;
}

function memoryTypes(v: unknown): string[] | null {
  if (v === undefined || v === null) return null;
  const field = 'memory_policy.memory_types';
  if (!Array.isArray(v) || v.length > MEMORY_TYPES.length * 4)
    throw invalid(field, `${field} must be a list of type names or null`);
  if (!v.every((t) => typeof t === 'string' && t.trim() !== ''))
    throw invalid(field, `${field} items must be non-empty strings`);
  const names = [...new Set((v as string[]).map((t) => t.trim()))];
  const unknown = names.filter((t) => !(MEMORY_TYPES as readonly string[]).includes(t));
  if (unknown.length)
    throw invalid(field, `Unknown memory_policy.memory_types: ${unknown.map((t) => t.slice(0, 64)).join(', ')}`);
  const base = names.filter((t) => !AGENT_TYPES.includes(t));
  return (names.includes('experiences') ? [...base, ...AGENT_TYPES] : base).sort();
}

/**
 * The server's default policy from configuration (docs/sessions.md "Memory policy"): null when none is
 * configured, else normalised like a session's; an invalid one throws, naming the setting, so the
 * process refuses to start rather than extract with a policy nobody meant.
 */
export function serverDefaultMemoryPolicy(configured: unknown): MemoryPolicy | null {
  if (configured === null || configured === undefined) return null;
  try {
    return normaliseMemoryPolicy(configured);
  } catch (err) {
    throw new Error(`MUNINN_SESSION_MEMORY_POLICY is not a valid memory_policy: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** A stored policy (jsonb) read back, or null; anything malformed reads as null (the default policy). */
export function storedMemoryPolicy(v: unknown): MemoryPolicy | null {
  if (v === null || v === undefined) return null;
  try {
    return normaliseMemoryPolicy(v);
  } catch {
    return null;
  }
}

/**
 * What one commit extracts over an archive's messages, from the effective policy: the session's, else the
 * server's default, else the built-in default (the caller passes the first of the first two it has).
 */
export interface EffectiveExtraction {
  /** Types extracted, sorted; agent-evolution types never (agent evolution is off in Muninn). */
  memoryTypes: string[];
  /** Where memories may go: the user's own space (self on) and the batch's safe peers (peer on). */
  routing: MemoryRouting;
  /** Long-term extraction runs at all: some type left, and self memory on or an allowed peer in the batch. */
  longTerm: boolean;
  /** The archive summary (Working Memory) is written. */
  workingMemory: boolean;
}

export function effectiveExtraction(
  policy: MemoryPolicy | null,
  messages: readonly SessionMessage[] = [],
): EffectiveExtraction {
  const types = (policy?.memory_types ?? [...MEMORY_TYPES]).filter((t) => !AGENT_TYPES.includes(t)).sort();
  const routing = memoryRouting(messages, { self: policy?.self.enabled ?? true, peer: policy?.peer.enabled ?? true });
  return {
    memoryTypes: types,
    routing,
    longTerm: types.length > 0 && (routing.self || routing.peers.length > 0),
    workingMemory: policy?.working_memory?.enabled !== false,
  };
}
