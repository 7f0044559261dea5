/**
 * The simulated agent in a real PTY (a Session: node-pty), its bytes rendered by our Terminal and
 * classified with the bundled claude.toml every 50 ms, driven by the simulated user at 8x speed:
 * the classification must follow the truth file (blocked while the prompt shows, working
 * while the spinner runs or a tool runs silently, idle at the footer), and the agent's own
 * "Would you like me to ...?" must read idle. Also: the bytes look like Claude Code 2.1.332's
 * (no '\n', words placed with CSI n G, rows reached with \r CSI 1B, prompt erased with CSI J).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Session } from '../src/runtime/session.ts';
import { evaluate } from '../src/detect/evaluate.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { DiffRenderer } from '../src/sim/diff-renderer.ts';
import { planTask } from '../src/sim/plan.ts';
import { Rng } from '../src/sim/rng.ts';
import { SimUser, TruthFollower } from '../src/sim/user.ts';
import { agentwatchCommand } from './support/cli.ts';

const SEED = 3; // tasks: prompt; prompt + "Would you like me to ...?"; prompt + read-only call
const SPEED = 8;
const TASKS = 3;
const LEAD_MS = 200; // the screen may lag the truth line by this much (PTY, event loop)
const TAIL_MS = 60;

test('planTask: seed 3 has a prompt in every task and the trap question in the second', () => {
  const rng = new Rng(SEED);
  const plans = [planTask(rng), planTask(rng), planTask(rng)];
  assert.equal(plans.map((p) => p.asks), [true, true, true]);
  assert.match(plans[1].question, /^Would you like me to /);
});

test('DiffRenderer: writes only changed rows, reached with \\r CSI n B, words placed with CSI n G', () => {
  const r = new DiffRenderer(4, 40);
  const first = r.render([[{ text: 'Do you want to proceed?' }], [], [{ text: 'x' }], []]);
  assert.ok(first.startsWith('\x1b[2J\x1b[H'));
  assert.ok(
    first.includes('Do\x1b[4Gyou\x1b[8Gwant\x1b[13Gto\x1b[16Gproceed?'),
    JSON.stringify(first),
  );
  const second = r.render([[{ text: 'Do you want to proceed?' }], [], [{ text: 'y' }], []]);
  assert.is(second, '\x1b[H\r\x1b[2B\x1b[2Ky');
  assert.is(r.render([[{ text: 'Do you want to proceed?' }], [], [{ text: 'y' }], []]), '');
});

test('sim-agent in a PTY: claude.toml on our screen follows the truth file', async () => {
  const manifest = loadBundledManifests().get('claude');
  assert.ok(manifest, 'the bundled claude manifest');
  const dir = mkdtempSync(join(tmpdir(), 'aw-sim-'));
  const truthPath = join(dir, 'truth.jsonl');
  const self = agentwatchCommand();
  // Hosted in a Session (the product's PTY plumbing; no terminal answers its queries, as none
  // would in this test before): the simulated user may type as the agent ends, which
  // node-pty's own write turned into an EBADF on the closed PTY (Session.write checks first).
  const session = new Session({
    id: 'sim',
    name: 'sim',
    command: self.command,
    args: [
      ...self.args,
      'sim-agent',
      '--seed',
      String(SEED),
      '--speed',
      String(SPEED),
      '--tasks',
      String(TASKS),
      '--truth',
      truthPath,
    ],
    rows: 32,
    cols: 120,
    headless: false,
    socket: join(dir, 'sim.sock'),
  });
  const term = session.terminal;
  const chunks: Buffer[] = [];
  session.onOutput((d) => chunks.push(Buffer.from(d)));
  const exit = new Promise<number>((resolve) => session.onExit(({ code }) => resolve(code)));
  const user = new SimUser({ seed: 11, target: session, speed: SPEED });
  const follower = new TruthFollower(truthPath, (e) => user.see(e.state), 20);
  const samples: Array<{ t: number; state: string; text: string }> = [];
  const sampler = setInterval(() => {
    if (!term.altScreen) return; // before start-up and after exit
    const ev = evaluate(term.snapshot(), manifest!);
    samples.push({ t: Date.now(), state: ev.state, text: term.screenText() });
  }, 50);
  const guard = setTimeout(() => session.kill('SIGKILL'), 60_000);
  let code: number;
  try {
    code = await exit;
  } finally {
    clearTimeout(guard);
    clearInterval(sampler);
    user.stop();
    follower.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  assert.is(code, 0, 'the agent ends by itself after --tasks');
  const truth = follower.events;
  assert.is(truth[truth.length - 1]?.state, 'exited');
  assert.is(truth.filter((e) => e.state === 'blocked').length, 3, 'three prompts');
  assert.is(user.stats.promptsAnswered, 3);

  const checked: Record<string, number> = { idle: 0, working: 0, blocked: 0 };
  const wrong: string[] = [];
  for (let i = 0; i + 1 < truth.length; i++) {
    const { t, state } = truth[i];
    const until = truth[i + 1].t;
    for (const s of samples) {
      if (s.t < t + LEAD_MS || s.t > until - TAIL_MS) continue;
      checked[state]++;
      if (s.state !== state) {
        wrong.push(`truth ${state}, rules ${s.state} at +${s.t - t} ms:\n${s.text}`);
      }
    }
  }
  assert.is(wrong.length, 0, wrong.slice(0, 2).join('\n----\n'));
  for (const state of ['idle', 'working', 'blocked']) {
    assert.ok(checked[state] >= 3, `${state}: only ${checked[state]} samples checked`);
  }

  // The trap: the agent's own question stays on screen while it is idle, and is not a prompt.
  const trap = samples.filter((s) =>
    /Would you like me to/.test(s.text) && !/Do you want to proceed\?/.test(s.text)
  );
  assert.ok(trap.some((s) => s.state === 'idle'), 'the question was seen on an idle screen');
  assert.ok(trap.every((s) => s.state !== 'blocked'), 'never blocked because of it');

  // Claude Code 2.1.332's drawing habits.
  const bytes = Buffer.concat(chunks).toString('utf8');
  const running = bytes.slice(0, bytes.lastIndexOf('\x1b[?1049l'));
  assert.ok(running.includes('\x1b[?1049h'), 'alternate screen');
  assert.not.ok(running.includes('\n'), 'no newline bytes while running');
  assert.match(running, /Do\x1b\[\d+Gyou\x1b\[\d+Gwant/, 'words placed with CSI n G');
  assert.ok(running.includes('\r\x1b[1B'), 'rows reached with \\r CSI 1B');
  assert.match(
    running,
    /\r\x1b\[\d+A\x1b\[J/,
    'the answered prompt is erased with cursor up + CSI J',
  );
  assert.match(running, /\x1b\[38;2;\d+;\d+;\d+m[·✢✳✶✻✽]/, 'a 24-bit coloured spinner glyph');
});

test.run();
