/**
 * `watch --json` and a blocked session whose dialog is drawn after the transition (Claude Code's
 * PermissionRequest hook says blocked about 0.2 s before its dialog shows; a blocked waits up to
 * PROMPT_WAIT_MS, 2 s, for its dialog): drawn later than that, the transition's line has
 * `question: null`, and a later line with `event: "prompt"` carries the dialog's question.
 * The hosted "agent" is a node script that reports blocked through `agentwatch report` (as the
 * hook does), then draws a real Claude Code 2.1.332 permission dialog
 * (fixtures/claude-code/claude.blocked.raw) 5 s later. PromptEvents' rules are checked on their own too.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PromptEvents, type TransitionEvent, transitionEvent } from '../src/cli/watch.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { REPO_ROOT } from './support/claude-home.ts';
import { until } from './support/until.ts';
import { agentwatchCommand, cli } from './support/cli.ts';

const info = (over: Partial<SessionInfo>): SessionInfo =>
  ({
    id: 'c1-ee00',
    name: 'c1',
    agent: 'claude',
    state: 'blocked',
    since: 5,
    ...over,
  }) as SessionInfo;

test('PromptEvents: a line when the question comes after the transition, or changes; never twice', () => {
  const p = new PromptEvents();
  assert.is(p.update(info({ question: 'Do you want to proceed?' })), null, 'no transition yet');
  p.printed(transitionEvent(info({}), 'working', 1));
  assert.is(p.update(info({})), null, 'still unread');
  const e = p.update(info({ question: 'Do you want to proceed?' }), 2)!;
  assert.equal(e, {
    ...transitionEvent(info({ question: 'Do you want to proceed?' }), 'blocked', 2),
    event: 'prompt',
  });
  assert.is(p.update(info({ question: 'Do you want to proceed?' })), null, 'said once');
  assert.ok(p.update(info({ question: 'Do you want to make this edit to greet.py?' })));
  p.printed(transitionEvent(info({ state: 'working' }), 'blocked', 3));
  assert.is(p.update(info({ state: 'working', question: 'x?' })), null);
  // a transition whose line had the question already: no second line for it
  p.printed(transitionEvent(info({ question: 'Do you want to proceed?' }), 'working', 4));
  assert.is(p.update(info({ question: 'Do you want to proceed?' })), null);
});

test('watch --json: the question read after the blocked transition comes as an event "prompt" line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-watch-prompt-'));
  const env = { ...process.env, AGENTWATCH_DIR: dir };
  const self = agentwatchCommand();
  const agent = join(dir, 'agent.cjs');
  // report blocked as the hook would, draw the dialog 5 s later (after the host stopped waiting
  // for it), then wait to be killed
  writeFileSync(
    agent,
    `const { execFileSync } = require('child_process');\n` +
      `execFileSync(${JSON.stringify(self.command)}, ${
        JSON.stringify([...self.args, 'report', 'blocked'])
      }, { stdio: 'ignore' });\n` +
      `setTimeout(() => process.stdout.write(require('fs').readFileSync(${
        JSON.stringify(join(REPO_ROOT, 'fixtures', 'claude-code', 'claude.blocked.raw'))
      })), 5000);\nsetInterval(() => {}, 1000);\n`,
  );
  const events: TransitionEvent[] = [];
  let stderr = '';
  let watch: ChildProcess | undefined;
  try {
    watch = spawn(self.command, [
      ...self.args,
      'watch',
      '--json',
      '--name',
      'c1',
      '--agent',
      'claude',
      '--no-desktop',
      '--',
      process.execPath,
      agent,
    ], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let pending = '';
    watch.stdout!.on('data', (d: Buffer) => {
      pending += d.toString('utf8');
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        events.push(JSON.parse(pending.slice(0, nl)));
        pending = pending.slice(nl + 1);
      }
    });
    watch.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const context = () => `\nevents: ${JSON.stringify(events)}\nstderr: ${stderr}`;
    const blocked = await until('blocked', () => events.find((e) => e.state === 'blocked'), 30_000)
      .catch((e) => {
        throw new Error(`${(e as Error).message}${context()}`);
      });
    assert.is(blocked.question, null, `reported before the dialog was drawn${context()}`);
    const prompt = await until(
      'the prompt line',
      () => events.find((e) => e.event === 'prompt'),
      20_000,
    ).catch((e) => {
      throw new Error(`${(e as Error).message}${context()}`);
    });
    assert.is(prompt.question, 'Do you want to proceed?');
    assert.is(prompt.state, 'blocked');
    assert.is(prompt.prev, 'blocked');
    assert.is(prompt.id, blocked.id);
    assert.is(events.filter((e) => e.event === 'prompt').length, 1, context());
  } finally {
    watch?.kill('SIGTERM');
    await until('watch ended', () => watch?.exitCode !== null || watch?.signalCode !== null, 20_000)
      .catch(() => watch?.kill('SIGKILL'));
    // `watch -- CMD` started the session in the background host, which outlives the watch:
    // end it, so that its host ends too (and nothing is left running after the test).
    const kill = await cli(['kill', 'c1'], env);
    assert.ok(kill.code === 0 || kill.code === 4, `kill c1: ${kill.code} ${kill.stderr}`);
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
