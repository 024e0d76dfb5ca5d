import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The committed OpenAPI document (what the built server serves with the default bounds; client-openapi.e2e-spec.ts
// keeps it in sync). Every input a request can carry states its bound there (docs/limits-and-security.md,
// "Request bounds"): each string a maxLength, each list a maxItems, each map a maxProperties.
const doc = JSON.parse(readFileSync(join(__dirname, '../../../../libs/client/openapi.json'), 'utf8'));

type Schema = Record<string, any>;

/** Where a request input has no bound. Numbers are left out: a number's size costs nothing unless it sets
 * work (a limit, a budget, a timeout), and those carry a maximum of their own. */
function unbounded(schema: Schema | undefined, at: string, seen: Set<string>, out: string[]): void {
  if (!schema || typeof schema !== 'object') return;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.slice(schema.$ref.lastIndexOf('/') + 1);
    if (seen.has(name)) return;
    seen.add(name);
    unbounded(doc.components.schemas[name], name, seen, out);
    return;
  }
  for (const key of ['oneOf', 'anyOf', 'allOf'])
    (schema[key] ?? []).forEach((s: Schema, i: number) => unbounded(s, `${at}|${i}`, seen, out));
  if (schema.type === 'string' && schema.maxLength === undefined && !schema.enum && schema.const === undefined)
    out.push(`${at}: string`);
  if (schema.type === 'array') {
    if (schema.maxItems === undefined) out.push(`${at}: list`);
    unbounded(schema.items, `${at}[]`, seen, out);
  }
  for (const [name, prop] of Object.entries<Schema>(schema.properties ?? {}))
    unbounded(prop, `${at}.${name}`, seen, out);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    if (schema.maxProperties === undefined) out.push(`${at}: map`);
    unbounded(schema.additionalProperties, `${at}{}`, seen, out);
  }
}

describe('the OpenAPI document bounds every request input', () => {
  it('no string without maxLength, list without maxItems or map without maxProperties in a body or parameter', () => {
    const out: string[] = [];
    const seen = new Set<string>();
    let inputs = 0;
    for (const [path, item] of Object.entries<Schema>(doc.paths)) {
      for (const [method, op] of Object.entries<Schema>(item)) {
        for (const p of op.parameters ?? []) {
          inputs += 1;
          unbounded(p.schema, `${method.toUpperCase()} ${path} ${p.in}:${p.name}`, seen, out);
        }
        const body = op.requestBody?.content?.['application/json']?.schema;
        if (body) {
          inputs += 1;
          unbounded(body, `${method.toUpperCase()} ${path} body`, seen, out);
        }
      }
    }
    expect(inputs).toBeGreaterThan(100);
    expect(out).toEqual([]);
  });
});
