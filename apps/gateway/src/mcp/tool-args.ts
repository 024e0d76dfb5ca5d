import { invalidArgument } from '@app/kernel';
import type { PropSpec } from './tool-schema';

// Reading MCP tool arguments against a tool's property table. As the reference's server does, a
// string given for a non-string parameter is JSON-parsed first (`uris:"[\"a\"]"` is a list), and a
// bare string is accepted where a list of strings is declared. Bounds come from the table; a value parsed
// from a string is also checked as the request gate checks the arguments it sees (`checkParsed`): the
// gate saw only the string (docs/fs-and-mcp.md, "MCP tools").

export type Args = Record<string, unknown>;

/** The request gate's checks (bounds by name, depth, NUL) on a value parsed from argument `name`'s string. */
export type ParsedCheck = (name: string, value: unknown) => void;

/** Coerces and checks `raw` against `props`; throws INVALID_ARGUMENT naming the argument. */
export function readArgs(
  raw: unknown,
  props: Record<string, PropSpec>,
  required: string[],
  checkParsed: ParsedCheck = () => undefined,
): Args {
  const input = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Args) : {};
  const out: Args = {};
  for (const name of required) {
    if (input[name] === undefined || input[name] === null) {
      throw invalidArgument(`${name}: Field required`, { field: name });
    }
  }
  for (const [name, spec] of Object.entries(props)) {
    const value = input[name];
    if (value === undefined || value === null) continue;
    out[name] = coerce(name, spec, value, checkParsed);
  }
  return out;
}

function coerce(name: string, spec: PropSpec, value: unknown, checkParsed: ParsedCheck): unknown {
  let v = value;
  if (spec.type !== 'string' && typeof v === 'string') {
    const parsed = tryJson(v);
    if (parsed !== undefined) {
      checkParsed(name, parsed);
      v = parsed;
    } else if (spec.type === 'array' && (spec.of ?? 'string') === 'string' && !spec.itemProps) v = [v];
  }
  if (spec.type === 'array' && typeof v === 'string' && !spec.itemProps) v = [v];
  const bad = () => invalidArgument(`${name}: Input should be a valid ${spec.type}`, { field: name });
  switch (spec.type) {
    case 'string':
      if (typeof v !== 'string') throw bad();
      if (spec.maxLength !== undefined && v.length > spec.maxLength) {
        const message = `${name}: String should have at most ${spec.maxLength} characters`;
        throw invalidArgument(message, { field: name, limit: spec.maxLength });
      }
      if (spec.enum && !spec.enum.includes(v)) {
        const allowed = spec.enum.map((e) => `'${e}'`).join(' or ');
        throw invalidArgument(`${name}: Input should be ${allowed}`, { field: name });
      }
      return v;
    case 'integer':
      if (typeof v !== 'number' || !Number.isInteger(v)) throw bad();
      return v;
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) throw bad();
      return v;
    case 'boolean':
      if (typeof v !== 'boolean') throw bad();
      return v;
    case 'array': {
      if (!Array.isArray(v)) throw bad();
      if (spec.maxItems !== undefined && v.length > spec.maxItems) {
        const message = `${name}: List should have at most ${spec.maxItems} items`;
        throw invalidArgument(message, { field: name, limit: spec.maxItems });
      }
      const itemType = spec.of === 'integer' ? 'number' : (spec.of ?? 'string');
      if (!spec.itemProps && v.some((x) => typeof x !== itemType)) throw bad();
      return v;
    }
    case 'object':
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw bad();
      return v;
  }
}

function tryJson(text: string): unknown {
  const t = text.trim();
  if (!/^[[{0-9tfn"-]/.test(t)) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}
