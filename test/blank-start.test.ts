/**
 * A pane whose agent has drawn nothing yet is starting, not ready: tester3 saw opencode 1.18.33
 * in the background host stay blank for minutes while agentwatch said `idle` "ready, no task
 * yet", and a `send` 1 s after the start returned "sent" into nothing (and Gemini CLI's first
 * send was refused with the false reason "input box holds text someone typed"). A real process
 * in a real PTY, hosted by a SessionHost as Gemini CLI (whose manifest declares no input box
 * shape to wait for), stays blank until the test lets it draw the real capture
 * fixtures/gemini-cli/gemini-cli.idle.initial.raw: meanwhile it reads working, `starting`, and
 * `send` types nothing (exit 3, saying why); once drawn it is idle, ready, and `send` types.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { detailOf } from '../src/cli/board/rows.ts';
import { NO_MATCH } from '../src/detect/evaluate.ts';
import {
  decide,
  initialState,
  NOTHING_DRAWN,
  type Report,
  type SignalInput,
} from '../src/runtime/signals.ts';
import { cli } from './support/cli.ts';
import { REPO_ROOT } from './support/claude-home.ts';
import { privateHost } from './support/hosted-agent.ts';
import { until } from './support/until.ts';

/**
 * argv GO FILE LOG: draws nothing until the file GO exists, then writes FILE's bytes; logs
 * every byte read (`K <hex>`).
 */
const LATE = String.raw`
const fs = require('fs');
const [go, file, log] = process.argv.slice(2);
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => fs.appendFileSync(log, 'K ' + d.toString('hex') + '\n'));
const timer = setInterval(() => {
  if (!fs.existsSync(go)) return;
  clearInterval(timer);
  process.stdout.write(fs.readFileSync(file));
}, 20);
`;

/** What a screen evaluation with no rule matched gives the decision, `blank` or not. */
function look(now: number, blank: boolean | undefined, report: Report | null = null): SignalInput {
  return {
    now,
    evaluation: { ...NO_MATCH },
    foreground: 'agent',
    foregroundName: 'gemini',
    exit: null,
    report,
    blank,
  };
}

test('the decision: blank and never drawn is starting (working) until it draws, at once idle then', () => {
  let r = initialState(0);
  r = decide(r, look(10, true));
  assert.is(r.state, 'working');
  assert.is(r.reason, NOTHING_DRAWN);
  r = decide(r, look(30_000, true));
  assert.is(r.reason, NOTHING_DRAWN, 'however long (a blank screen is no dialog waiting)');
  // the first screen drawn: idle at once (no spinner to confirm it against)
  r = decide(r, look(30_100, false));
  assert.is(r.state, 'idle');
  // blank again later (the agent cleared its screen): not starting again
  r = decide(r, look(31_000, undefined));
  assert.is(r.state, 'idle');
  // a hook's report says the agent runs, drawn or not: the report decides
  const report: Report = { state: 'idle', at: 5, source: 'notify idle_prompt' };
  assert.is(decide(initialState(0), look(10, true, report)).reason, 'notify idle_prompt');
});

test("the decision: a blank screen whose title (or in-band state) says Ready is still starting (Gemini CLI 0.61.0 titles itself '◇  Ready' before it draws its trust dialog)", () => {
  const ready = (now: number, blank: boolean | undefined, region: string): SignalInput => ({
    ...look(now, blank),
    evaluation: {
      state: 'idle',
      rule: 6,
      pattern: 'Ready',
      match: 'Ready',
      region,
      reason: `rule 6 'title: Ready' (idle): any[0] matched in ${region}`,
    },
  });
  for (const region of ['title', 'osc 7501']) {
    let r = initialState(0);
    r = decide(r, ready(10, true, region));
    assert.is(r.state, 'working', region);
    assert.is(r.reason, NOTHING_DRAWN, region);
    assert.ok(!r.ready, `${region}: not ready for a task`);
    // drawn (the composer under the same title): idle, ready
    r = decide(r, ready(1500, false, region));
    assert.is(r.state, 'idle', region);
    assert.ok(r.ready, region);
  }
  // a screen rule that reads idle on a blank screen still decides (a manifest's own choice)
  const screenIdle = { ...ready(10, true, 'screen') };
  assert.is(decide(initialState(0), screenIdle).state, 'idle');
});

test('a blank pane reads starting and send types nothing; once the agent draws, idle and send types', async () => {
  const { dir, env, host, close } = privateHost('aw-blank-');
  try {
    const script = join(dir, 'late.cjs');
    writeFileSync(script, LATE);
    const go = join(dir, 'go');
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const fixture = join(REPO_ROOT, 'fixtures', 'gemini-cli', 'gemini-cli.idle.initial.raw');
    const session = await host.start({
      command: process.execPath,
      args: [script, go, fixture, log],
      name: 'late',
      agent: 'gemini',
      headless: true,
    });
    const w = host.ptyPane(session.id)!;
    // Before any look: starting too, not idle (tester5: `wait --until idle` right after
    // `run --detach -- gemini` returned at once, and the send after it was refused).
    assert.equal([w.info().state, w.info().reason], ['working', NOTHING_DRAWN]);
    await until('a first look at the blank screen', () => {
      w.classifyNow();
      return w.record.by === 'screen';
    });
    assert.is(session.terminal.screenText().trim(), '', 'nothing drawn');
    assert.is(w.record.state, 'working');
    assert.is(w.record.reason, NOTHING_DRAWN);
    assert.is(detailOf(w.info()), 'starting');

    const early = await cli(['send', 'late', 'task-question early'], env);
    assert.is(early.code, 3, early.stdout + early.stderr);
    assert.match(early.stderr, /late has drawn nothing yet \(still starting\); nothing was typed/);
    assert.not.match(early.stdout, /sent/);
    assert.not.ok(readFileSync(log, 'utf8').includes('K 74'), 'no byte of the text was typed');
    assert.is(w.record.reason, NOTHING_DRAWN, 'still starting');

    writeFileSync(go, '');
    await until('the start screen drawn, idle', () => {
      w.classifyNow();
      return w.record.state === 'idle' && session.terminal.screenText().includes('Type your');
    });
    assert.is(detailOf(w.info()), 'ready, no task yet');
    // --no-enter: the child draws a still capture and echoes nothing, so an Enter would be
    // withheld (send presses it only once its text shows in the input box)
    const sent = await cli(['send', '--no-enter', 'late', 'hello'], env);
    assert.is(sent.code, 0, sent.stdout + sent.stderr);
    await until('the text typed', () => readFileSync(log, 'utf8').includes('K 68656c6c6f'));
    assert.ok(existsSync(go));
  } finally {
    await close();
  }
});

test.run();
