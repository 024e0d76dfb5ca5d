import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/**
 * Serialises lines as NDJSON, one JSON value per line, as the consumer pulls them: the stream built on
 * it asks for the next line only when the client has taken the last, and stopping it (the client went
 * away) ends the source generator, so no further page is read from the store.
 */
export async function* ndjson(lines: AsyncIterable<unknown>): AsyncGenerator<string> {
  for await (const line of lines) yield `${JSON.stringify(line)}\n`;
}

/**
 * An export's response: NDJSON as an attachment named `{name}.ndjson`, streamed as the client reads;
 * `release` runs once the stream is closed, however it ends (whole, failed, or its client gone).
 */
export function sendNdjson(
  reply: FastifyReply,
  name: string,
  lines: AsyncIterable<unknown>,
  release: () => void,
): Readable {
  void reply.header('content-type', 'application/x-ndjson; charset=utf-8');
  void reply.header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(name)}.ndjson`);
  return Readable.from(ndjson(lines), { objectMode: false }).once('close', release);
}
