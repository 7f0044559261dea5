/**
 * What a session's row on the board (and its line in `ls`) says, pure: the order of the rows,
 * the colour of each state, and the detail column in a person's words.
 */
import { constants } from 'node:os';
import type { SessionInfo } from '../../runtime/protocol.ts';
import { promptAction } from '../../runtime/notify-gate.ts';
import type { SessionState } from '../../detect/types.ts';
import { processGone } from '../../runtime/session-directory.ts';

const STATE_ORDER: Record<SessionState, number> = {
  blocked: 0,
  working: 1,
  idle: 1,
  running: 1,
  shell: 1,
  exited: 2,
};

/**
 * SGR per state: blocked red bold, working yellow, idle green, running cyan, shell dim,
 * exited grey.
 */
export const STATE_SGR: Record<SessionState, string> = {
  blocked: '1;31',
  working: '33',
  idle: '32',
  running: '36',
  shell: '2',
  exited: '90',
};

/**
 * The board's order: blocked first (the longest waiting on top), then working and idle in
 * the order they started (rows must not jump about as states change), exited last (live
 * shells before the processes that are gone).
 */
export function sortSessions(infos: readonly SessionInfo[]): SessionInfo[] {
  if (inBoardOrder(infos)) return [...infos];
  // Each rank computed once, not once per comparison.
  return infos.map((info) => ({ info, rank: rankOf(info) }))
    .sort((a, b) => compareRanked(a.info, a.rank, b.info, b.rank))
    .map((r) => r.info);
}

/** Whether `infos` are in the board's order already (as the board passes them to render). */
export function inBoardOrder(infos: readonly SessionInfo[]): boolean {
  let prev = infos[0];
  let prevRank = prev ? rankOf(prev) : 0;
  for (let i = 1; i < infos.length; i++) {
    const rank = rankOf(infos[i]);
    if (compareRanked(prev, prevRank, infos[i], rank) > 0) return false;
    prev = infos[i];
    prevRank = rank;
  }
  return true;
}

/**
 * A session's group on the board: 0 blocked, 1 live, 2 exited but its process live (a shell
 * after its agent), 3 gone (see {@link STATE_ORDER}). Rows are sorted by it first.
 */
export function rankOf(info: SessionInfo): number {
  return STATE_ORDER[info.state] + (processGone(info) ? 1 : 0);
}

function compareRanked(a: SessionInfo, ra: number, b: SessionInfo, rb: number): number {
  if (ra !== rb) return ra - rb;
  if (a.state === 'blocked') return a.since - b.since || a.id.localeCompare(b.id);
  return a.startedAt - b.startedAt || a.id.localeCompare(b.id);
}

/**
 * What a blocked prompt asks about, in a person's words (`Bash: npm test`): the notice's
 * action, see {@link promptAction}; '' when the prompt has no details.
 */
export function askedAbout(details: readonly string[] | undefined): string {
  return promptAction(details ?? []);
}

/** 'SIGHUP (signal 1)' for signal number `n` (this system's numbering), else 'signal N'. */
function signalName(n: number): string {
  const name = Object.entries(constants.signals).find(([, v]) => v === n)?.[0];
  return name ? `${name} (signal ${n})` : `signal ${n}`;
}

/** An age for a person: '12 s', '2 m', '3 h'. */
function ago(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} m`;
  return `${Math.floor(s / 3600)} h`;
}

/**
 * The detail column, in a person's words (how a rule decided is `explain`'s): a blocked
 * session's prompt (what it is about, then the question); a working one's activity when the
 * agent says it, else `working`; an idle one's `done 2 m ago`; the command a `running` pane
 * runs; for an exited one, how its process ended, or the shell left in it. `now` in ms.
 */
export function detailOf(info: SessionInfo, now = Date.now()): string {
  const state = info.state;
  switch (state) {
    case 'blocked': {
      const what = askedAbout(info.details);
      const question = info.question || (what ? '' : info.options?.[0]) || '';
      return [what, question].filter(Boolean).join(' · ') || 'a prompt waits for you';
    }
    case 'working':
      if (info.activity) return info.activity;
      if (info.reason.startsWith('starting')) return 'starting'; // no input box, or nothing drawn
      return info.by === 'acp' ? info.reason : 'working';
    case 'idle':
      if (info.by === 'start') return 'started, no task yet';
      if (info.fresh) return 'ready, no task yet'; // idle since it started: nothing is done
      if (info.by === 'acp' && !info.reason.startsWith('turn ended')) return info.reason;
      // An ACP turn's stop reason when it is not the usual one ('cancelled', 'refusal').
      return `done ${ago(now - info.since)} ago${
        info.stopReason && info.stopReason !== 'end_turn' ? ` (${info.stopReason})` : ''
      }`;
    case 'running':
      return info.foreground || info.reason;
    case 'shell':
      return `${info.foreground || 'a shell'}, no agent started yet`;
    case 'exited':
      if (info.exit) {
        return info.exit.signal
          ? `ended by ${signalName(info.exit.signal)}`
          : `exited with code ${info.exit.code}`;
      }
      if (!processGone(info)) {
        return `agent ended, shell (${info.foreground || 'no agent in the foreground'})`;
      }
      return info.reason;
    default: {
      const never: never = state;
      return never;
    }
  }
}
