import { EventEmitter, getMaxListeners } from 'node:events';
import type { ServerResponse } from 'node:http';
import { abandonSignal } from './request-id';

/** The part of a Node response abandonSignal reads: its close event and whether it was sent in full. */
function response(): ServerResponse & EventEmitter {
  return Object.assign(new EventEmitter(), { destroyed: false, writableFinished: false }) as never;
}

describe('abandonSignal', () => {
  it('aborts when the response closes before it was sent in full, not after', () => {
    const cut = response();
    const gone = abandonSignal(cut);
    cut.emit('close');
    expect(gone.aborted).toBe(true);
    const sent = response();
    const kept = abandonSignal(sent);
    (sent as { writableFinished: boolean }).writableFinished = true;
    sent.emit('close');
    expect(kept.aborted).toBe(false);
  });

  it("lets every call of a batch wait on it without Node's leak warning", () => {
    expect(getMaxListeners(new AbortController().signal)).toBe(10); // an 11th listener prints the warning
    expect(getMaxListeners(abandonSignal(response()))).toBe(10);
    // A JSON-RPC batch of 16 searches: each call's job waits on the signal.
    expect(getMaxListeners(abandonSignal(response(), 16))).toBeGreaterThanOrEqual(2 * 16);
    expect(getMaxListeners(abandonSignal(response(), 1000))).toBeGreaterThanOrEqual(2 * 1000);
  });
});
