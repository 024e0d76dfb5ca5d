/** Turn-budget retention of a commit (docs/sessions.md "Turn-budget retention"). */
export interface TurnBudget {
  /** Newest whole turns kept live (0: archive everything). */
  turns: number;
  /** Token budget of what stays live. */
  tokenBudget: number;
  /** A latest turn too large for the budget keeps at least this many of its newest steps. */
  minTailSteps: number;
}

export const TURN_BUDGET_DEFAULTS = { turns: 3, tokenBudget: 12_000, minTailSteps: 1 };

/** What the planner needs of a live message, oldest first. */
export interface RetentionMessage {
  role: string;
  messageKind?: string;
  tokens: number;
}

export interface TurnPlan {
  /** The oldest `archive` messages are archived; the rest stay live. */
  archive: number;
  /** Tokens of the messages that stay live. */
  retainedTokens: number;
  /** The minimum tail kept (min_raw_tail_steps) is over the budget. */
  budgetExceeded: boolean;
}

/**
 * Start indexes of the logical turns and steps: a turn starts at each user message that is not tool
 * transport; within it, the user anchor is one step and each assistant message starts another; tool
 * transport joins the step before it. One linear pass.
 */
function boundaries(msgs: RetentionMessage[]): { turns: number[]; steps: number[] } {
  const turns: number[] = [];
  const steps: number[] = [];
  msgs.forEach((m, i) => {
    const transport = m.messageKind === 'tool_transport';
    if (m.role === 'user' && !transport) {
      turns.push(i);
      steps.push(i);
    } else if (i === 0 || (m.role === 'assistant' && !transport)) steps.push(i);
  });
  if (turns[0] !== 0 && msgs.length > 0) turns.unshift(0); // messages before the first user turn form one
  return { turns, steps };
}

/**
 * Which live messages a turn-budget commit keeps: the newest whole turns, at most `turns` of them and
 * within `tokenBudget`; when not even the latest turn fits, that turn's newest steps that fit, but at
 * least `minTailSteps` of them (the budget is then exceeded). What is kept is always a contiguous tail,
 * so the archive takes a prefix. Linear in the number of messages.
 */
export function planTurnRetention(msgs: RetentionMessage[], b: TurnBudget): TurnPlan {
  const n = msgs.length;
  if (n === 0 || b.turns <= 0) return { archive: n, retainedTokens: 0, budgetExceeded: false };
  const suffix = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + msgs[i].tokens;
  const { turns, steps } = boundaries(msgs);
  let keepFrom = n;
  for (let t = turns.length - 1, kept = 0; t >= 0 && kept < b.turns; t--, kept++) {
    if (suffix[turns[t]] > b.tokenBudget) break;
    keepFrom = turns[t];
  }
  if (keepFrom === n) {
    // Not even the latest turn fits whole: its newest steps that fit, at least minTailSteps.
    const latest = turns[turns.length - 1];
    const own = steps.filter((s) => s >= latest);
    for (let s = own.length - 1, kept = 0; s >= 0; s--, kept++) {
      if (kept >= b.minTailSteps && suffix[own[s]] > b.tokenBudget) break;
      keepFrom = own[s];
    }
  }
  const retainedTokens = suffix[keepFrom];
  return { archive: keepFrom, retainedTokens, budgetExceeded: retainedTokens > b.tokenBudget };
}

/**
 * {@link planTurnRetention} from the newest messages only, so a session's pending figure after each append
 * reads a tail, not every live message. `tail` is the newest `tail.length` of `total` live messages, oldest
 * first. A plan that archives part of the tail is the plan of all of them: what is kept starts at a turn or
 * step boundary inside the tail, and the walk from the newest message reaches it before it reaches any older
 * message (an older turn the walk would meet next holds at least the tokens of the tail's first partial one,
 * so it stops the walk exactly as that partial one did). A plan that keeps the whole tail may keep older
 * messages too: null, read a longer tail.
 */
export function planTurnRetentionOfTail(tail: RetentionMessage[], total: number, b: TurnBudget): TurnPlan | null {
  const plan = planTurnRetention(tail, b);
  const older = total - tail.length;
  if (older <= 0) return plan;
  if (plan.archive === 0) return null;
  return { ...plan, archive: plan.archive + older };
}
