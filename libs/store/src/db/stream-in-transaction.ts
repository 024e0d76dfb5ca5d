import { Db, TransactionOptions } from './db.port';

type Message<T> = { kind: 'item'; value: T } | { kind: 'end' } | { kind: 'error'; err: unknown };

/**
 * The lines `make` reads inside one transaction, handed out as the consumer pulls them: the transaction
 * (and its connection) stays open while the consumer takes its time, one line ahead at most, and ends when
 * the lines do, when the consumer stops (an HTTP client that went away), or when a read fails (rethrown
 * to the consumer). It is over, and its connection released, before the returned generator finishes.
 */
export async function* streamInTransaction<T>(
  db: Pick<Db, 'transaction'>,
  opts: TransactionOptions,
  make: (tx: Pick<Db, 'query' | 'kind'>) => AsyncIterable<T>,
): AsyncGenerator<T> {
  const inbox: Message<T>[] = [];
  let deliver: ((m: Message<T>) => void) | null = null;
  let askNext: ((more: boolean) => void) | null = null;
  const send = (m: Message<T>) => {
    const d = deliver;
    deliver = null;
    if (d) d(m);
    else inbox.push(m);
  };
  const receive = () =>
    inbox.length > 0 ? Promise.resolve(inbox.shift()!) : new Promise<Message<T>>((r) => (deliver = r));
  const answer = (more: boolean) => {
    const a = askNext;
    askNext = null;
    a?.(more);
  };

  const done = db
    .transaction(async (tx) => {
      for await (const value of make(tx)) {
        const more = new Promise<boolean>((r) => (askNext = r));
        send({ kind: 'item', value });
        if (!(await more)) return;
      }
    }, opts)
    .then(
      () => send({ kind: 'end' }),
      (err: unknown) => send({ kind: 'error', err }),
    );
  try {
    for (;;) {
      const m = await receive();
      if (m.kind === 'end') return;
      if (m.kind === 'error') throw m.err;
      yield m.value;
      answer(true);
    }
  } finally {
    // The consumer stopped (or the lines ended): the reader stops at its next line and the transaction ends.
    answer(false);
    await done;
  }
}
