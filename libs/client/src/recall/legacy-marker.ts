import { join } from 'node:path';
import { readStateFile, writeStateFile } from './state-file';

/** How long a server that rejected `mode:"context"` is treated as legacy (docs/contract.md#fallback-chain). */
export const LEGACY_MARKER_TTL_MS = 6 * 60 * 60 * 1000;
export const LEGACY_MARKER_FILE = 'context-face.json';

/** The "this server has no context face" marker: `{"legacyUntil": <epoch ms>}` in the state dir. */
export class LegacyMarker {
  readonly path: string;

  constructor(
    stateDir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.path = join(stateDir, LEGACY_MARKER_FILE);
  }

  /** True while an earlier rejection is less than six hours old. */
  async isFresh(): Promise<boolean> {
    const marker = (await readStateFile(this.path)) as { legacyUntil?: unknown } | null;
    return typeof marker?.legacyUntil === 'number' && marker.legacyUntil > this.now();
  }

  async write(): Promise<void> {
    await writeStateFile(this.path, { legacyUntil: this.now() + LEGACY_MARKER_TTL_MS });
  }
}
