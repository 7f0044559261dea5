/**
 * `agentwatch record` and `agentwatch cut` end to end, in a real PTY: `record` runs a program
 * that plays real Claude Code 2.1.332 screens (test/support/screen-player.ts with
 * fixtures/claude-code idle, working and blocked captures); the person marks each screen with
 * the key chord, once with `agentwatch mark` from another process, and once after a resize.
 * Every mark is then cut into a fixture, and `classify --compare` on the labels.json that cut
 * wrote must read each one as labelled. Also: the chord never reaches the program (Ctrl-\ twice
 * sends one), and the meta holds the argv, the agent, the resize and the exit code.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startPty } from './support/pty-driver.ts';
import { agentwatchArgv, cli, cliInProcess } from './support/cli.ts';
import { until } from './support/until.ts';
import { MarkChords, readRecording } from '../src/runtime/recording.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PLAYER = join(ROOT, 'test', 'support', 'screen-player.ts');
const SCREENS = ['claude.idle.raw', 'claude.working.raw', 'claude.blocked.raw'].map((f) =>
  join(ROOT, 'fixtures', 'claude-code', f)
);

test('MarkChords: Ctrl-\\ b/w/i mark, Ctrl-\\ twice sends one, anything else passes', () => {
  const c = new MarkChords();
  const feed = (s: string) => {
    const r = c.feed(Buffer.from(s));
    return [Buffer.from(r.pass).toString(), r.marks];
  };
  assert.equal(feed('ab\x1cbc'), ['abc', ['blocked']]);
  assert.equal(feed('\x1c'), ['', []]); // the prefix waits for the next chunk
  assert.equal(feed('i'), ['', ['idle']]);
  assert.equal(feed('\x1c\x1c'), ['\x1c', []]);
  assert.equal(feed('\x1cx'), ['\x1cx', []]);
  assert.equal(feed('\x1b[92;5uw\x1b[A'), ['\x1b[A', ['working']]); // kitty keyboard protocol
});

test('record in a PTY, mark by chord and by `agentwatch mark`, cut each mark: classify agrees', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-record-'));
  const sockets = join(dir, 'sockets');
  const log = join(dir, 'player.log');
  const env = { ...process.env, AGENTWATCH_DIR: sockets } as Record<string, string>;
  const rec = join(dir, 'recordings');
  const driver = await startPty({
    command: process.execPath,
    args: [
      ...agentwatchArgv([]),
      'record',
      '--out',
      rec,
      '--name',
      'play',
      '--agent',
      'claude',
      '--',
      process.execPath,
      '--import',
      'tsx',
      PLAYER,
      '--screen-player',
      '--log',
      log,
      ...SCREENS,
    ],
    cwd: ROOT,
    env,
  });
  try {
    const screen = (re: RegExp) => driver.waitForScreen(re, 30_000);
    const marks = () =>
      existsSync(join(rec, 'play.truth.jsonl'))
        ? readFileSync(join(rec, 'play.truth.jsonl'), 'utf8').trim().split('\n').filter(Boolean)
          .length
        : 0;
    await screen(/\? for shortcuts/);
    // a key from another terminal, through the control socket: recorded as input too
    const sent = await cli(['send', '--no-enter', 'play', 'z'], env);
    assert.is(sent.code, 0, sent.stderr);
    driver.send('\x1ci'); // idle
    await until('the idle mark', () => marks() === 1, 30_000);
    driver.send('\x1c\x1cn'); // one Ctrl-\ for the program, then the next screen
    await screen(/esc to interrupt/);
    driver.send('\x1cw');
    await until('the working mark', () => marks() === 2, 30_000);
    driver.send('n');
    await screen(/Do you want to proceed\?/);
    const marked = await cli(['mark', 'play', 'blocked', 'the Bash dialog'], env);
    assert.is(marked.code, 0, marked.stderr);
    assert.match(marked.stdout, /marked play-[0-9a-f]{4} blocked at [0-9.]+ s/);
    await until('the blocked mark', () => marks() === 3, 30_000);
    const before = readRecording(join(rec, 'play')).chunks.length;
    driver.resize(130, 32); // the player redraws at the new size, like Claude Code
    await until('the resize and the redraw at 130 columns', () => {
      const now = readRecording(join(rec, 'play'));
      return now.meta.resizes.length === 1 && now.chunks.length > before;
    }, 20_000);
    await screen(/Do you want to proceed\?/);
    driver.send('\x1cb');
    await until('the blocked mark after the resize', () => marks() === 4, 30_000);
    driver.send('q');
    const exit = await driver.exited;
    assert.is(exit.exitCode, 0);

    // what reached the program: no chord, one Ctrl-\ (1c) from the doubled prefix
    const got = readFileSync(log, 'utf8').trim().split('\n').join('');
    assert.is(got, '7a1c6e6e71', 'z sent, Ctrl-\\ once, n, n, q: ' + got);

    const r = readRecording(join(rec, 'play'));
    assert.is(r.meta.agent, 'claude');
    assert.equal(r.meta.argv.slice(-3), SCREENS.slice(-3));
    assert.is(r.meta.rows, 32);
    assert.is(r.meta.cols, 120);
    assert.equal(r.meta.resizes.map((z) => [z.rows, z.cols]), [[32, 130]]);
    assert.is(r.meta.exit?.code, 0);
    assert.equal(r.truth.map((m) => m.state), ['idle', 'working', 'blocked', 'blocked']);
    assert.is(r.truth[2].why, 'the Bash dialog');
    assert.is(r.truth[0].why, 'key chord');
    const input = readFileSync(join(rec, 'play.input.jsonl'), 'utf8');
    assert.not.match(input, /\\u001cb|\\u001ci|\\u001cw/);
    // every byte the program got is in input.jsonl, the sent one included
    const typed = input.trim().split('\n').map((l) => {
      const k = JSON.parse(l) as { keys?: string; b64?: string };
      return k.keys !== undefined ? Buffer.from(k.keys, 'utf8') : Buffer.from(k.b64!, 'base64');
    });
    assert.is(Buffer.concat(typed).toString('hex'), got);

    // cut every mark; classify the folder's labels
    const fixtures = join(dir, 'fixtures');
    const outs: string[] = [];
    for (let n = 1; n <= 4; n++) {
      const out = join(fixtures, `claude.${r.truth[n - 1].state}.play${n}.raw`);
      const cut = await cli(
        ['cut', join(rec, 'play.meta.json'), '--mark', String(n), '--out', out],
        env,
      );
      assert.is(cut.code, 0, cut.stderr);
      assert.match(
        cut.stdout,
        n === 1
          ? /from the session's start: all \d+ bytes \(the only full redraw is at the start\)/
          : /from the last full redraw: bytes \d+-\d+ of the session/,
      );
      assert.match(cut.stdout, new RegExp(`claude classifies it ${r.truth[n - 1].state}\\n`));
      assert.ok(existsSync(out.replace(/\.raw$/, '.screen.txt')));
      outs.push(out);
    }
    const labels = JSON.parse(readFileSync(join(fixtures, 'labels.json'), 'utf8'));
    assert.equal(labels, {
      'claude.blocked.play3.raw': 'blocked',
      'claude.blocked.play4.raw': { state: 'blocked', size: '32x130' },
      'claude.idle.play1.raw': 'idle',
      'claude.working.play2.raw': 'working',
    });
    const compare = await cli(['classify', '--compare', join(fixtures, 'labels.json')], env);
    assert.is(compare.code, 0, compare.stdout + compare.stderr);
    assert.match(compare.stdout, /screen 4\/4/);
    // the cut at the first mark is the idle capture's own bytes: a full redraw, alone
    assert.equal(readFileSync(outs[0]), readFileSync(SCREENS[0]));
    // an existing fixture is never replaced without --force
    const again = await cli(['cut', join(rec, 'play'), '--mark', '1', '--out', outs[0]], env);
    assert.is(again.code, 1);
    assert.match(again.stderr, /exists; pass --force/);
  } finally {
    await driver.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('record, cut and mark: bad arguments are named', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-cut-'));
  try {
    const none = await cliInProcess(
      ['cut', join(dir, 'nothing'), '--at', '1', '--label', 'idle'],
      process.env,
    );
    assert.is(none.code, 1);
    assert.match(none.stderr, /no such recording: \S+nothing \(no \S+nothing\.bytes\.jsonl\)/);
    // a wrong path is named before a missing --at or --mark
    const bare = await cliInProcess(['cut', join(dir, 'nothing')], process.env);
    assert.is(bare.code, 1, bare.stderr);
    assert.match(bare.stderr, /^agentwatch cut: no such recording: \S+nothing /);
    assert.not.match(bare.stderr, /--at SECONDS/);
    // a moment past the recording's end
    for (const ext of ['bytes.jsonl', 'truth.jsonl', 'input.jsonl', 'meta.json']) {
      copyFileSync(
        join(ROOT, 'fixtures/claude-code/recordings', `bash.${ext}`),
        join(dir, `bash.${ext}`),
      );
    }
    const late = await cliInProcess(
      ['cut', join(dir, 'bash'), '--at', '999', '--label', 'idle'],
      process.env,
    );
    assert.is(late.code, 2);
    assert.match(late.stderr, /bash is 56\.\d s long/);
    assert.not.ok(readdirSync(dir).some((f) => f.endsWith('.raw')), 'no fixture written');
    const both = await cliInProcess(
      ['cut', join(dir, 'bash'), '--at', '1', '--mark', '1'],
      process.env,
    );
    assert.is(both.code, 2);
    assert.match(both.stderr, /give --at SECONDS or --mark N/);
    const missing = await cli(
      ['record', '--out', join(dir, 'rec'), '--', 'no-such-command-aw'],
      process.env,
    );
    assert.is(missing.code, 127);
    assert.match(missing.stderr, /no-such-command-aw: command not found/);
    assert.not.ok(existsSync(join(dir, 'rec')), 'no recording left behind');
    const unknown = await cliInProcess(['mark', 'no-such-session', 'idle'], {
      ...process.env,
      AGENTWATCH_DIR: dir,
    });
    assert.is(unknown.code, 4);
    assert.match(unknown.stderr, /no session 'no-such-session'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
