/** Role of an API key; `root` sees its whole account, `admin` manages users, `user` owns one space. */
export type Role = 'root' | 'admin' | 'user';

/** The request context every kernel decision is scoped by (docs/contract.md#accounts-users-and-keys). */
export interface Identity {
  accountId: string;
  userId: string;
  role: Role;
  /** `X-OpenViking-Actor-Peer`: narrows the view of `{user}/peers/` to this one peer. */
  actorPeerId: string | null;
}

/** Retrieval context types used by target defaults and filters. */
export type ContextType = 'memory' | 'resource' | 'skill';

/** The same identity without the actor view, used for the other-peer scan and other-peer reads. */
export function openContext(identity: Identity): Identity {
  return { ...identity, actorPeerId: null };
}
