/**
 * End to end, real parts only: `agentwatch run --name e2e --interval 700 --no-adaptive -- claude
 * --permission-mode manual` runs in a real PTY (so `run` sees a TTY and passes the person's
 * terminal through), real Claude Code 2.1.332 runs inside it against the fake Anthropic API
 * on 127.0.0.1, with a throwaway HOME and a temporary AGENTWATCH_DIR. `run` adds its Claude
 * Code hooks (`--settings`), so every hook is a real `agentwatch report` process too. The
 * test drives Claude like a person through the outer PTY, records the truth as it sees it on
 * the outer screen (polled every 25 ms) and follows the session's states on its real control
 * socket:
 *
 * 1. start-up: idle;
 * 2. per round, `task-bash round N: ...`: working, then the Bash permission prompt: blocked,
 *    reported within one sweep interval (+ tolerance) of the prompt showing, with the question
 *    and options; in round 1 `agentwatch ls --json` (a real process) lists the session as
 *    claude, blocked;
 * 3. Enter on "1. Yes" ~500 ms after the prompt showed (Claude Code drops keys typed in the
 *    first 100-200 ms): blocked is gone within one interval (+ tolerance) of the prompt
 *    leaving the screen, then working, then idle;
 * 4. `task-slow check the project` (the server stalls): working, and `agentwatch wait e2e
 *    --until idle --timeout 20` (a real process) exits 0 when the turn ends;
 * 5. `/exit`: `run` exits with Claude's exit code, the session is reported exited, its socket
 *    file is removed.
 *
 * A state shorter than one interval may fall between two sweeps and not be reported: each
 * working span of the truth is required only when it lasted at least one interval plus the
 * tolerance (the working after an answer can be that short). One known false idle of the
 * Claude rules right after an answer is tolerated and printed (see isKnownIdleFlash;
 * AGENTWATCH_E2E_STRICT=1 fails on it).
 *
 * The same script runs again with `--adaptive` (one round); its latencies are printed next to
 * the default sweep's, not asserted. AGENTWATCH_E2E_TRACE=FILE appends each run's timeline
 * (states received, the session's report log, screen changes; with AGENTWATCH_E2E_SCREENS=1
 * the screens too). Skipped (with a printed reason) only when node_modules/.bin/claude is
 * missing. About 50-60 s on a loaded 2-core machine.
 */
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  agentwatchArgv,
  type CliResult,
  doneScreen,
  followSession,
  mark,
  type Received,
  recordScreenTruth,
  roundReply,
  roundRule,
  runCli,
  type ScreenTruth,
  type SessionFollower,
  settledIdle,
} from './support/agentwatch-e2e.ts';
import { type FakeAnthropic, startFakeAnthropic } from './support/fake-anthropic.ts';
import { CLAUDE_BIN, claudeArgs, makeClaudeHome } from './support/claude-home.ts';
import { type PtyDriver, startPty } from './support/pty-driver.ts';
import { request } from '../src/runtime/control-client.ts';
import { listSessions } from '../src/runtime/session-directory.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { sleep } from './support/until.ts';

/** The sweep interval given to `run`, ms. */
const INTERVAL_MS = 700;
/**
 * Slack on top of one interval for this loaded 2-core machine (timer lateness, the outer
 * screen being polled every 25 ms, a socket line crossing processes), ms.
 */
const TOLERANCE_MS = 300;
/** Claude Code drops keys typed in the first ~100-200 ms after a prompt shows. */
const ANSWER_DELAY_MS = 500;
/** How long the server stalls on task-slow, ms (long enough for `wait` to start meanwhile). */
const SLOW_MS = 2500;
/** Outer screen poll period, ms. */
const POLL_MS = 25;
/**
 * Permission rounds (one blocked latency sample each) of the default run and of the adaptive
 * run. Every Claude Code hook is an `agentwatch report` process started from source (~1.4 s
 * here), and Claude Code waits for most of them, so a round takes 6-8 s.
 */
const ROUNDS = { default: 2, adaptive: 1 };

/** One permission round (task-bash, prompt, answer) as measured; times are ms since the epoch. */
interface Round {
  /** Enter that submitted the task. */
  enter: number;
  /** "esc to interrupt" first on the outer screen. */
  working: number;
  /** "Do you want to proceed?" first on the outer screen. */
  promptShown: number;
  /** The answering Enter (the last one, when Claude Code dropped the first). */
  answered: number;
  /** Extra Enters sent because an answer was dropped. */
  retries: number;
  /** The prompt gone from the outer screen. */
  promptGone: number;
  /** The round's final reply and the idle footer on the outer screen. */
  done: number;
  /** The first blocked info received in the round. */
  blockedInfo: SessionInfo;
  /** The blocked infos received in the round, until its state left blocked. */
  blockedSpell: Received[];
  /** blocked received - prompt shown. */
  blockedLatency: number;
  /** first non-blocked state received - the prompt gone from the outer screen. */
  clearedLatency: number;
  /** first non-blocked state received - the answering Enter. */
  clearedAfterEnter: number;
  /** working received - "esc to interrupt" shown (NaN when working was not reported). */
  workingLatency: number;
  /**
   * idle received - the idle screen shown: negative when the Stop hook's report came before
   * Claude Code drew the end of the turn (it waits for the hook), else it includes the 250 ms
   * idle confirmation.
   */
  idleLatency: number;
}

/** What one run of the script measured; times are ms since the epoch. */
interface Measured {
  label: string;
  /** Collapsed states received on the socket, in order. */
  states: string[];
  received: Received[];
  startIdle: number;
  rounds: Round[];
  /** The task-slow turn: Enter, "esc to interrupt" shown, its idle screen shown. */
  slow: { enter: number; working: number; done: number };
  slowWorkingLatency: number;
  slowIdleLatency: number;
  /** When the follower received the task-slow turn's idle. */
  slowIdleReceived: number;
  exitSent: number;
  runExit: { exitCode: number; signal?: number };
  exitedInfo: SessionInfo;
  socketLeft: boolean;
  sessionsLeft: number;
  /** `ls --json`, run while the first prompt was up. */
  ls?: CliResult;
  /** `wait e2e --until idle --timeout 20`, started during the task-slow turn. */
  wait?: CliResult;
}

/** Runs `text` into the outer terminal, then Enter after a short pause; resolves with Enter's time. */
async function submit(pty: PtyDriver, text: string): Promise<number> {
  await pty.type(text);
  await sleep(250);
  pty.send('\r');
  return Date.now();
}

/** `promise`, or a rejection with `message` after `timeoutMs` (the timer never outlives it). */
async function within<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The states received and the truth's changes merged in time order, times relative to the
 * first line (for failure messages and env AGENTWATCH_E2E_TRACE=FILE, which appends it).
 */
function timeline(
  label: string,
  follower: SessionFollower | undefined,
  truth: ScreenTruth | undefined,
  events: Array<[number, string]> = [],
): string {
  const rows: Array<[number, string]> = [
    ...events.map(([t, what]): [number, string] => [t, `session log: ${what}`]),
    ...(follower?.received ?? []).map((r): [number, string] => [
      r.t,
      `STATE ${r.info.state} by ${r.info.by}: ${r.info.reason}`,
    ]),
    ...(truth?.changes ?? []).map((c): [number, string] => [
      c.t,
      `screen ${c.probe}=${c.on}${
        process.env.AGENTWATCH_E2E_SCREENS ? `\n${c.screen.replace(/\n+$/, '')}` : ''
      }`,
    ]),
  ].sort((a, b) => a[0] - b[0]);
  const t0 = rows[0]?.[0] ?? 0;
  return `--- ${label}: timeline ---\n` +
    rows.map(([t, what]) => `${String(t - t0).padStart(6)} ${what}`).join('\n');
}

/**
 * The infos published during the blocked spell that began with `blocked`, up to the first
 * line of another state.
 */
function blockedSpell(f: SessionFollower, blocked: Received): Received[] {
  const spell = f.received.filter((r) => r.t >= blocked.t);
  const end = spell.findIndex((r) => r.info.state !== 'blocked');
  return end < 0 ? spell : spell.slice(0, end);
}

/** The first line after index `from` whose state differs from `state`. */
function firstOtherThan(f: SessionFollower, state: string, from: number): Received | undefined {
  return f.received.slice(from).find((r) => r.info.state !== state);
}

/**
 * Runs the whole script once against `server`: `run` (default sweep, or `--adaptive`) in an
 * outer PTY, Claude Code inside. With `clis`, also runs `ls --json` while blocked and `wait`
 * during the slow turn. Everything started is stopped and removed before it returns.
 */
async function runScript(
  server: FakeAnthropic,
  opts: { adaptive: boolean; clis: boolean },
  notes: string[],
): Promise<Measured> {
  const label = opts.adaptive ? 'adaptive' : 'default';
  const roundCount = ROUNDS[label];
  const dir = mkdtempSync(join(tmpdir(), 'agentwatch-e2e-sock-'));
  const home = makeClaudeHome({ baseUrl: server.url });
  const env = { ...home.env, AGENTWATCH_DIR: dir };
  const cliEnv = { ...process.env, AGENTWATCH_DIR: dir };
  let pty: PtyDriver | undefined;
  let truth: ScreenTruth | undefined;
  let follower: SessionFollower | undefined;
  const sessionEvents: Array<[number, string]> = [];
  const context = () =>
    `\n${timeline(label, follower, truth, sessionEvents)}\n--- outer screen ---\n${
      pty?.screen() ?? ''
    }\n--- fake API log ---\n${server.dump(200)}`;
  try {
    pty = await startPty({
      command: process.execPath,
      args: agentwatchArgv([
        'run',
        '--name',
        'e2e',
        '--interval',
        String(INTERVAL_MS),
        ...(opts.adaptive ? ['--adaptive'] : ['--no-adaptive']),
        '--',
        CLAUDE_BIN,
        ...claudeArgs({ permissionMode: 'manual' }),
      ]),
      cwd: home.project,
      env,
    });
    const p = pty;
    truth = recordScreenTruth(p, {
      prompt: (s) => /Do you want to proceed\?/.test(s),
      working: (s) => /esc to interrupt/.test(s),
      idle: (s) => /\? for shortcuts/.test(s) && !/esc to interrupt|Do you want to proceed/.test(s),
      // The idle screens that end the turns: the turn's final reply above the idle footer.
      ...Object.fromEntries(
        Array.from({ length: roundCount }, (_, i) => [
          `round${i + 1}`,
          (s: string) => doneScreen(s, roundReply(i + 1)),
        ]),
      ),
      slowDone: (s) => doneScreen(s, 'nothing else to change'),
    }, POLL_MS);
    const t = truth;
    follower = await followSession(dir, 'e2e', 20_000);
    const f = follower;
    let ls: CliResult | undefined;

    // 1. Start-up: the idle footer, reported idle.
    const startIdle = await t.waitFor('idle', true, 0, 30_000);
    await f.waitFor('idle', 5_000);

    // 2-3. task-bash rounds: working, the permission prompt, Enter on "1. Yes", idle.
    const rounds: Round[] = [];
    for (let n = 1; n <= roundCount; n++) {
      let from = mark(f);
      const enter = await submit(p, `task-bash round ${n}: please touch hello.txt`);
      const working = await t.waitFor('working', true, enter, 10_000);
      const promptShown = await t.waitFor('prompt', true, enter, 20_000);
      const blocked = await f.waitFor('blocked', 10_000, from);
      const reportedWorking = f.received.slice(from).find((r) =>
        r.info.state === 'working' && r.t <= blocked.t
      );
      if (opts.clis && n === 1) ls = await runCli(['ls', '--json'], cliEnv, 20_000);
      await sleep(Math.max(0, promptShown + ANSWER_DELAY_MS - Date.now()));

      // Enter on "1. Yes"; again if Claude Code dropped it (a person would press again).
      from = mark(f);
      let answered = Date.now();
      let retries = 0;
      p.send('\r');
      let promptGone: number | undefined;
      while (promptGone === undefined) {
        try {
          promptGone = await t.waitFor('prompt', false, answered, 2_000);
        } catch (e) {
          if (++retries > 2) throw e;
          notes.push(`${label}: round ${n}: the answering Enter was dropped; pressed it again`);
          answered = Date.now();
          p.send('\r');
        }
      }
      const done = await t.waitFor(`round${n}`, true, answered, 20_000);
      const idle = await settledIdle(f, 10_000);
      const cleared = firstOtherThan(f, 'blocked', from)!;
      const spell = blockedSpell(f, blocked);
      rounds.push({
        enter,
        working,
        promptShown,
        answered,
        retries,
        promptGone,
        done,
        blockedInfo: blocked.info,
        blockedSpell: spell,
        blockedLatency: blocked.t - promptShown,
        clearedLatency: cleared.t - promptGone,
        clearedAfterEnter: cleared.t - answered,
        workingLatency: reportedWorking ? reportedWorking.t - working : NaN,
        idleLatency: idle.t - done,
      });
    }

    // 4. task-slow: working while the server stalls; `wait --until idle` ends with the turn.
    let from = mark(f);
    const enterSlow = await submit(p, 'task-slow check the project');
    const slowWorking = await t.waitFor('working', true, enterSlow, 10_000);
    const workingSlow = await f.waitFor('working', 10_000, from);
    const waitRun = opts.clis
      ? runCli(['wait', 'e2e', '--until', 'idle', '--timeout', '20'], cliEnv, 25_000)
      : undefined;
    const slowIdle = await t.waitFor('slowDone', true, enterSlow, SLOW_MS + 20_000);
    const idleSlow = await settledIdle(f, 10_000);
    const wait = await waitRun;

    // The session's own log (reports from Claude Code's hooks), for the timeline.
    try {
      const a = await request<{ events?: string[] }>(f.first.socket, { op: 'events' });
      for (const line of a.events ?? []) {
        const m = /^(\S+) (.*)$/.exec(line);
        if (m) sessionEvents.push([Date.parse(m[1]), m[2]]);
      }
    } catch {
      // an older runtime without `events`: the timeline goes without
    }

    // 5. /exit: run ends with Claude's code; exited is reported; the socket goes away.
    from = mark(f);
    await p.type('/exit');
    await sleep(300);
    p.send('\r');
    const exitSent = Date.now();
    const runExit = await within(p.exited, 15_000, 'run did not exit within 15 s of /exit');
    const exitedRx = await f.waitFor('exited', 5_000, from);
    for (let i = 0; i < 40 && f.closedAt === undefined; i++) await sleep(50);
    const socketLeft = existsSync(f.first.socket);
    // Only how it ended is kept (ended/, as for any session that ends: `wait --until exited`).
    const sessionsLeft = (await listSessions(dir)).length +
      readdirSync(dir).filter((f) => f !== 'ended').length;

    return {
      label,
      states: f.states(),
      received: [...f.received],
      startIdle,
      rounds,
      slow: { enter: enterSlow, working: slowWorking, done: slowIdle },
      slowWorkingLatency: workingSlow.t - slowWorking,
      slowIdleLatency: idleSlow.t - slowIdle,
      slowIdleReceived: idleSlow.t,
      exitSent,
      runExit,
      exitedInfo: exitedRx.info,
      socketLeft,
      sessionsLeft,
      ls,
      wait,
    };
  } catch (e) {
    const err = e as Error;
    err.message += context();
    throw err;
  } finally {
    if (process.env.AGENTWATCH_E2E_TRACE) {
      appendFileSync(
        process.env.AGENTWATCH_E2E_TRACE,
        `${timeline(label, follower, truth, sessionEvents)}\n`,
      );
    }
    truth?.stop();
    follower?.close();
    await pty?.close();
    home.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `n` ms as text, or `-` when not measured. */
function ms(n: number): string {
  return Number.isFinite(n) ? `${Math.round(n)} ms` : '-';
}

/** Median and max of the finite numbers of `xs`. */
function stats(xs: number[]): { median: number; max: number } {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return { median: NaN, max: NaN };
  const mid = Math.floor(s.length / 2);
  return {
    median: s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2,
    max: s[s.length - 1],
  };
}

/** The latencies of a run as printable lines, for the closing note. */
function describe(m: Measured): string[] {
  const lines = m.rounds.map((r, i) =>
    `${m.label} round ${i + 1}: blocked reported ${
      ms(r.blockedLatency)
    } after the prompt showed; cleared ${ms(r.clearedLatency)} after the prompt left the ` +
    `screen (${ms(r.clearedAfterEnter)} after the answering Enter; the prompt left ${
      ms(r.promptGone - r.answered)
    } after it); working reported ${
      ms(r.workingLatency)
    } after "esc to interrupt" showed (truth working ${r.promptShown - r.enter} ms before ` +
    `the prompt, ${r.done - r.answered} ms after the answer); idle ${
      ms(r.idleLatency)
    } after the idle screen (negative: the Stop hook reported first)`
  );
  lines.push(
    `${m.label} task-slow: working reported ${ms(m.slowWorkingLatency)} after "esc to ` +
      `interrupt" showed, idle ${ms(m.slowIdleLatency)} after the idle screen; states ${
        m.states.join(' -> ')
      }`,
  );
  return lines;
}

/** A state change as received: the state, when it came, and the reason the session gave. */
interface Change {
  state: string;
  t: number;
  by: string;
  reason: string;
}

/** The lines received, consecutive repeats collapsed into the change that began them. */
function changes(received: Received[]): Change[] {
  const out: Change[] = [];
  for (const r of received) {
    if (out.at(-1)?.state === r.info.state) continue;
    out.push({ state: r.info.state, t: r.t, by: r.info.by, reason: r.info.reason });
  }
  return out;
}

/**
 * A known false idle right after an answer (claude.toml, not the runtime): while Claude Code
 * 2.1.332 still runs the PermissionRequest hook after the person answered, it shows the
 * spinner "(running PermissionRequest hook · 3s …)" above a mode footer WITHOUT "esc to
 * interrupt" for about 0.3 s, and the "idle footer" rule (`⏸ manual mode on`) reads idle.
 * It is a blocked -> idle -> working change decided by that rule, lasting at most one
 * interval plus the tolerance. Tolerated (and printed) unless AGENTWATCH_E2E_STRICT=1.
 */
function isKnownIdleFlash(c: Change[], i: number): boolean {
  return c[i].state === 'idle' && c[i - 1]?.state === 'blocked' &&
    c[i + 1]?.state === 'working' && c[i].by === 'screen' &&
    /'idle footer'/.test(c[i].reason) && c[i + 1].t - c[i].t <= INTERVAL_MS + TOLERANCE_MS;
}

/**
 * Checks the states received against the truth, in order: idle, then per round working,
 * blocked, working, idle, then working and idle for task-slow, then exited. A working span of
 * the truth shorter than one interval plus the tolerance may fall between two sweeps, so it
 * may be missing; a longer one must be there. Known false idles ({@link isKnownIdleFlash})
 * are taken out first and noted.
 */
function checkSequence(m: Measured, notes: string[]): void {
  // The agent starting (working while nothing is drawn yet) is no round of the script: its
  // working is taken out, and the idle on either side of it read as one.
  const all = changes(m.received).filter((c) => !c.reason.startsWith('starting:'))
    .filter((c, i, a) => i === 0 || c.state !== a[i - 1].state);
  const kept = all.filter((_, i) => {
    if (!isKnownIdleFlash(all, i)) return true;
    notes.push(
      `${m.label}: KNOWN ISSUE (claude.toml): false idle for ${
        all[i + 1].t - all[i].t
      } ms right after an answer (${all[i].reason}); AGENTWATCH_E2E_STRICT=1 fails on it`,
    );
    return !!process.env.AGENTWATCH_E2E_STRICT;
  });
  const states = kept.map((c) => c.state);
  const need = INTERVAL_MS + TOLERANCE_MS;
  const expected: Array<{ state: string; optional: boolean; why: string }> = [
    { state: 'idle', optional: false, why: 'start-up' },
  ];
  m.rounds.forEach((r, i) => {
    const before = r.promptShown - r.enter;
    const after = r.done - r.answered;
    expected.push(
      { state: 'working', optional: before < need, why: `round ${i + 1}, ${before} ms` },
      { state: 'blocked', optional: false, why: `round ${i + 1}` },
      { state: 'working', optional: after < need, why: `round ${i + 1} answered, ${after} ms` },
      { state: 'idle', optional: false, why: `round ${i + 1} done` },
    );
  });
  expected.push(
    { state: 'working', optional: false, why: 'task-slow' },
    { state: 'idle', optional: false, why: 'task-slow done' },
    // Claude Code 2.1.332 runs /exit as a command: its spinner and "esc to interrupt" for a
    // moment (on the outer screen too), and OSC 7501 says working; then, as it exits, a screen
    // no rule knows (idle) until the process is gone
    { state: 'working', optional: true, why: '/exit running' },
    { state: 'idle', optional: true, why: '/exit: the screen it leaves' },
    { state: 'exited', optional: false, why: '/exit' },
  );
  const explain = () =>
    `${m.label}: states ${states.join(' -> ')}\n${
      kept.map((c) => `  ${c.t - m.startIdle} ${c.state} by ${c.by}: ${c.reason}`).join('\n')
    }\ntruth per round (ms after its Enter): ${JSON.stringify(m.rounds.map(truthOf))}`;
  let i = 0;
  for (const want of expected) {
    if (states[i] === want.state) i++;
    else if (!want.optional) {
      assert.unreachable(`expected ${want.state} (${want.why}) at position ${i}; ${explain()}`);
    }
  }
  assert.is(i, states.length, `extra states; ${explain()}`);
}

/**
 * What a watcher sees of a round's prompt: Claude Code says blocked (OSC 7501, its
 * PermissionRequest hook) 20-200 ms before it draws its dialog, and the session waits up to
 * PROMPT_WAIT_MS (2 s) for the dialog before it publishes blocked, so the first blocked line
 * carries the question and options. Only a dialog drawn later than that may come second: then the
 * first line came before the dialog showed on the outer screen, and the question follows within
 * one interval plus the tolerance. Once published, the question stays in every blocked line of
 * the spell (the dialog erased after the answer while OSC 7501 still says blocked keeps it).
 */
function checkBlockedInfos(label: string, r: Round, i: number, notes: string[]): void {
  const round = `${label} round ${i + 1}`;
  const lines = r.blockedSpell.map((x) => `${x.t - r.promptShown} ms: ${JSON.stringify(x.info)}`);
  const why = `; blocked lines (ms after the prompt showed):\n${lines.join('\n')}`;
  assert.is(r.blockedInfo.agent, 'claude', `${round}: agent${why}`);
  let k = r.blockedSpell.findIndex((x) => x.info.question !== undefined);
  assert.ok(k >= 0, `${round}: no blocked line carried the question${why}`);
  if (k > 0) {
    const first = r.blockedSpell[0];
    notes.push(
      `${round}: blocked published ${first.t - r.promptShown} ms after the prompt ` +
        `showed without its question (its dialog took longer than the wait)`,
    );
    assert.ok(
      first.t <= r.promptShown + TOLERANCE_MS,
      `${round}: a blocked line without the question after the dialog showed${why}`,
    );
    assert.ok(
      r.blockedSpell[k].t - first.t <= INTERVAL_MS + TOLERANCE_MS,
      `${round}: the question came ${r.blockedSpell[k].t - first.t} ms after blocked${why}`,
    );
  }
  for (; k < r.blockedSpell.length; k++) {
    const info = r.blockedSpell[k].info;
    assert.is(info.question, 'Do you want to proceed?', `${round}: question${why}`);
    assert.ok(info.options?.[0]?.startsWith('1. Yes'), `${round}: options${why}`);
  }
}

/** A round's truth relative to its Enter, for failure messages. */
function truthOf(r: Round): Record<string, number> {
  return {
    working: r.working - r.enter,
    promptShown: r.promptShown - r.enter,
    answered: r.answered - r.enter,
    promptGone: r.promptGone - r.enter,
    done: r.done - r.enter,
  };
}

const test = suite('agentwatch run + real Claude Code');
const results: Measured[] = [];
const notes: string[] = [];
let server: FakeAnthropic | undefined;

/** The fake server shared by both runs (started in the first test: uvu swallows `before` errors). */
async function fakeServer(): Promise<FakeAnthropic> {
  server ??= await startFakeAnthropic({ slowMs: SLOW_MS, rules: [roundRule] });
  return server;
}

if (!existsSync(CLAUDE_BIN)) {
  console.log(
    `agentwatch-claude: skipped: ${CLAUDE_BIN} is missing ` +
      '(npm ci installs the dev dependency @anthropic-ai/claude-code; AGENTWATCH_CLAUDE_BIN overrides the path)',
  );
  test.skip('agentwatch run follows real Claude Code');
} else {
  test.after(async () => {
    await server?.close();
    for (const m of results) for (const l of describe(m)) console.log(`agentwatch-claude: ${l}`);
    for (const n of notes) console.log(`agentwatch-claude: note: ${n}`);
    const kinds: Array<[string, (r: Round) => number]> = [
      ['blocked reported after the prompt showed', (r) => r.blockedLatency],
      ['cleared after the prompt left the screen', (r) => r.clearedLatency],
      ['cleared after the answering Enter', (r) => r.clearedAfterEnter],
    ];
    for (const [what, pick] of kinds) {
      const parts = results.map((m) => {
        const xs = m.rounds.map(pick);
        const st = stats(xs);
        return `${m.label} [${xs.map((x) => Math.round(x)).join(', ')}] median ${
          ms(st.median)
        } max ${ms(st.max)}`;
      });
      console.log(`agentwatch-claude: ${what}: ${parts.join('; ')}`);
    }
  });

  test('default sweep (700 ms): states follow the truth; ls, wait, exit', async () => {
    const m = await runScript(await fakeServer(), { adaptive: false, clis: true }, notes);
    results.push(m);
    const bound = INTERVAL_MS + TOLERANCE_MS;

    checkSequence(m, notes);
    m.rounds.forEach((r, i) => {
      assert.ok(
        r.blockedLatency <= bound,
        `round ${i + 1}: blocked reported ${r.blockedLatency} ms after the prompt showed ` +
          `(bound ${bound} ms)`,
      );
      assert.ok(
        r.clearedLatency <= bound,
        `round ${i + 1}: blocked cleared ${r.clearedLatency} ms after the prompt left the ` +
          `screen (bound ${bound} ms)`,
      );
      checkBlockedInfos(m.label, r, i, notes);
    });

    const ls = m.ls!;
    assert.is(ls.code, 0, `ls --json exited ${ls.code}: ${ls.stderr}`);
    const listed = (JSON.parse(ls.stdout) as SessionInfo[]).filter((s) => s.name === 'e2e');
    assert.is(listed.length, 1, `ls --json: ${ls.stdout}`);
    assert.is(listed[0].agent, 'claude');
    assert.is(listed[0].state, 'blocked', 'ls ran while the prompt was up');
    assert.is(listed[0].question, 'Do you want to proceed?');
    // run adds Claude Code hooks (`--settings <json>`) in front of the person's arguments.
    assert.is(listed[0].command[0], CLAUDE_BIN);
    assert.equal(listed[0].command.slice(-2), claudeArgs({ permissionMode: 'manual' }));

    const wait = m.wait!;
    assert.is(wait.code, 0, `wait exited ${wait.code}: ${wait.stderr}`);
    assert.ok(
      wait.endedAt >= m.slowIdleReceived - 100,
      `wait exited ${m.slowIdleReceived - wait.endedAt} ms before idle was published`,
    );

    assert.ok(m.exitedInfo.exit, 'the exited info carries the exit');
    assert.is(m.runExit.exitCode, m.exitedInfo.exit!.code, "run's exit code is Claude's");
    assert.is(m.exitedInfo.exit!.signal ?? 0, 0, 'Claude exited by itself, not by a signal');
    assert.not.ok(m.socketLeft, 'the socket file is removed');
    assert.is(m.sessionsLeft, 0, 'nothing left in the socket dir');
  });

  test('--adaptive: the same script (latencies printed, not asserted)', async () => {
    const m = await runScript(await fakeServer(), { adaptive: true, clis: false }, notes);
    results.push(m);
    checkSequence(m, notes);
    m.rounds.forEach((r, i) => checkBlockedInfos(m.label, r, i, notes));
    assert.is(m.runExit.exitCode, m.exitedInfo.exit!.code);
    assert.not.ok(m.socketLeft, 'the socket file is removed');
  });
}

test.run();
