import { loadConfig } from '@app/config';
import { toolListing } from './tool-listing';

type Node = Record<string, any>;

// tools/list states every argument's bound, as the OpenAPI document does for the routes (openapi-bounds.spec.ts).
describe('tools/list carries the configured bounds', () => {
  const config = loadConfig({ MUNINN_QUERY_MAX_CHARS: '777', MUNINN_MCP_READ_MAX_URIS: '7' });
  const tools = new Map(toolListing(config).map((t) => [t.name, t.inputSchema as Node]));

  it('no string without maxLength, list without maxItems or map without maxProperties in any tool', () => {
    const out: string[] = [];
    const walk = (n: Node, at: string): void => {
      if (n.type === 'string' && n.maxLength === undefined && !n.enum) out.push(`${at}: string`);
      if (n.type === 'array') {
        if (n.maxItems === undefined) out.push(`${at}: list`);
        walk(n.items, `${at}[]`);
      }
      if (n.type === 'object' && n.additionalProperties && n.maxProperties === undefined) out.push(`${at}: map`);
      for (const [k, v] of Object.entries<Node>(n.properties ?? {})) walk(v, `${at}.${k}`);
    };
    for (const [name, schema] of tools) walk(schema, name);
    expect(tools.size).toBeGreaterThan(15);
    expect(out).toEqual([]);
  });

  it('takes the configured figures: the gate table by name, the tools’ own checks for their own arguments', () => {
    expect(tools.get('search')!.properties.query.maxLength).toBe(777);
    expect(tools.get('read')!.properties.uris).toMatchObject({
      maxItems: 7,
      items: { maxLength: config.limits.uriMaxChars },
    });
    expect(tools.get('grep')!.properties.pattern.items.maxLength).toBe(config.filter.maxPatternLength);
    expect(tools.get('glob')!.properties.pattern.maxLength).toBe(config.filter.maxPatternLength);
    expect(tools.get('write')!.properties.content.maxLength).toBe(config.http.bodyLimitBytes);
    expect(tools.get('remember')!.properties.messages.items.properties.content.maxLength).toBe(
      config.sessions.messageMaxChars,
    );
    expect(tools.get('search')!.properties.detail_by_category.maxProperties).toBe(7);
  });
});
