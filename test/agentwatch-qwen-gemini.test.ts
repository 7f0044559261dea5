/**
 * End to end, real parts only, for the two agents besides Claude Code that install from the
 * npm registry as plain Node packages: `agentwatch run --name NAME --interval 700
 * --no-adaptive -- qwen|gemini` runs in a real PTY, real Qwen Code 0.24.4 / Gemini CLI 0.61.0
 * runs inside it against its fake model server on 127.0.0.1 (test/support/fake-openai.ts,
 * fake-gemini.ts) with a throwaway HOME (test/support/agent-homes.ts), and the test follows
 * the session's states on its real control socket while it drives the agent like a person
 * through the outer PTY. One round each:
 *
 * 1. start-up: idle (the composer shows);
 * 2. `task-bash round 1: ...`: the model calls the shell tool; the approval dialog shows
 *    (Qwen's default "auto" mode: the classifier's fallback dialog, as the fake model gives
 *    the classifier no verdict; Gemini: `Allow execution of [Shell]?`): blocked, with the
 *    dialog's question and options; `agentwatch ls --json` lists the session as the agent;
 * 3. round 1: Enter on option 1 a moment after the dialog showed, as a person in the pane;
 *    round 2 (the same again): `agentwatch answer --yes NAME 1` from outside (the typing
 *    guard on a real agent). Blocked clears, the reply `Touched hello.txt for round N.` shows:
 *    idle, and no blocked after the answer;
 * 4. `/quit`: `run` exits, the session is reported exited.
 *
 * The truth is what the outer screen shows (polled every 25 ms) and what the fake server
 * answered. Latencies are printed, not asserted (speed goes in benchmarks). Skipped (with a
 * printed reason) when an agent's launcher is missing from node_modules/.bin.
 * AGENTWATCH_E2E_ONLY=qwen|gemini runs one agent; AGENTWATCH_E2E_DEBUG=1 prints the screen
 * once blocked is reported and the blocked session's info. About 10-20 s per agent.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  type CliResult,
  followSession,
  mark,
  type Received,
  recordScreenTruth,
  runCli,
  type ScreenTruth,
  type SessionFollower,
  settledIdle,
  startRun,
} from './support/agentwatch-e2e.ts';
import {
  type AgentHome,
  GEMINI_BIN,
  makeGeminiHome,
  makeQwenHome,
  QWEN_BIN,
} from './support/agent-homes.ts';
import { type FakeModelServer, roundReply } from './support/fake-model.ts';
import { startFakeGemini } from './support/fake-gemini.ts';
import { startFakeOpenAI } from './support/fake-openai.ts';
import type { PtyDriver } from './support/pty-driver.ts';
import { sleep } from './support/until.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';

/** The sweep interval given to `run`, ms. */
const INTERVAL_MS = 700;
/** A person answers a moment after the dialog shows (Ink drops keys typed while it mounts). */
const ANSWER_DELAY_MS = 600;
/** Outer screen poll period, ms. */
const POLL_MS = 25;

/** What differs between the two agents. */
interface AgentCase {
  /** The manifest id `run` must find from the foreground process. */
  id: string;
  bin: string;
  server: () => Promise<FakeModelServer>;
  home: (baseUrl: string) => AgentHome;
  /** The approval dialog on screen (the driver's truth). */
  dialog: RegExp;
  /** The composer on screen, ready for a prompt. */
  composer: RegExp;
  /** The question and first option `answer` and the board must read off the dialog. */
  question: string;
  firstOption: string;
}

const CASES: AgentCase[] = ([
  {
    id: 'qwen',
    bin: QWEN_BIN,
    server: () => startFakeOpenAI(),
    home: (baseUrl) => makeQwenHome({ baseUrl }),
    dialog: /Allow execution of: 'touch'\?[\s\S]*Waiting for user confirmation/,
    composer: /Type your message or @path\/to\/file/,
    question: "Allow execution of: 'touch'?",
    firstOption: '1. Yes, allow once',
  },
  {
    id: 'gemini',
    bin: GEMINI_BIN,
    server: () => startFakeGemini(),
    home: (baseUrl) => makeGeminiHome({ baseUrl }),
    dialog: /Allow execution of \[Shell\]\?[\s\S]*1\. Allow once/,
    composer: /Type your message or @path\/to\/file/,
    question: 'Allow execution of [Shell]?',
    firstOption: '1. Allow once',
  },
] as AgentCase[]).filter((c) =>
  !process.env.AGENTWATCH_E2E_ONLY || c.id === process.env.AGENTWATCH_E2E_ONLY
);

/** What one round measured (ms). */
interface Round {
  blockedInfo: SessionInfo;
  /** blocked received - the dialog shown on the outer screen. */
  blockedLatency: number;
  /** the first other state received - the dialog gone from the outer screen. */
  clearedLatency: number;
  /** idle received - the reply shown. */
  idleLatency: number;
  /** The states received from the answer on. */
  afterAnswer: string[];
  /** `agentwatch answer --yes` (round 2). */
  answer?: CliResult;
}

/** What one run measured. */
interface Measured {
  id: string;
  wallMs: number;
  states: string[];
  rounds: Round[];
  listed?: SessionInfo;
  runExit: { exitCode: number; signal?: number };
}

async function submit(pty: PtyDriver, text: string): Promise<number> {
  await pty.type(text);
  await sleep(300);
  pty.send('\r');
  return Date.now();
}

function timeline(f: SessionFollower | undefined, t: ScreenTruth | undefined): string {
  const rows: Array<[number, string]> = [
    ...(f?.received ?? []).map((r): [number, string] => [
      r.t,
      `STATE ${r.info.state} by ${r.info.by}: ${r.info.reason}`,
    ]),
    ...(t?.changes ?? []).map((c): [number, string] => [c.t, `screen ${c.probe}=${c.on}`]),
  ].sort((a, b) => a[0] - b[0]);
  const t0 = rows[0]?.[0] ?? 0;
  return rows.map(([t, what]) => `${String(t - t0).padStart(6)} ${what}`).join('\n');
}

/** The info last published during the blocked spell that began with `blocked`. */
function lastWhileBlocked(f: SessionFollower, blocked: Received): SessionInfo {
  const spell = f.received.filter((r) => r.t >= blocked.t);
  const end = spell.findIndex((r) => r.info.state !== 'blocked');
  const infos = (end < 0 ? spell : spell.slice(0, end)).map((r) => r.info);
  // While the dialog is taken down after an answer (`answer` looks again and again), one look
  // can still read blocked from the half-erased screen without its question: the prompt as
  // published is the last info of the spell that carried one.
  return [...infos].reverse().find((i) => i.question) ?? infos.at(-1)!;
}

async function runRound(c: AgentCase): Promise<Measured> {
  const t0 = Date.now();
  const server = await c.server();
  const home = c.home(server.url);
  const dir = mkdtempSync(join(tmpdir(), `agentwatch-e2e-${c.id}-`));
  const name = `${c.id}-e2e`;
  const cliEnv = { ...process.env, AGENTWATCH_DIR: dir };
  let pty: PtyDriver | undefined;
  let truth: ScreenTruth | undefined;
  let f: SessionFollower | undefined;
  const context = () =>
    `\n--- ${c.id}: timeline ---\n${timeline(f, truth)}\n--- outer screen ---\n${
      pty?.screen() ?? ''
    }\n--- fake server log ---\n${server.dump(200)}`;
  try {
    pty = await startRun(home, dir, [
      '--name',
      name,
      '--interval',
      String(INTERVAL_MS),
      '--no-adaptive',
      '--',
      c.bin,
    ]);
    const p = pty;
    truth = recordScreenTruth(p, {
      dialog: (s) => c.dialog.test(s),
      composer: (s) => c.composer.test(s) && !c.dialog.test(s),
      done1: (s) => s.includes(roundReply(1)) && c.composer.test(s) && !c.dialog.test(s),
      done2: (s) => s.includes(roundReply(2)) && c.composer.test(s) && !c.dialog.test(s),
    }, POLL_MS);
    const t = truth;
    f = await followSession(dir, name, 30_000);
    const fol = f;

    try {
      // 1. start-up
      await t.waitFor('composer', true, 0, 180_000); // Qwen took over 60 s at load 50
      await fol.waitFor('idle', 30_000);
      await sleep(1000); // the person reads the screen before typing

      // 2-3. two rounds: the prompt, the approval dialog (blocked), the answer, the reply (idle).
      // Round 1 is answered like a person in the pane (Enter on option 1); round 2 with
      // `agentwatch answer --yes NAME 1` from outside, the typing guard on a real agent.
      const rounds: Round[] = [];
      let listed: SessionInfo | undefined;
      for (let n = 1; n <= 2; n++) {
        const from = mark(fol);
        const enter = await submit(p, `task-bash round ${n}: please touch hello.txt`);
        const shown = await t.waitFor('dialog', true, enter, 60_000);
        const blocked = await fol.waitFor('blocked', 30_000, from);
        if (process.env.AGENTWATCH_E2E_DEBUG) {
          await sleep(800);
          console.log(`--- ${c.id} blocked screen ---\n${p.screen()}`);
        }
        if (n === 1) {
          const ls = await runCli(['ls', '--json'], cliEnv, 20_000);
          listed = (JSON.parse(ls.stdout || '[]') as SessionInfo[]).find((s) => s.name === name);
        }
        await sleep(Math.max(0, shown + ANSWER_DELAY_MS - Date.now()));
        const answeredAt = mark(fol);
        const answered = Date.now();
        let answer: CliResult | undefined;
        if (n === 1) p.send('\r');
        else answer = await runCli(['answer', '--yes', name, '1'], cliEnv, 30_000, { tty: true });
        const gone = await t.waitFor('dialog', false, answered, 15_000).catch((e: Error) => {
          const said = answer
            ? `\n--- answer exited ${answer.code} ---\n${answer.stdout}\n${answer.stderr}`
            : '';
          throw new Error(`${e.message}${said}`);
        });
        const done = await t.waitFor(`done${n}`, true, answered, 60_000);
        const idle = await settledIdle(fol, 20_000);
        const cleared = fol.received.slice(answeredAt).find((r) => r.info.state !== 'blocked');
        rounds.push({
          blockedInfo: lastWhileBlocked(fol, blocked),
          blockedLatency: blocked.t - shown,
          clearedLatency: (cleared?.t ?? NaN) - gone,
          idleLatency: idle.t - done,
          afterAnswer: fol.received.slice(answeredAt).map((r) => r.info.state),
          answer,
        });
      }

      // 4. /quit
      await submit(p, '/quit');
      let quitTimer: ReturnType<typeof setTimeout> | undefined;
      const runExit = await Promise.race([
        p.exited,
        new Promise<never>((_, reject) => {
          quitTimer = setTimeout(
            () => reject(new Error('run did not exit within 120 s of /quit')),
            120_000,
          );
        }),
      ]).finally(() => clearTimeout(quitTimer)); // no timer left to hold the file's process
      await fol.waitFor('exited', 10_000).catch(() => undefined);
      return {
        id: c.id,
        wallMs: Date.now() - t0,
        states: fol.states(),
        rounds,
        listed,
        runExit,
      };
    } catch (e) {
      throw new Error(`${(e as Error).message}${context()}`);
    }
  } finally {
    truth?.stop();
    f?.close();
    await pty?.close();
    await server.close();
    await home.cleanup();
    const left = existsSync(dir) ? readdirSync(dir).filter((f) => f !== 'ended') : [];
    rmSync(dir, { recursive: true, force: true });
    if (left.length > 0) console.log(`agentwatch-${c.id}: left in the socket dir: ${left}`);
  }
}

const test = suite('agentwatch run + real Qwen Code and Gemini CLI');

for (const c of CASES) {
  if (!existsSync(c.bin)) {
    console.log(`agentwatch-${c.id}: skipped: ${c.bin} is missing (npm ci installs it)`);
    test.skip(`${c.id}: one round under run`);
    continue;
  }
  test(`${c.id}: two rounds under run (prompt, approval dialog, answer, idle), then /quit`, async () => {
    const m = await runRound(c);
    const lat = (k: 'blockedLatency' | 'clearedLatency' | 'idleLatency') =>
      m.rounds.map((r) => r[k]).join(', ');
    console.log(
      `agentwatch-${c.id}: wall ${(m.wallMs / 1000).toFixed(1)} s; states ${
        m.states.join(' -> ')
      }; blocked reported [${lat('blockedLatency')}] ms after the dialog showed, cleared [${
        lat('clearedLatency')
      }] ms after it left, idle [${lat('idleLatency')}] ms after the reply showed`,
    );
    if (process.env.AGENTWATCH_E2E_DEBUG) console.log(JSON.stringify(m.rounds[0].blockedInfo));
    // The order a person saw: idle, then per round (working) blocked (working) idle; exited.
    // (the idle before and after the agent's start-up, working while nothing is drawn, is one)
    const core = m.states.filter((s) => s !== 'working')
      .filter((s, i, a) => i === 0 || s !== a[i - 1]);
    assert.equal(
      core,
      ['idle', 'blocked', 'idle', 'blocked', 'idle', 'exited'],
      `states ${m.states.join(' -> ')}`,
    );
    m.rounds.forEach((r, i) => {
      // States published from the moment the answer started: the blocked state may be
      // published again (its prompt refreshed) while `answer` starts; once it has left
      // blocked, it must not come back.
      const left = r.afterAnswer.findIndex((state) => state !== 'blocked');
      const again = left >= 0 && r.afterAnswer.slice(left).includes('blocked');
      assert.not.ok(again, `round ${i + 1}: blocked again after the answer: ${r.afterAnswer}`);
      assert.is(r.blockedInfo.agent, c.id);
      assert.is(r.blockedInfo.question, c.question);
      assert.is(r.blockedInfo.options?.[0], c.firstOption, `options ${r.blockedInfo.options}`);
    });
    const answer = m.rounds[1].answer!;
    assert.is(answer.code, 0, `answer exited ${answer.code}: ${answer.stderr}`);
    // it shows the prompt it answers (question, details, options), then what it chose
    assert.ok(answer.stdout.includes(c.question), answer.stdout);
    assert.is(answer.stdout.trim().split('\n').at(-1), `answered: ${c.firstOption}`);
    assert.ok(m.listed, 'ls --json lists the session');
    assert.is(m.listed!.agent, c.id);
    assert.is(m.listed!.state, 'blocked', 'ls ran while the dialog was up');
    assert.is(m.runExit.exitCode, 0, `run exited ${JSON.stringify(m.runExit)}`);
  });
}

test.run();
