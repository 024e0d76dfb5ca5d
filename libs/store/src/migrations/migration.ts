/** A versioned schema migration, applied in order at start-up. Never edit a shipped one; add the next. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
