/**
 * ACP sessions through the real CLI: `agentwatch acp -- node test/support/acp-agent.ts` (a
 * scripted agent on the SDK's agent side, a child process on stdio), its state followed on its
 * control socket, answered and cancelled with `agentwatch answer|cancel|send` as separate
 * processes:
 * - a permission request -> blocked, with the tool call's title, kind and command and the
 *   options (optionId, name, kind) in `ls --json`, the notice and `explain`; answered by kind
 *   (granted), then a second time by number (rejected): the agent got each optionId; idle with
 *   the stopReason kept;
 * - `agentwatch cancel` and the chat's Ctrl-C (SIGINT) answer pending requests `cancelled`;
 * - a confirmation answers one permission request, not the same request asked again;
 * - two requests at once, each answered;
 * - an agent that dies mid-request: exited, the pending request dropped, the CLI's exit code;
 * - a line that is not JSON: reported, and the session goes on;
 * - each stopReason;
 * - the client advertises neither fs nor terminal.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentwatchCommand, cli, personRequest } from './support/cli.ts';
import { request } from '../src/runtime/control-client.ts';
import type { PromptReply } from '../src/runtime/protocol.ts';
import { type AcpRun, agentLog, SCRIPTED_AGENT, startAcp } from './support/acp-run.ts';
import { sleep, until } from './support/until.ts';
import { acpDecide, askOf, promptOf } from '../src/runtime/acp-state.ts';
import { choiceIndex } from '../src/runtime/typing-guard.ts';
import { acpTarget } from '../src/cli/acp.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { printableText } from '../src/cli/acp-chat.ts';
import { type PtyDriver, startPty } from './support/pty-driver.ts';

/** A CLI command with no controlling terminal (setsid), in the run's socket directory. */
const aw = (run: AcpRun, args: string[]) => cli(args, run.env, { detached: true });
/** The person's `answer --yes`, in a terminal of its own (`answer` is refused from none). */
const person = (run: AcpRun, args: string[]) => cli(args, run.env, { tty: true });

/**
 * `agentwatch acp` on the scripted agent, its log and the notices in a folder of their own,
 * which run.stop() removes with the session's.
 */
function scripted(name: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const files = mkdtempSync(join(tmpdir(), 'aw-acp-files-'));
  const log = join(files, 'agent.jsonl');
  const notices = join(files, 'notices.txt');
  const run = startAcp(
    [
      '--name',
      name,
      '--notify-cmd',
      `printf '%s|%s\\n' "$AGENTWATCH_TITLE" "$AGENTWATCH_BODY" >> ${notices}`,
      '--',
      ...SCRIPTED_AGENT,
    ],
    { ACP_AGENT_LOG: log, ...extraEnv },
    undefined,
    [files],
  );
  return { run, log, notices };
}

const outcomes = (log: string) =>
  agentLog(log).filter((e) => e.event === 'outcome').map((e) => `${e.toolCallId}=${e.outcome}`);

test('pure: facts give the state, the oldest request shows, CHOICE by kind or optionId', () => {
  const ask = askOf({
    toolCall: {
      toolCallId: 't1',
      title: 'Run \x1b[31mls\x1b[0m',
      kind: 'execute',
      rawInput: { command: 'ls -la' },
      content: [{ type: 'diff', path: '/a/b.ts', newText: '' }],
    },
    options: [
      { optionId: 'ok', name: 'Allow', kind: 'allow_once' },
      { optionId: 'no', name: 'Reject', kind: 'reject_once' },
    ],
  }, 1);
  assert.is(ask.toolCall.title, 'Run ls');
  assert.equal(ask.toolCall.content, ['command: ls -la', 'diff: /a/b.ts']);
  const p = promptOf(ask);
  assert.equal(p.options, ['1. Allow (allow_once)', '2. Reject (reject_once)']);
  assert.is(choiceIndex('reject_once', p.options, p.aliases), 1);
  assert.is(choiceIndex('ok', p.options, p.aliases), 0);
  assert.is(choiceIndex('reject', p.options, p.aliases), 1);
  assert.is(choiceIndex('2', p.options, p.aliases), 1);
  const base = { exit: null, pending: [], turn: false, ready: true };
  assert.is(acpDecide(base).state, 'idle');
  assert.is(acpDecide({ ...base, turn: true }).state, 'working');
  const blocked = acpDecide({ ...base, turn: true, pending: [ask, ask] });
  assert.is(blocked.state, 'blocked');
  assert.is(blocked.reason, 'session/request_permission (tool execute: Run ls) (+1 more pending)');
  assert.is(acpDecide({ ...base, pending: [ask], exit: { code: 3 } }).state, 'exited');
  assert.is(acpDecide({ ...base, stopReason: 'refusal' }).reason, 'turn ended: refusal');
  assert.is(printableText('a\x1b[2Jb\x07\r\nc\td'), 'ab\nc\td');
});

test('acp ID runs the manifest ACP command; -- AGENT names the agent from its command', () => {
  const m = loadBundledManifests();
  assert.equal(acpTarget(['gemini'], m), { command: 'gemini', args: ['--acp'], agent: 'gemini' });
  assert.equal(acpTarget(['qwen'], m), { command: 'qwen', args: ['--acp'], agent: 'qwen' });
  assert.equal(acpTarget(['opencode'], m), {
    command: 'opencode',
    args: ['acp'],
    agent: 'opencode',
  });
  assert.equal(acpTarget(['claude'], m), {
    command: 'claude-agent-acp',
    args: [],
    agent: 'claude',
  });
  assert.equal(acpTarget(['gemini', '--', '-m', 'x'], m).args, ['--acp', '-m', 'x']);
  assert.is(acpTarget(['--', 'claude-agent-acp'], m).agent, 'claude');
  assert.is(acpTarget(['--', '/usr/bin/gemini', '--acp'], m).agent, 'gemini');
  assert.is(acpTarget(['--', 'node', 'x.js'], m).agent, '');
  assert.throws(() => acpTarget(['codex'], m), /declares no ACP command/);
  assert.throws(() => acpTarget(['nope'], m), /no agent 'nope'/);
});

test('a command that is not an ACP agent: reported, with its exit code; a missing one: 127', async () => {
  const run = startAcp(['--', 'bash', '-c', 'echo "not an ACP agent"; exit 4']);
  try {
    assert.is(await run.exited, 4);
    assert.match(run.stdout(), 'the agent sent a line that is not JSON: not an ACP agent');
    assert.match(
      run.stderr(),
      'the agent exited during the ACP handshake (agent exited with code 4)',
    );
  } finally {
    await run.stop();
  }
  const missing = startAcp(['--', 'no-such-acp-agent-x']);
  try {
    assert.is(await missing.exited, 127);
    assert.match(missing.stderr(), 'no-such-acp-agent-x: command not found');
  } finally {
    await missing.stop();
  }
});

test('granted by kind, then rejected by number: the agent gets each optionId; facts on ls, notice, explain', async () => {
  const { run, log, notices } = scripted('perm');
  try {
    const info = await run.session();
    assert.is(info.by, 'acp');
    assert.is(info.state, 'idle');
    // The client advertised only what it implements.
    const init = agentLog(log).find((e) => e.event === 'initialize');
    assert.ok(init);
    const caps = init.clientCapabilities as Record<string, unknown>;
    assert.equal(caps.fs, { readTextFile: false, writeTextFile: false });
    assert.is(caps.terminal, false);

    run.type('permission');
    const blocked = await run.waitFor('blocked', (i) => i.state === 'blocked');
    assert.is(blocked.question, 'Allow execute tool call: Run ls -la?');
    assert.ok(blocked.details!.includes('command: ls -la'));
    const ls = await aw(run, ['ls', '--json']);
    const listed = JSON.parse(ls.stdout)[0];
    assert.equal(listed.permissions[0].toolCall, {
      toolCallId: 'call-1',
      title: 'Run ls -la',
      kind: 'execute',
      content: ['command: ls -la'],
    });
    assert.equal(
      listed.permissions[0].options.map((o: { optionId: string; kind: string }) =>
        `${o.optionId}:${o.kind}`
      ),
      [
        'allow:allow_once',
        'always:allow_always',
        'reject:reject_once',
      ],
    );
    const explain = await aw(run, ['explain', 'perm']);
    assert.match(
      explain.stdout,
      'blocked, decided by acp: session/request_permission (tool execute: Run ls -la)',
    );
    // `send` is refused on a blocked session, like a PTY's.
    const send = await aw(run, ['send', 'perm', 'hello']);
    assert.is(send.code, 3, send.stderr);
    // The notice carries the question.
    const notice = await until('the notice', () => {
      try {
        return readFileSync(notices, 'utf8');
      } catch {
        return '';
      }
    });
    assert.match(notice, 'perm needs you|Allow execute tool call: Run ls -la?');
    // Without --yes and without a terminal, nothing is answered.
    const unconfirmed = await aw(run, ['answer', 'perm', '1']);
    assert.is(unconfirmed.code, 1, unconfirmed.stdout + unconfirmed.stderr);
    assert.equal(outcomes(log), []);

    let mark = run.states.length;
    const granted = await person(run, ['answer', '--yes', 'perm', 'allow_once']);
    assert.is(granted.code, 0, granted.stderr);
    assert.match(granted.stdout, 'answered: 1. Allow once (allow_once)');
    const idle = await run.waitFor('idle', (i) => i.state === 'idle', mark);
    assert.is(idle.stopReason, 'end_turn');
    assert.is(idle.reason, 'turn ended: end_turn');
    assert.equal(outcomes(log), ['call-1=allow']);
    assert.match(run.stdout(), 'ran ls -la');

    // The same scenario a second time, answered by number: rejected.
    mark = run.states.length;
    run.type('permission');
    await run.waitFor('blocked again', (i) => i.state === 'blocked', mark);
    const rejected = await person(run, ['answer', '--yes', 'perm', '3']);
    assert.is(rejected.code, 0, rejected.stderr);
    await run.waitFor('idle again', (i) => i.state === 'idle', mark);
    assert.equal(outcomes(log), ['call-1=allow', 'call-1=reject']);
    assert.match(run.stdout(), 'not run');
    // `answer` on an idle ACP session is refused like on a PTY one.
    const late = await person(run, ['answer', '--yes', 'perm', '1']);
    assert.is(late.code, 3, late.stderr);
    // `send` on an idle session is a prompt turn.
    mark = run.states.length;
    const sent = await aw(run, ['send', 'perm', 'hello there']);
    assert.is(sent.code, 0, sent.stderr);
    await run.waitFor('the sent turn', (i) => i.state === 'working', mark);
    await run.waitFor('its end', (i) => i.state === 'idle', mark);
    assert.match(run.stdout(), 'echo: hello there');
  } finally {
    await run.stop();
  }
});

test('a confirmation answers one permission request: the same request asked again after an answer elsewhere is refused', async () => {
  const { run, log } = scripted('again');
  try {
    run.type('permission');
    const blocked = await run.waitFor('blocked', (i) => i.state === 'blocked');
    // the person is shown the request (answer's read, the board's a) ...
    const first = await request<PromptReply>(blocked.socket, { op: 'prompt' });
    assert.type(first.episode, 'number');
    // ... meanwhile it is answered elsewhere, and the agent asks the very same again
    let mark = run.states.length;
    const elsewhere = await person(run, ['answer', '--yes', 'again', '1']);
    assert.is(elsewhere.code, 0, elsewhere.stderr);
    await run.waitFor('idle', (i) => i.state === 'idle', mark);
    mark = run.states.length;
    run.type('permission');
    await run.waitFor('blocked again', (i) => i.state === 'blocked', mark);
    const second = await request<PromptReply>(blocked.socket, { op: 'prompt' });
    assert.equal(second.details, first.details, 'the same request, word for word');
    assert.is.not(second.episode, first.episode);
    // the first confirmation does not answer the second request
    const stale = await personRequest(blocked.socket, {
      op: 'answer',
      choice: '3',
      confirmed: true,
      expect: first,
    }, run.env).then(() => null, (e: { exitCode?: number; message: string }) => e);
    assert.ok(stale, 'refused');
    assert.is(stale!.exitCode, 3, stale!.message);
    assert.match(
      stale!.message,
      'the prompt you confirmed was answered, or keys were typed into it, since you saw it',
    );
    assert.equal(outcomes(log), ['call-1=allow']);
    // its own confirmation does
    const answered = await personRequest<{ answered: string }>(blocked.socket, {
      op: 'answer',
      choice: '3',
      confirmed: true,
      expect: second,
    }, run.env);
    assert.match(answered.answered, '3. Reject');
    await until('the outcome', () => outcomes(log).length === 2);
    assert.equal(outcomes(log), ['call-1=allow', 'call-1=reject']);
  } finally {
    await run.stop();
  }
});

test("wait follows an ACP session; answer from inside a session (its agent's tools) is refused", async () => {
  const { run, log } = scripted('waited');
  try {
    await run.session();
    const waiting = aw(run, ['wait', 'waited', '--until', 'blocked', '--timeout', '60']);
    run.type('permission');
    const w = await waiting;
    assert.is(w.code, 0, w.stderr);
    assert.match(w.stdout, 'waited blocked');
    const inside = await cli(['answer', '--yes', 'waited', '1'], {
      ...run.env,
      AGENTWATCH_SESSION: 'waited-0000',
    }, { detached: true });
    assert.is(inside.code, 3, inside.stderr);
    assert.equal(outcomes(log), []);
    const c = await aw(run, ['cancel', 'waited']);
    assert.is(c.code, 0, c.stderr);
    const idle = await aw(run, ['wait', 'waited', '--until', 'idle', '--timeout', '60']);
    assert.is(idle.code, 0, idle.stderr);
    // cancel with no turn in flight says so.
    const none = await aw(run, ['cancel', 'waited']);
    assert.is(none.code, 1);
    assert.match(none.stderr, 'has no turn to cancel');
  } finally {
    await run.stop();
  }
});

test('cancelled by the person: agentwatch cancel, then Ctrl-C in the chat', async () => {
  const { run, log } = scripted('cancel');
  try {
    await run.session();
    let mark = run.states.length;
    run.type('permission');
    await run.waitFor('blocked', (i) => i.state === 'blocked', mark);
    const c = await aw(run, ['cancel', 'cancel']);
    assert.is(c.code, 0, c.stderr);
    assert.match(c.stdout, '1 permission request(s) answered cancelled');
    const idle = await run.waitFor('idle', (i) => i.state === 'idle', mark);
    assert.is(idle.stopReason, 'cancelled');
    assert.equal(outcomes(log), ['call-1=cancelled']);

    // Ctrl-C in the chat (SIGINT to the acp process) cancels the turn in flight.
    mark = run.states.length;
    run.type('permission');
    await run.waitFor('blocked again', (i) => i.state === 'blocked', mark);
    run.child.kill('SIGINT');
    const again = await run.waitFor('idle again', (i) => i.state === 'idle', mark);
    assert.is(again.stopReason, 'cancelled');
    assert.equal(outcomes(log), ['call-1=cancelled', 'call-1=cancelled']);
    assert.ok(agentLog(log).filter((e) => e.event === 'cancel').length === 2);
    // A turn with no permission request, cancelled.
    mark = run.states.length;
    run.type('wait');
    await run.waitFor('working', (i) => i.state === 'working', mark);
    run.child.kill('SIGINT');
    const waited = await run.waitFor('cancelled', (i) => i.state === 'idle', mark);
    assert.is(waited.stopReason, 'cancelled');
    assert.is(run.child.exitCode, null, 'Ctrl-C during a turn does not quit the chat');
  } finally {
    await run.stop();
  }
});

test('two requests at once: both published, each answered in turn', async () => {
  const { run, log } = scripted('two');
  try {
    await run.session();
    const mark = run.states.length;
    run.type('two');
    const both = await run.waitFor(
      'two pending',
      (i) => (i.permissions?.length ?? 0) === 2,
      mark,
    );
    assert.match(both.reason, '(+1 more pending)');
    assert.equal(both.permissions!.map((p) => p.toolCall.toolCallId), ['call-a', 'call-b']);
    assert.equal(both.permissions![1].toolCall.content, ['diff: /tmp/acp-two.txt']);
    const first = await person(run, ['answer', '--yes', 'two', 'allow_once']);
    assert.is(first.code, 0, first.stderr);
    const one = await run.waitFor(
      'one left',
      (i) => i.permissions?.length === 1 && i.permissions[0].toolCall.toolCallId === 'call-b',
      mark,
    );
    assert.is(one.state, 'blocked');
    assert.is(one.permissions![0].toolCall.toolCallId, 'call-b');
    const second = await person(run, ['answer', '--yes', 'two', 'reject']);
    assert.is(second.code, 0, second.stderr);
    await run.waitFor('idle', (i) => i.state === 'idle', mark);
    assert.equal(outcomes(log).sort(), ['call-a=allow', 'call-b=reject']);
    assert.match(run.stdout(), 'outcomes: allow, reject');
  } finally {
    await run.stop();
  }
});

test('an agent that dies mid-request: exited, the request dropped, its exit code', async () => {
  const { run } = scripted('die');
  try {
    await run.session();
    run.type('die');
    await run.waitFor('blocked', (i) => i.state === 'blocked');
    const exited = await run.waitFor('exited', (i) => i.state === 'exited');
    assert.is(exited.permissions, undefined);
    assert.is(exited.reason, 'agent exited with code 3');
    assert.is(await run.exited, 3);
    assert.match(run.stdout(), '[agent exited with code 3]');
  } finally {
    await run.stop();
  }
});

test('a line that is not JSON is reported and the session goes on', async () => {
  const { run } = scripted('garbage');
  try {
    await run.session();
    let mark = run.states.length;
    run.type('garbage');
    await run.waitFor('idle', (i) => i.state === 'idle' && i.stopReason === 'end_turn', mark);
    await until('the report', () => /not JSON: this is not JSON \{/.test(run.stdout()));
    assert.match(run.stdout(), 'still here');
    const events = await aw(run, ['explain', 'garbage']);
    assert.match(events.stdout, 'the agent sent a line that is not JSON');
    mark = run.states.length;
    run.type('after');
    await run.waitFor('next turn', (i) => i.state === 'working', mark);
    await run.waitFor('next idle', (i) => i.state === 'idle', mark);
    assert.match(run.stdout(), 'echo: after');
  } finally {
    await run.stop();
  }
});

test('each stopReason ends the turn idle with it kept; agent text is sanitized', async () => {
  const { run } = scripted('stops');
  try {
    await run.session();
    for (const reason of ['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled']) {
      const mark = run.states.length;
      run.type(`stop ${reason}`);
      await run.waitFor(`working (${reason})`, (i) => i.state === 'working', mark);
      const idle = await run.waitFor(`idle (${reason})`, (i) => i.state === 'idle', mark);
      assert.is(idle.stopReason, reason);
      assert.is(idle.reason, `turn ended: ${reason}`);
    }
    const out = run.stdout();
    assert.match(out, '(thinking…)');
    assert.match(out, '[x] say it');
    assert.match(out, '[turn ended: max_tokens]');
    assert.not.match(out, '\x1b[2J');
    assert.not.match(out, '\x07');
  } finally {
    await run.stop();
  }
});

test('the chat in a terminal: a typed line answers a request, Ctrl-C cancels a turn, twice quits', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-acp-tty-'));
  const log = join(dir, 'agent.jsonl');
  const self = agentwatchCommand();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  delete env.AGENTWATCH_SESSION;
  Object.assign(env, { AGENTWATCH_DIR: dir, ACP_AGENT_LOG: log });
  let pty: PtyDriver | undefined;
  try {
    pty = await startPty({
      command: self.command,
      args: [...self.args, 'acp', '--no-desktop', '--name', 'tty', '--', ...SCRIPTED_AGENT],
      cwd: process.cwd(),
      env,
    });
    await pty.waitForScreen(/Ctrl-C cancels a turn/, 30_000);
    await pty.type('permission\r');
    await pty.waitForScreen(/permission asked: execute tool call: Run ls -la/, 30_000);
    // Not an option: said so, nothing answered.
    await pty.type('maybe\r');
    await pty.waitForScreen(/'maybe' is not an option/, 30_000);
    await pty.type('reject\r');
    await pty.waitForScreen(/\[turn ended: end_turn\]/, 30_000);
    assert.equal(outcomes(log), ['call-1=reject']);
    await pty.type('wait\r');
    await until('the turn', () => agentLog(log).some((e) => e.text === 'wait'), 30_000);
    pty.send('\x03');
    await pty.waitForScreen(/\[turn ended: cancelled\]/, 30_000);
    pty.send('\x03');
    await pty.waitForScreen(/Ctrl-C again or Ctrl-D to quit/, 30_000);
    pty.send('\x03');
    const exit = await Promise.race([pty.exited, sleep(10_000).then(() => null)]);
    assert.equal(exit?.exitCode, 0, 'the chat quits');
  } finally {
    await pty?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the board shows an ACP session like any other; a, ↓↓, y answers it with reject; Enter says why no attach', async () => {
  const { run, log } = scripted('board-acp');
  const self = agentwatchCommand();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(run.env)) if (v !== undefined) env[k] = v;
  let pty: PtyDriver | undefined;
  try {
    pty = await startPty({
      command: self.command,
      args: [...self.args, 'watch', '--no-desktop'],
      cwd: process.cwd(),
      env,
    });
    await run.session();
    // The AGENT column names the manifest: the scripted agent has none.
    await pty.waitForScreen(/board-acp\s+-\s+idle\s.*session ready/, 30_000);
    pty.send('\r');
    await pty.waitForScreen(/ACP session: it has no terminal to attach to/, 30_000);
    run.type('permission');
    await run.waitFor('blocked', (i) => i.state === 'blocked');
    await pty.waitForScreen(/board-acp\s+-\s+blocked/, 30_000);
    pty.send('a');
    await pty.waitForScreen(/Answer '1\. Allow once \(allow_once\)'\? y\/N/, 30_000);
    assert.match(pty.screen(), 'command: ls -la');
    pty.send('\x1b[B');
    await pty.waitForScreen(/Answer '2\. Always allow/, 30_000);
    pty.send('\x1b[B');
    await pty.waitForScreen(/Answer '3\. Reject \(reject_once\)'\? y\/N/, 30_000);
    pty.send('y');
    await until('the outcome', () => outcomes(log).length === 1, 30_000);
    assert.equal(outcomes(log), ['call-1=reject']);
    await pty.waitForScreen(/board-acp\s+-\s+idle\s+\S+\s+done \d+ s ago/, 30_000);
  } finally {
    await pty?.close();
    await run.stop();
  }
});

test.run();
