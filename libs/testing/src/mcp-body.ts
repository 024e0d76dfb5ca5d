/**
 * The JSON-RPC messages of an MCP HTTP answer, read the way the reference's stdio proxy reads them:
 * the `data:` lines of each SSE event when the content type is `text/event-stream`, else one JSON
 * value (a message or a batch). An empty body (202) is no message.
 */
export function parseMcpBody(contentType: string | null, text: string): any[] {
  if (!text.trim()) return [];
  if ((contentType ?? '').includes('text/event-stream')) {
    return text.split(/\r?\n\r?\n/).flatMap((event) => {
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      return data ? [JSON.parse(data)] : [];
    });
  }
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value : [value];
}

/** One MCP `tools/call` over HTTP with an API key; resolves with the HTTP status and the call's JSON-RPC result. */
export async function callMcpTool(
  url: string,
  key: string,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
): Promise<{ status: number; result: any }> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
    }),
  });
  const [answer] = parseMcpBody(res.headers.get('content-type'), await res.text());
  return { status: res.status, result: answer?.result };
}
