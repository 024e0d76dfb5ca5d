import { identifierProblem } from '../uri/identifier';
import { userRoot } from '../uri/uri-path';
import { SessionMessage } from './session-message';

/**
 * Where the memories of one extraction may go (docs/sessions.md "Peer memories"): the user's own space
 * when self memory is on, and the safe distinct `peer_id`s of the batch's messages when peer memory is on.
 */
export interface MemoryRouting {
  self: boolean;
  /** Allowed peer ids, in order of first appearance; empty when peer memory is off. */
  peers: string[];
}

/** A memory's space: a peer id, or null for the user's own `memories/`. */
export type MemoryTarget = string | null;

/** Routing when nothing else is known: everything to the user's own space (as before peer memories). */
export const SELF_ONLY: MemoryRouting = { self: true, peers: [] };

const safePeer = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const p = v.trim();
  return p && identifierProblem(p, 'peer_id') === null ? p : null;
};

/** The batch's routing under a policy's `self`/`peer` switches. */
export function memoryRouting(messages: readonly SessionMessage[], policy: { self: boolean; peer: boolean }) {
  const peers: string[] = [];
  if (policy.peer) {
    const seen = new Set<string>();
    for (const m of messages) {
      const p = safePeer(m.peer_id);
      if (p && !seen.has(p)) {
        seen.add(p);
        peers.push(p);
      }
    }
  }
  return { self: policy.self, peers } satisfies MemoryRouting;
}

/** `viking://user/<id>/memories` or `viking://user/<id>/peers/<peer>/memories` (the contract's layout). */
export function memoryRoot(userId: string, target: MemoryTarget | undefined): string {
  return target ? `${userRoot(userId)}/peers/${target}/memories` : `${userRoot(userId)}/memories`;
}

/** A turn as routing sees it: the message it came from and its role. */
interface Routed {
  id: string;
  role: string;
}

/**
 * Routes extracted items (§6.5 of the contract, docs/sessions.md "Peer memories"):
 * - memory made of turns (events, and offline quotes): the targets of its **user** turns — no `peer_id`
 *   → self, an allowed `peer_id` → that peer, a `peer_id` while peer memory is off → self, an unsafe one
 *   → nowhere; assistant-only turns take the batch's unique target (else self when allowed);
 * - an item naming a peer (model answers): allowed → that peer, anything else dropped; no peer → self, or
 *   when self memory is off the unique allowed peer among the user messages.
 */
export class MemoryRouter {
  private readonly byId = new Map<string, MemoryTarget | undefined>();
  private readonly fallback: MemoryTarget[];
  private readonly userPeers: string[];

  constructor(
    readonly routing: MemoryRouting,
    messages: readonly SessionMessage[],
  ) {
    const targets = new Set<MemoryTarget>();
    const userPeers = new Set<string>();
    for (const m of messages) {
      if (m.role !== 'user') continue;
      const t = this.messageTarget(m.peer_id);
      this.byId.set(m.id, t);
      if (t !== undefined) targets.add(t);
      if (t) userPeers.add(t);
    }
    this.userPeers = [...userPeers];
    if (targets.size === 1) this.fallback = [...targets];
    else this.fallback = routing.self ? [null] : [];
  }

  /** The target of a user message's `peer_id`; undefined: the message feeds no memory. */
  private messageTarget(peerId: unknown): MemoryTarget | undefined {
    if (peerId === undefined || peerId === null || (typeof peerId === 'string' && !peerId.trim()))
      return this.routing.self ? null : undefined;
    const p = safePeer(peerId);
    if (p === null) return undefined;
    if (this.routing.peers.includes(p)) return p;
    // A safe peer outside the allowed list: peer memory is off, so the turn is the user's own.
    return this.routing.self ? null : undefined;
  }

  /** Targets of a memory made of these turns (distinct, in order of first appearance). */
  targetsOf(turns: readonly Routed[]): MemoryTarget[] {
    const users = turns.filter((t) => t.role === 'user');
    if (users.length === 0) return this.fallback;
    const out: MemoryTarget[] = [];
    for (const t of users) {
      const target = this.byId.get(t.id);
      if (target !== undefined && !out.includes(target)) out.push(target);
    }
    return out;
  }

  /** The target of an item with an optional `peer_id` (the model's answer); undefined: dropped. */
  itemTarget(peerId: unknown): MemoryTarget | undefined {
    if (peerId === undefined || peerId === null || (typeof peerId === 'string' && !peerId.trim())) {
      if (this.routing.self) return null;
      return this.userPeers.length === 1 ? this.userPeers[0] : undefined;
    }
    const p = safePeer(peerId);
    return p !== null && this.routing.peers.includes(p) ? p : undefined;
  }
}
