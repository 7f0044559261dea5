/**
 * A confirmation answers one prompt episode, not the same text asked again. A Claude-like
 * permission dialog (a plain node program in a real PTY hosted by a SessionHost, rules from the
 * bundled claude.toml) closes on `1` and, once closed, draws the very same dialog again on `r`
 * (the agent asked again for the same command), logging every key it reads. Through the
 * session's control socket, as `agentwatch answer` and the board's `a` panel do it:
 * - the prompt is read (the person is shown it), then answered in the pane itself (elsewhere),
 *   the session goes idle, the same dialog comes back: the answer confirmed on the first read
 *   is refused (exit 3, "the prompt you confirmed was answered, or keys were typed into it,
 *   since you saw it") and nothing is typed;
 * - the prompt read again (a new episode) is answered.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHost } from '../src/runtime/default-host.ts';
import { request } from '../src/runtime/control-client.ts';
import type { PromptReply } from '../src/runtime/protocol.ts';
import { personRequest } from './support/cli.ts';
import { until } from './support/until.ts';

/** The dialog: argv LOG [DELAY]. Logs `K <hex>` per key read, `C` when it closes, `O` when it opens. */
const DIALOG = String.raw`
const fs = require('fs');
const [log, delay] = process.argv.slice(2);
const out = process.stdout;
const rows = out.rows || 32;
const cols = out.columns || 120;
let open = true;
function draw() {
  const lines = open
    ? ['─'.repeat(cols), ' Bash command', '   touch hello.txt', '', ' Do you want to proceed?',
      ' ❯ 1. Yes', '   2. No', '', ' Esc to cancel · Tab to amend']
    : ['─'.repeat(cols), '❯ ', '─'.repeat(cols), '  ⏸ manual mode on · ? for shortcuts'];
  let s = '\x1b[H\x1b[2J● I will create the file.';
  lines.forEach((l, i) => (s += '\x1b[' + (rows - lines.length + i + 1) + ';1H' + l));
  out.write(s);
}
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => {
  fs.appendFileSync(log, 'K ' + d.toString('hex') + '\n');
  const k = d.toString();
  if (open && k === '1') {
    // a slow agent (delay ms) redraws a while after it read the key
    setTimeout(() => {
      open = false;
      fs.appendFileSync(log, 'C\n');
      draw();
    }, Number(delay) || 0);
  } else if (!open && k === 'r') {
    open = true;
    fs.appendFileSync(log, 'O\n');
    draw();
  }
});
draw();
`;

test('a prompt answered elsewhere and asked again: the earlier confirmation is refused, nothing typed; the new one is answered', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-episode-'));
  const env = { ...process.env, AGENTWATCH_DIR: dir };
  const host = createHost({ intervalMs: 100 }, env);
  try {
    const script = join(dir, 'dialog.cjs');
    writeFileSync(script, DIALOG);
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const keys = () => readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('K '));
    const session = await host.start({
      command: process.execPath,
      args: [script, log],
      name: 'beta',
      agent: 'claude',
      headless: true,
    });
    const w = host.ptyPane(session.id)!;
    const socket = session.spec.socket;
    const blocked = async (what: string, want: boolean) =>
      await until(what, () => {
        w.classifyNow();
        return (w.record.state === 'blocked') === want;
      }).catch((e) => {
        throw new Error(`${e.message}\n${session.terminal.screenText()}\n${w.record.reason}`);
      });
    await blocked('the dialog, blocked', true);

    // terminal P reads the prompt and shows it; the person has not pressed y yet
    const first = await request<PromptReply>(socket, { op: 'prompt' });
    assert.is(first.question, 'Do you want to proceed?');
    assert.equal(first.options, ['1. Yes', '2. No']);
    assert.type(first.episode, 'number');

    // meanwhile it is answered elsewhere (in the pane), the session goes idle, and the agent
    // asks again for the very same command
    session.write('1');
    await until('closed', () => readFileSync(log, 'utf8').includes('C\n'));
    await blocked('idle after the answer', false);
    session.write('r');
    await until('opened again', () => readFileSync(log, 'utf8').includes('O\n'));
    await blocked('the same dialog again, blocked', true);
    const typed = keys().length;

    // the person presses y in P: the confirmation was for the prompt already answered
    const stale = await personRequest(socket, {
      op: 'answer',
      choice: '1',
      confirmed: true,
      expect: {
        question: first.question,
        options: first.options,
        details: first.details,
        episode: first.episode,
      },
    }, env).then(() => null, (e: { exitCode?: number; message: string }) => e);
    assert.ok(stale, 'refused');
    assert.is(stale!.exitCode, 3, stale!.message);
    assert.match(
      stale!.message,
      /the prompt you confirmed was answered, or keys were typed into it, since you saw it/,
    );
    assert.is(keys().length, typed, 'nothing typed into the new prompt');
    w.classifyNow();
    assert.is(w.record.state, 'blocked');

    // a request without the episode is malformed, not answered
    const bare = await personRequest(socket, {
      op: 'answer',
      choice: '1',
      confirmed: true,
      expect: { question: first.question, options: first.options },
    }, env).then(() => null, (e: { exitCode?: number; message: string }) => e);
    assert.ok(bare, 'refused');
    assert.match(bare!.message, /episode/);
    assert.is(keys().length, typed, 'nothing typed without an episode');

    // read again (a new episode, the same text): confirmed and answered
    const second = await request<PromptReply>(socket, { op: 'prompt' });
    assert.equal(second.options, first.options);
    assert.equal(second.details, first.details);
    assert.is.not(second.episode, first.episode);
    const answered = await personRequest<{ answered: string }>(socket, {
      op: 'answer',
      choice: '1',
      confirmed: true,
      expect: second,
    }, env);
    assert.is(answered.answered, '1. Yes');
    assert.equal(keys().slice(typed), ['K 31'], 'one key, the digit');
    assert.is(readFileSync(log, 'utf8').split('\n').filter((l) => l === 'C').length, 2);
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a terminal's own reports (focus in and out, a cursor position) typed into the pane while a prompt shows start no new episode; a key does", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-episode-'));
  const env = { ...process.env, AGENTWATCH_DIR: dir };
  const host = createHost({ intervalMs: 100 }, env);
  try {
    const script = join(dir, 'dialog.cjs');
    writeFileSync(script, DIALOG);
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const keys = () => readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('K '));
    const session = await host.start({
      command: process.execPath,
      args: [script, log],
      name: 'gamma',
      agent: 'claude',
      headless: true,
    });
    const w = host.ptyPane(session.id)!;
    const socket = session.spec.socket;
    await until('the dialog, blocked', () => {
      w.classifyNow();
      return w.record.state === 'blocked';
    });
    const seen = await request<PromptReply>(socket, { op: 'prompt' });
    // the person switches to another window to answer there: their terminal reports focus out
    // (Gemini CLI 0.61.0 turns focus reporting on, CSI ? 1004 h), later focus in, and answers
    // a cursor position query; each goes through `run` to the agent
    for (const report of ['\x1b[O', '\x1b[I', '\x1b[12;40R\x1b[O']) {
      const before = keys().length;
      session.write(report);
      await until('the report read', () => keys().length > before);
    }
    const typed = keys().length;
    const answered = await personRequest<{ answered: string }>(socket, {
      op: 'answer',
      choice: '1',
      confirmed: true,
      expect: seen,
    }, env);
    assert.is(answered.answered, '1. Yes');
    assert.equal(keys().slice(typed), ['K 31'], 'one key, the digit');

    // the same dialog again: a key the person typed in the pane (with a focus report) is no report
    session.write('r');
    await until('opened again', () => readFileSync(log, 'utf8').includes('O\n'));
    await until('blocked again', () => {
      w.classifyNow();
      return w.record.state === 'blocked';
    });
    const again = await request<PromptReply>(socket, { op: 'prompt' });
    const before = keys().length;
    session.write('\x1b[Ix');
    await until('the key read', () => keys().length > before);
    const refused = await personRequest(socket, {
      op: 'answer',
      choice: '1',
      confirmed: true,
      expect: again,
    }, env).then(() => null, (e: { exitCode?: number; message: string }) => e);
    assert.ok(refused, 'refused');
    assert.is(refused!.exitCode, 3, refused!.message);
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two answers to one prompt at once (two terminals, the board and the CLI): one is typed, the other refused with nothing typed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-episode-'));
  const env = { ...process.env, AGENTWATCH_DIR: dir };
  const host = createHost({ intervalMs: 100 }, env);
  try {
    const script = join(dir, 'dialog.cjs');
    writeFileSync(script, DIALOG);
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const keys = () => readFileSync(log, 'utf8').split('\n').filter((l) => l.startsWith('K '));
    const session = await host.start({
      command: process.execPath,
      args: [script, log, '400'],
      name: 'delta',
      agent: 'claude',
      headless: true,
    });
    const w = host.ptyPane(session.id)!;
    const socket = session.spec.socket;
    await until('the dialog, blocked', () => {
      w.classifyNow();
      return w.record.state === 'blocked';
    });
    const seen = await request<PromptReply>(socket, { op: 'prompt' });
    const answer = () =>
      personRequest<{ answered: string }>(socket, {
        op: 'answer',
        choice: '1',
        confirmed: true,
        expect: seen,
      }, env);
    const results = await Promise.allSettled([answer(), answer()]);
    const done = results.filter((r) => r.status === 'fulfilled');
    const refused = results.flatMap((r) =>
      r.status === 'rejected' ? [r.reason as { exitCode?: number; message: string }] : []
    );
    assert.is(done.length, 1, JSON.stringify(results));
    assert.is(refused.length, 1, JSON.stringify(results));
    assert.is(refused[0].exitCode, 3, refused[0].message);
    assert.equal(keys(), ['K 31'], 'one key in all');
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
