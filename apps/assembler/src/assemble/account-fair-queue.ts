import { Piscina } from 'piscina';
import type { TaskQueue } from 'piscina';

type Task = Parameters<TaskQueue['push']>[0];

/** What a plan task says of itself to the queue (its payload's `Piscina.queueOptionsSymbol` property). */
export interface PlanQueueOptions {
  account: string;
}

/** Marks a thread task as `account`'s, for {@link AccountFairQueue}; the mark is not copied to the thread. */
export function forAccount<T extends object>(task: T, account: string): T {
  return Object.assign(task, { [Piscina.queueOptionsSymbol]: { account } satisfies PlanQueueOptions });
}

/**
 * The plan threads' line (docs/limits-and-security.md, "Large plans on worker threads"), taken account by account:
 * next comes the oldest plan of the account after the one served last, so a tenant's plans wait behind at most one
 * plan of each other account waiting, not behind everything one tenant sent first. piscina's own line is first in,
 * first out across every tenant; this is its `taskQueue` extension point. A task without an account is the
 * account ''.
 */
export class AccountFairQueue implements TaskQueue {
  private readonly lines = new Map<string, Task[]>();
  /** Accounts with waiting plans, the next to serve first. */
  private readonly turn: string[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(task: Task): void {
    const account = accountOf(task);
    const line = this.lines.get(account);
    if (line) line.push(task);
    else {
      this.lines.set(account, [task]);
      this.turn.push(account);
    }
    this.count++;
  }

  /** Puts a task back at the head of the line (its account served next). */
  unshift(task: Task): void {
    const account = accountOf(task);
    const line = this.lines.get(account);
    if (line) {
      line.unshift(task);
      this.turn.splice(this.turn.indexOf(account), 1);
    } else this.lines.set(account, [task]);
    this.turn.unshift(account);
    this.count++;
  }

  shift(): Task | null {
    const account = this.turn.shift();
    if (account === undefined) return null;
    const line = this.lines.get(account)!;
    const task = line.shift()!;
    if (line.length > 0) this.turn.push(account);
    else this.lines.delete(account);
    this.count--;
    return task;
  }

  remove(task: Task): void {
    const account = accountOf(task);
    const line = this.lines.get(account);
    const at = line?.indexOf(task) ?? -1;
    if (!line || at < 0) return;
    line.splice(at, 1);
    this.count--;
    if (line.length > 0) return;
    this.lines.delete(account);
    this.turn.splice(this.turn.indexOf(account), 1);
  }
}

function accountOf(task: Task): string {
  const options = (task as unknown as Record<symbol, PlanQueueOptions | null | undefined>)[Piscina.queueOptionsSymbol];
  return options?.account ?? '';
}
