import { loadConfig } from '@app/config';
import { applyBoundsToOpenApi, boundsIssue } from './request-bounds';

const limits = loadConfig({
  MUNINN_QUERY_MAX_CHARS: '20',
  MUNINN_URI_MAX_DEPTH: '4',
  MUNINN_TAGS_MAX_ITEMS: '2',
  MUNINN_BODY_MAX_DEPTH: '40',
  MUNINN_WAIT_MAX_S: '30',
}).limits;
const check = (body: unknown, route = '/api/v1/search/find') => boundsIssue(body, 'body', route, limits);

describe('boundsIssue', () => {
  it('accepts bodies within every bound', () => {
    expect(check({ query: 'short', target_uri: ['viking://resources/a/b'], tags: ['a=1'] })).toBeNull();
  });

  it('names the field and the limit of the first excess', () => {
    expect(check({ query: 'x'.repeat(21) })).toMatchObject({ loc: ['body', 'query'], type: 'string_too_long' });
    expect(check({ tags: ['a', 'b', 'c'] })).toMatchObject({ loc: ['body', 'tags'], type: 'too_long' });
    expect(check({ filter: { conds: ['viking://resources/a/b/c/d'] } })).toMatchObject({
      loc: ['body', 'filter', 'conds', 0],
      type: 'uri_too_deep',
    });
  });

  it('bounds the find fields that are neither text nor URIs, the per-category maps and path ids', () => {
    expect(check({ since: 'x'.repeat(129) })).toMatchObject({ loc: ['body', 'since'], type: 'string_too_long' });
    expect(check({ context_type: Array.from({ length: 201 }, () => 'memory') })).toMatchObject({
      loc: ['body', 'context_type'],
      type: 'too_long',
    });
    expect(check({ level: ['0'.repeat(129)] })).toMatchObject({ loc: ['body', 'level', 0], type: 'string_too_long' });
    const nine = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, 1]));
    expect(check({ quotas: nine })).toMatchObject({ loc: ['body', 'quotas'], type: 'too_long' });
    expect(check({ quotas: { events: 2, entities: 1 }, detail: { events: 'full' } })).toBeNull();
    const path = (params: unknown) => boundsIssue(params, 'path', '/api/v1/sessions/x', limits);
    expect(path({ sessionId: 's'.repeat(128) })).toBeNull();
    expect(path({ sessionId: 's'.repeat(129) })).toMatchObject({ loc: ['path', 'sessionId'] });
  });

  it('finds NUL in values and keys, at any depth', () => {
    expect(check({ a: [{ b: 'x\u0000' }] })).toMatchObject({ loc: ['body', 'a', 0, 'b'], type: 'string_nul' });
    expect(check({ ['k\u0000']: 1 })).toMatchObject({ loc: ['body', 'k\u0000'], type: 'string_nul' });
    expect(check({ a: ['ok', 'x\ud800y'] })).toMatchObject({
      loc: ['body', 'a', 1],
      type: 'string_unpaired_surrogate',
    });
    expect(check({ ['k\udc00']: 1 })).toMatchObject({ loc: ['body', 'k\udc00'], type: 'string_unpaired_surrogate' });
    expect(check({ a: '😀 \ud83d\ude00 𠮷' })).toBeNull();
  });

  it('refuses reserved keys at any depth, naming where (a nested `constructor` broke the DTO transform)', () => {
    expect(check({ uri: [{ constructor: 'viking://' }] })).toMatchObject({
      loc: ['body', 'uri', 0, 'constructor'],
      type: 'reserved_key',
    });
    expect(check(JSON.parse('{"metadata":{"__proto__":{"x":1}}}'))).toMatchObject({ type: 'reserved_key' });
    expect(check({ filter: { field: 'constructor' } })).toBeNull();
  });

  it('bounds nesting without recursion (a 100,000-deep body costs no stack)', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(check({ filter: deep })).toMatchObject({ loc: ['body', 'filter'], type: 'too_deep' });
  });

  it('leaves free text alone, and applies message bounds only on message routes', () => {
    expect(check({ content: `viking://resources/${'a/'.repeat(50)}` })).toBeNull();
    const long = 'x'.repeat(limits.messageMaxChars + 1);
    expect(check({ content: long })).toBeNull();
    expect(check({ content: long }, '/api/v1/sessions/s/messages')).toMatchObject({ loc: ['body', 'content'] });
  });

  it('caps every wait timeout at MUNINN_WAIT_MAX_S, inside MCP tool arguments too', () => {
    expect(check({ timeout: 30 }, '/api/v1/system/wait')).toBeNull();
    expect(check({ timeout: null }, '/api/v1/system/wait')).toBeNull();
    expect(check({ timeout: 30.5 }, '/api/v1/system/wait')).toMatchObject({
      loc: ['body', 'timeout'],
      type: 'less_than_equal',
      message: 'Input should be less than or equal to 30',
    });
    expect(check({ params: { arguments: { wait: true, timeout: 31 } } }, '/mcp')).toMatchObject({
      loc: ['body', 'params', 'arguments', 'timeout'],
    });
  });
});

describe('applyBoundsToOpenApi', () => {
  it('bounds request schemas (also through references) and query parameters, not response schemas', () => {
    const doc: Record<string, any> = {
      paths: {
        '/find': {
          post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Req' } } } } },
        },
        '/stat': { get: { parameters: [{ in: 'query', name: 'uri', schema: { type: 'string' } }] } },
      },
      components: {
        schemas: {
          Req: {
            properties: {
              query: { type: 'string' },
              timeout: { type: 'number', minimum: 0 },
              ops: { type: 'array', items: { $ref: '#/components/schemas/Op' } },
            },
          },
          Op: { properties: { uri: { type: 'string' } } },
          Res: { properties: { uri: { type: 'string' } } },
        },
      },
    };
    applyBoundsToOpenApi(doc, limits);
    expect(doc.components.schemas.Req.properties.query.maxLength).toBe(20);
    expect(doc.components.schemas.Req.properties.timeout).toEqual({ type: 'number', minimum: 0, maximum: 30 });
    expect(doc.components.schemas.Op.properties.uri.maxLength).toBe(limits.uriMaxChars);
    expect(doc.components.schemas.Res.properties.uri.maxLength).toBeUndefined();
    expect(doc.paths['/stat'].get.parameters[0].schema.maxLength).toBe(limits.uriMaxChars);
  });
});
