import { KernelError, KernelErrorCode } from '@app/kernel';

/** One line of an NDJSON body: its 1-based number (blank lines counted), text and UTF-8 bytes. */
export interface NdjsonLine {
  line: number;
  text: string;
  bytes: number;
}

/**
 * The non-blank lines of a streamed NDJSON body, each decoded as strict UTF-8, reading the body only as
 * fast as the consumer takes lines (docs/limits-and-security.md, "Importing an account"). Holds at most
 * one line in memory: past `maxLineBytes` for a line, or `maxBytes` for the body, it stops reading and
 * throws 413 naming the line or the body. Linear in the body's size.
 */
export async function* ndjsonLines(
  body: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  bounds: { maxBytes: number; maxLineBytes: number },
): AsyncGenerator<NdjsonLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let total = 0;
  let line = 1;
  let held: Buffer[] = [];
  let heldBytes = 0;
  const take = (piece: Buffer) => {
    if (heldBytes + piece.length > bounds.maxLineBytes) {
      throw new KernelError(
        KernelErrorCode.PayloadTooLarge,
        `line ${line} is longer than ${bounds.maxLineBytes} bytes`,
        {
          field: `line ${line}`,
          limit_bytes: bounds.maxLineBytes,
        },
      );
    }
    held.push(piece);
    heldBytes += piece.length;
  };
  const finish = (): NdjsonLine | null => {
    const buf = held.length === 1 ? held[0] : Buffer.concat(held);
    held = [];
    heldBytes = 0;
    let text: string;
    try {
      text = decoder.decode(buf);
    } catch {
      throw new KernelError(KernelErrorCode.InvalidArgument, `line ${line} is not valid UTF-8`, {
        field: `line ${line}`,
      });
    }
    if (text.endsWith('\r')) text = text.slice(0, -1);
    const out = text.trim() === '' ? null : { line, text, bytes: buf.length };
    line++;
    return out;
  };
  for await (const raw of body) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
    total += chunk.length;
    if (total > bounds.maxBytes) {
      throw new KernelError(KernelErrorCode.PayloadTooLarge, `the body is larger than ${bounds.maxBytes} bytes`, {
        field: 'body',
        limit_bytes: bounds.maxBytes,
      });
    }
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      take(chunk.subarray(start, nl));
      start = nl + 1;
      const done = finish();
      if (done) yield done;
    }
    if (start < chunk.length) take(chunk.subarray(start));
  }
  if (heldBytes > 0) {
    const done = finish();
    if (done) yield done;
  }
}
