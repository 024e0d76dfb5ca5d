import { ContextType } from '../identity/identity';
import { invalidArgument } from '../kernel.error';

const VALID = new Set<string>(['memory', 'resource', 'skill']);

/**
 * Parse `context_type` (docs/contract.md#find-request): a string or list, comma lists allowed, case-insensitive,
 * deduped.
 */
export function parseContextTypes(value: unknown): ContextType[] {
  if (value === null || value === undefined) return [];
  const raw: string[] = [];
  if (typeof value === 'string') raw.push(...value.split(','));
  else if (Array.isArray(value)) {
    for (const item of value) {
      if (typeof item !== 'string')
        throw invalidArgument('context_type must be a ContextType, string, or list of ContextType/string values');
      raw.push(...item.split(','));
    }
  } else {
    throw invalidArgument('context_type must be a ContextType, string, or list of ContextType/string values');
  }
  const types: ContextType[] = [];
  let invalid = false;
  for (const item of raw) {
    const normalized = item.trim().toLowerCase();
    if (!normalized) continue;
    if (!VALID.has(normalized)) invalid = true;
    else if (!types.includes(normalized as ContextType)) types.push(normalized as ContextType);
  }
  if (invalid) throw invalidArgument('context_type must be one or more of: memory, resource, skill');
  return types;
}
