/**
 * The typed control protocol over real sockets, against a real host and a real PTY: every op's
 * answer has its reply type's shape (`requestOp`), an unknown op and an over-long request are
 * refused with a line naming why, a resize beyond the VT's limits is refused, and `kill` ends
 * the agent (SIGHUP to its group, SIGKILL for one that ignores it) and answers once it is gone.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request, requestOp, sessionInfoOf } from '../src/runtime/control-client.ts';
import { sessionForeground } from '../src/runtime/default-host.ts';
import { SessionHost } from '../src/runtime/host.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import {
  isOp,
  lineReader,
  MAX_LINE,
  OPS,
  SIZE_LIMITS,
  validSize,
} from '../src/runtime/protocol.ts';
import { attachedTerminal } from './support/attached-terminal.ts';
import { until } from './support/until.ts';

/**
 * A fake Claude Code (plain node): its idle input box until a line comes in, then a permission
 * dialog; named `claude` so the foreground reads as Claude Code.
 */
const FAKE = String.raw`
const rule = '─'.repeat(80);
const frame = (bottom) => '\x1b[H\x1b[2J' + [' ✻ Claude Code (fake)', '', ...bottom]
  .map((l, i) => '\x1b[' + (i + 1) + ';1H' + l).join('');
process.stdout.write(frame([rule, '❯ ', rule, '  ⏸ manual mode on · ? for shortcuts']));
process.stdin.once('data', () => process.stdout.write(frame([rule, ' Bash command', '',
  '   touch hello.txt', '', ' Do you want to proceed?', ' ❯ 1. Yes', '   2. No', '',
  ' Esc to cancel · Tab to amend'])));
setInterval(() => {}, 1000);
`;

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'aw-proto-'));
  const agent = join(dir, 'claude');
  writeFileSync(agent, `#!${process.execPath}\n${FAKE}`, { mode: 0o755 });
  const manifests = loadBundledManifests();
  const host = new SessionHost({
    manifests: () => manifests,
    foreground: sessionForeground,
    intervalMs: 50,
    hooks: false,
    env: { ...process.env, AGENTWATCH_DIR: dir },
  });
  return {
    dir,
    agent,
    host,
    done: async () => {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The lines a raw connection receives. */
async function raw(path: string): Promise<{ socket: Socket; lines: string[] }> {
  const socket = createConnection(path);
  const lines: string[] = [];
  socket.on('data', lineReader((l) => lines.push(l), () => lines.push('(overflow)')));
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, lines };
}

const isString = (v: unknown) => typeof v === 'string';

/** Asserts that `p` rejects with an error whose message matches `pattern`. */
async function rejects(p: Promise<unknown>, pattern: RegExp): Promise<void> {
  const outcome = await p.then(() => null, (e: Error) => e);
  assert.ok(outcome, `expected a refusal matching ${pattern}`);
  assert.match(outcome!.message, pattern);
}

test('protocol: the op list, size limits from the VT', () => {
  assert.ok(OPS.every(isOp));
  assert.not.ok(isOp('nope'));
  assert.not.ok(isOp(5));
  assert.equal(SIZE_LIMITS, { minRows: 1, maxRows: 1000, minCols: 2, maxCols: 2000 });
  assert.ok(validSize(1000, 2000));
  assert.not.ok(validSize(1001, 80));
  assert.not.ok(validSize(24, 1));
  assert.not.ok(validSize(24.5, 80));
  assert.not.ok(validSize('24', 80));
});

test('protocol: every op answers with its reply shape, over a real socket', async () => {
  const t = setup();
  try {
    const session = await t.host.start({ command: t.agent, args: [], headless: true, cols: 80 });
    const path = session.spec.socket;
    await until(
      'the idle box',
      () => t.host.pane(session.id)?.record.reason.includes('idle'),
      10_000,
    );

    const info = await requestOp(path, 'info', {});
    assert.is(info.ok, true);
    assert.is(info.op, 'info');
    assert.ok(sessionInfoOf(info.session), 'a valid SessionInfo');
    assert.is(info.session.agent, 'claude');
    assert.is(info.session.by, 'screen');

    const screen = await requestOp(path, 'screen', {});
    assert.match(screen.text, 'manual mode on');
    assert.is(screen.rows, 32);
    assert.is(screen.cols, 80);
    assert.ok(isString(screen.title));
    assert.ok(Number.isInteger(screen.cursor.row) && Number.isInteger(screen.cursor.col));

    const events = await requestOp(path, 'events', {});
    assert.ok(Array.isArray(events.events) && events.events.every(isString));

    const explained = await requestOp(path, 'explain', {});
    assert.is(explained.decidedBy, 'screen');
    assert.is(explained.foreground.kind, 'agent');
    assert.is(explained.foreground.name, 'claude');
    assert.ok(explained.foreground.pgid > 0);
    assert.match(String(explained.manifest), /^claude /);
    assert.match(explained.rules, 'idle');
    assert.is(explained.report, null);

    assert.equal(await requestOp(path, 'report', { state: 'working', detail: 'test' }), {
      ok: true,
      op: 'report',
    });
    const ignored = await requestOp(path, 'notify', { payload: 'not json' });
    assert.ok(isString(ignored.ignored), 'a malformed notification is ignored, and says why');
    assert.equal(await requestOp(path, 'resize', { rows: 30, cols: 80 }), {
      ok: true,
      op: 'resize',
    });
    await rejects(
      requestOp(path, 'resize', { rows: SIZE_LIMITS.maxRows + 1, cols: 80 }),
      /resize: rows must be 1-1000 and cols 2-2000/,
    );
    await rejects(requestOp(path, 'cancel', {}), /not an ACP one/);
    await rejects(requestOp(path, 'mark', { state: 'idle' }), /not being recorded/);
    await rejects(requestOp(path, 'prompt', {}), /not waiting for an answer/);

    const sent = await requestOp(path, 'send', { text: 'go' }, 10_000);
    assert.is(sent.written, 3, 'the text and its Enter');
    await until('blocked', () => t.host.pane(session.id)?.record.state === 'blocked', 30_000);
    const prompt = await requestOp(path, 'prompt', {}, 5000);
    assert.is(prompt.question, 'Do you want to proceed?');
    assert.equal(prompt.options, ['1. Yes', '2. No']);
    assert.is(prompt.selected, 0);
    assert.is(prompt.layout, 'vertical');
    assert.ok(prompt.details.includes('touch hello.txt'));
    const blocked = await requestOp(path, 'info', {});
    assert.is(blocked.session.question, 'Do you want to proceed?');
    await rejects(
      requestOp(path, 'send', { text: 'x' }, 10_000),
      /waiting for a permission answer/,
    );

    // subscribe: no answer line, the state at once
    const sub = await raw(path);
    sub.socket.write('{"op":"subscribe"}\n');
    await until('a state line', () => sub.lines.length >= 1);
    const event = JSON.parse(sub.lines[0]);
    assert.is(event.event, 'state');
    assert.is(sessionInfoOf(event.session)?.state, 'blocked');
    sub.socket.destroy();

    // attach from a terminal of the person's: its answer line, then the screen's bytes (the
    // helper prints ATTACH-READY on the answer line, then relays the redraw)
    const person = await attachedTerminal(path, 32, 80);
    try {
      await person.waitForScreen(/proceed\?/, 30_000);
    } finally {
      await person.close();
    }
    // attach from a process without a controlling terminal (a new session, as setsid makes):
    // refused, exit code 3, as answer is
    const child = spawn(process.execPath, [
      '-e',
      `const c = require('node:net').createConnection(${JSON.stringify(path)});
       c.on('connect', () => c.write('{"op":"attach","rows":32,"cols":80}\\n'));
       c.on('data', (d) => { process.stdout.write(d); c.destroy(); });`,
    ], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    let reply = '';
    child.stdout!.on('data', (d: Buffer) => (reply += d.toString()));
    await new Promise((r) => child.on('exit', r));
    const refused = JSON.parse(reply.split('\n')[0]);
    assert.is(refused.ok, false, reply);
    assert.is(refused.op, 'attach');
    assert.is(refused.code, 3);
    assert.match(refused.error, /no controlling terminal/);
  } finally {
    await t.done();
  }
});

test('protocol: an unknown op, a line with no op, an over-long line', async () => {
  const t = setup();
  try {
    const session = await t.host.start({ command: t.agent, args: [], headless: true });
    const { socket, lines } = await raw(session.spec.socket);
    socket.write('{"op":"nope"}\n{"op":7}\n{"op":"info"}\n');
    await until('3 answers', () => lines.length >= 3);
    assert.equal(JSON.parse(lines[0]), {
      ok: false,
      op: 'nope',
      error: "unknown op 'nope'",
      code: 1,
    });
    const noOp = JSON.parse(lines[1]);
    assert.is(noOp.ok, false);
    assert.is(noOp.op, null);
    assert.match(noOp.error, /^bad request: not a JSON object with an "op"/);
    assert.is(JSON.parse(lines[2]).op, 'info', 'the connection still serves');
    // a line longer than MAX_LINE: refused, and the connection closed
    const closed = new Promise((r) => socket.once('close', r));
    socket.write('{"op":"info","pad":"' + 'x'.repeat(MAX_LINE + 10));
    await closed;
    const last = JSON.parse(lines[lines.length - 1]);
    assert.equal(last, { ok: false, op: null, error: 'request line longer than 1 MB' });
    // the session serves a new connection
    assert.is((await request(session.spec.socket, { op: 'info' })).op, 'info');
  } finally {
    await t.done();
  }
});

test('protocol: kill ends the agent and answers with its exit, also one that ignores SIGHUP', async () => {
  const t = setup();
  try {
    const plain = await t.host.start({
      command: '/bin/sh',
      args: ['-c', 'echo UP; sleep 600'],
      headless: true,
    });
    await until('up', () => plain.terminal.screenText().includes('UP'));
    const a = await requestOp(plain.spec.socket, 'kill', {}, 10_000);
    assert.equal(a.exit, { code: 0, signal: 1 }, 'ended by the SIGHUP');
    assert.ok(plain.exit, 'gone when the answer came');

    const stubborn = await t.host.start({
      command: '/bin/sh',
      args: ['-c', "trap '' HUP; echo UP; while :; do sleep 0.2; done"],
      headless: true,
    });
    await until('up', () => stubborn.terminal.screenText().includes('UP'));
    const b = await requestOp(stubborn.spec.socket, 'kill', {}, 10_000);
    assert.is(b.exit?.signal, 9, 'SIGHUP ignored, then SIGKILL');
    assert.ok(stubborn.exit);
  } finally {
    await t.done();
  }
});

test.run();
