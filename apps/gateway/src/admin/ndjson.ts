/**
 * Serialises lines as NDJSON, one JSON value per line, as the consumer pulls them: the stream built on
 * it asks for the next line only when the client has taken the last, and stopping it (the client went
 * away) ends the source generator, so no further page is read from the store.
 */
export async function* ndjson(lines: AsyncIterable<unknown>): AsyncGenerator<string> {
  for await (const line of lines) yield `${JSON.stringify(line)}\n`;
}
