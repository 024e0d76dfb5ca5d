import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

/**
 * One HTTP request with full control over its headers (fetch cannot set Host, and always adds a
 * content type to string bodies). A body the server refuses before reading it is still sent whole.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawAnswer> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        // As given (curl --path-as-is): URL parsing would fold `%2E%2E` segments before the server saw them.
        path: path.startsWith('/') ? path : url.pathname + url.search,
        headers: opts.headers ?? {},
        setHost: !hasHost(opts.headers),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
        });
      },
    );
    // The server may answer and close before it has read a large body: the answer still counts.
    req.on('error', reject);
    if (opts.body !== undefined) req.end(opts.body);
    else req.end();
  });
}

function hasHost(headers: Record<string, string> | undefined): boolean {
  return Object.keys(headers ?? {}).some((k) => k.toLowerCase() === 'host');
}
