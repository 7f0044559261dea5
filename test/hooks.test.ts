/**
 * Agent reports through Claude Code hooks (DESIGN.md section 1 "Better than reading the
 * screen"), with real processes and real sockets in a temporary AGENTWATCH_DIR:
 * - claudeHookSettings/launchArgs: valid JSON; every command is async and calls this executable by
 *   absolute path, as `... >/dev/null 2>&1 || true`; run through /bin/sh from another folder,
 *   a command reaches the session;
 * - `report`/`notify` as processes exit 0 with no session, no socket, a dead socket, garbage
 *   or huge stdin, stdin left open, an unknown word, and end by their own clock (not when a
 *   stdin left open ends); the time each spends after Node and tsx are loaded (loading
 *   main.ts and hook.ts, reading stdin, the socket, exit), less the time it waited for a core
 *   (read from /proc/self/schedstat), is printed beside the hook budget (2 s) and
 *   `node --import tsx -e 0`: speed is bench/hook.ts's to judge (a loaded machine took 404 ms
 *   twice in a row, while waiting on what schedstat does not count);
 * - with a live session (a screen no rule knows, so that the reports alone decide): `report working`
 *   -> working by report; `report tool` with an AskUserQuestion PreToolUse payload -> blocked;
 *   `notify` permission_prompt -> blocked, idle_prompt -> idle, malformed -> ignored and
 *   logged (the socket's `events`);
 * - with the simulated agent: a blocked report the screen agreed with is dropped once the
 *   person presses Esc on the prompt and the screen shows it gone (no further hook);
 * - the hooks of a real Claude Code 2.1.332 session (fixtures/claude-code/recordings/
 *   hooks.hooks.jsonl: real payloads and times) replayed as hook processes, serially as Claude
 *   Code ran them when it was recorded (the recording's clock stops while a hook runs: its
 *   hooks were waited for then, before they were `async`), against a session replaying the same session's screen bytes (hooks.bytes.jsonl), 6
 *   times faster: idle -> working -> blocked -> ... -> idle, twice; idle_prompt never makes it
 *   blocked; Stop then idle_prompt give one "done" notification (Notifier, done enabled).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HOOK_BUDGET_MS } from '../src/cli/hook.ts';
import { request } from '../src/runtime/control-client.ts';
import { createHost } from '../src/runtime/default-host.ts';
import type { SessionHost } from '../src/runtime/host.ts';
import {
  claudeHookSettings,
  launchArgs,
  shellQuote,
} from '../src/runtime/integrations/claude-code.ts';
import { type Notice, Notifier } from '../src/runtime/notify.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import type { Session } from '../src/runtime/session.ts';
import { selfCommand } from '../src/runtime/self-command.ts';
import { guardedSend } from '../src/runtime/typing-guard.ts';
import { agentwatchCommand } from './support/cli.ts';
import { sleep, until } from './support/until.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
const RECORDINGS = join(ROOT, 'fixtures', 'claude-code', 'recordings');
/** The replay runs this many times faster than the recorded session. */
const REPLAY_SPEED = 6;
/** The replay stops at this recorded time, s (after the last idle_prompt, 44.667). */
const REPLAY_END_S = 45;
const TAIL = ' >/dev/null 2>&1 || true';
/** A hook's stdin left open is closed after this long, ms. */
const STDIN_OPEN_MS = 10_000;

/** A temporary AGENTWATCH_DIR, the env pointing at it, and a probe preload (see {@link hook}). */
function scratch(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const probe = join(dir, 'probe.mjs');
  // Loaded after tsx, before main.ts: the time from here to exit is agentwatch's own, less the
  // time its main thread waited for a core (a loaded machine's doing, not agentwatch's): the
  // second field of /proc/self/schedstat, ns spent runnable on a run queue (Linux; 0 elsewhere).
  writeFileSync(
    probe,
    `import { readFileSync, writeSync } from 'node:fs';\n` +
      `const waited = () => { try { return Number(readFileSync('/proc/self/schedstat', 'utf8')` +
      `.split(' ')[1]) / 1e6 || 0; } catch { return 0; } };\n` +
      `const t0 = process.hrtime.bigint();\nconst w0 = waited();\n` +
      `process.on('exit', () => writeSync(2, '\\nOWN_MS ' + ` +
      `Number(process.hrtime.bigint() - t0) / 1e6 + ' ' + (waited() - w0) + '\\n'));\n`,
  );
  const env: NodeJS.ProcessEnv = { ...process.env, AGENTWATCH_DIR: dir };
  delete env.AGENTWATCH_SOCKET;
  delete env.AGENTWATCH_SESSION;
  return { dir, probe, env };
}

/** What a hook process did. */
interface HookRun {
  code: number | null;
  stderr: string;
  /** Wall time from spawn to exit, ms. */
  wallMs: number;
  /**
   * Time in agentwatch's code (after Node and tsx loaded), ms, less the time the process
   * waited for a core meanwhile ({@link waitedMs}).
   */
  ownMs: number;
  /** Time agentwatch's main thread was runnable but not running (waiting for a core), ms. */
  waitedMs: number;
}

/**
 * Runs `agentwatch ARGS` from source as a hook would (stdout and stderr captured), with the
 * probe preload; `stdin` is written then closed ('open' leaves it open and empty).
 */
function hook(
  args: string[],
  env: NodeJS.ProcessEnv,
  probe: string,
  stdin: string | Buffer | 'open' = '',
): Promise<HookRun> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', probe, MAIN, ...args], {
      env,
      cwd: ROOT,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin!.on('error', () => {}); // EPIPE: the hook stopped reading a huge payload
    if (stdin !== 'open') child.stdin!.end(stdin);
    child.on('close', (code) => {
      const own = /OWN_MS ([\d.]+) ([\d.]+)/.exec(stderr);
      resolve({
        code,
        stderr: stderr.replace(/\n?OWN_MS [\d.]+ [\d.]+\n/, ''),
        wallMs: performance.now() - t0,
        ownMs: own ? Number(own[1]) - Number(own[2]) : NaN,
        waitedMs: own ? Number(own[2]) : NaN,
      });
    });
    if (stdin === 'open') setTimeout(() => child.stdin!.end(), STDIN_OPEN_MS).unref();
  });
}

/** Wall time of `node ARGS`, ms. */
function wall(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
    child.on('close', () => resolve(performance.now() - t0));
  });
}

/** The median of `xs`. */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Starts the simulated agent in `host` (rules of claude.toml), and waits for its idle footer. */
async function startSim(host: SessionHost, seed = 12) {
  const self = agentwatchCommand();
  const session = await host.start({
    command: self.command,
    args: [...self.args, 'sim-agent', '--seed', String(seed), '--speed', '8'],
    name: 'sim',
    agent: 'claude',
    headless: true,
  });
  await until(
    'the idle footer',
    () => session.terminal.screenText().includes('? for shortcuts'),
    20_000,
  );
  return session;
}

/** The session's info through its socket. */
async function info(socket: string): Promise<SessionInfo> {
  return (await request<{ session: SessionInfo }>(socket, { op: 'info' })).session;
}

/** One simulated agent for the budget, live and Esc tests (starting one costs a second or two). */
const shared = {} as {
  dir: string;
  probe: string;
  env: NodeJS.ProcessEnv;
  host: SessionHost;
  session: Session;
};

test.before(async () => {
  Object.assign(shared, scratch('aw-hook-'));
  shared.host = createHost({ intervalMs: 100 }, shared.env);
  shared.session = await startSim(shared.host); // seed 12: its first task asks
});

test.after(async () => {
  await shared.host?.close();
  if (shared.dir) rmSync(shared.dir, { recursive: true, force: true });
});

test('claudeHookSettings: valid JSON; each command calls this executable by absolute path, >/dev/null 2>&1 || true, async', () => {
  const self = selfCommand();
  const argv = [self.command, ...self.args];
  const args = launchArgs('claude-code', ['--permission-mode', 'manual'], argv);
  assert.is(args[0], '--settings');
  assert.equal(args.slice(2), ['--permission-mode', 'manual']);
  const settings = JSON.parse(args[1]) as {
    hooks: Record<
      string,
      { matcher?: string; hooks: { type: string; command: string; async?: boolean }[] }[]
    >;
  };
  assert.equal(settings, JSON.parse(JSON.stringify(claudeHookSettings(argv))));
  assert.equal(Object.keys(settings.hooks).sort(), [
    'Notification',
    'PermissionRequest',
    'PreToolUse',
    'Stop',
    'UserPromptSubmit',
  ]);
  assert.is(settings.hooks.PreToolUse[0].matcher, '*');
  const expected: Record<string, string> = {
    UserPromptSubmit: 'report working',
    PreToolUse: 'report tool',
    PermissionRequest: 'report blocked',
    Notification: 'notify',
    Stop: 'report done',
  };
  assert.ok(self.command.startsWith('/'), `absolute: ${self.command}`);
  for (const [event, groups] of Object.entries(settings.hooks)) {
    const { type, command, async } = groups[0].hooks[0];
    assert.is(type, 'command');
    assert.is(async, true, `${event} runs in the background: Claude Code does not wait for it`);
    assert.ok(command.startsWith(`${shellQuote(self.command)} `), command);
    assert.ok(command.endsWith(` ${expected[event]}${TAIL}`), command);
    // every word before the subcommand is absolute: the binary, a file: URL or an absolute path
    const words = command.slice(0, -(expected[event].length + TAIL.length)).trim().split(' ');
    for (const word of words.slice(1)) {
      assert.ok(/^(--[a-z-]+|file:\/\/\/|'?\/)/.test(word), `${word} in ${command}`);
    }
  }
  assert.is(shellQuote("/opt/a b/it's"), `'/opt/a b/it'\\''s'`);
  assert.is(launchArgs(undefined, ['x'], argv).join(' '), 'x');
});

test('report/notify as processes: exit 0 whatever the socket or stdin, within the hook budget', async () => {
  const { dir, probe, env, session } = shared;
  const live = session.spec.socket;
  // a dead socket: its listener was killed, the file stays
  const dead = join(dir, 'dead.sock');
  await new Promise<void>((resolve) => {
    const c = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${
        JSON.stringify(dead)
      }, () => process.kill(process.pid, 'SIGKILL'))`,
    ], { stdio: 'ignore' });
    c.on('close', () => resolve());
  });
  const huge = Buffer.alloc(5 * 1024 * 1024, 'x');
  // control bytes: each becomes 6 bytes of JSON (\u0001) on the way to the session
  const hugeControl = Buffer.alloc(5 * 1024 * 1024, 1);
  const garbage = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
  const payload = JSON.stringify({
    hook_event_name: 'Notification',
    notification_type: 'idle_prompt',
    message: 'Claude is waiting for your input',
  });
  const cases: [string, string[], string | undefined, string | Buffer | 'open'][] = [
    ['no session: report working', ['report', 'working'], undefined, ''],
    ['no session: notify', ['notify'], undefined, payload],
    ['no socket: report working', ['report', 'working'], join(dir, 'none.sock'), ''],
    ['dead socket: notify', ['notify'], dead, payload],
    ['not a socket: report tool', ['report', 'tool'], join(dir, 'probe.mjs'), '{}'],
    ['garbage stdin: notify', ['notify'], live, garbage],
    ['garbage stdin: report tool', ['report', 'tool'], live, garbage],
    ['huge stdin (5 MB of \\x01): notify', ['notify'], live, hugeControl],
    ['huge stdin (5 MB): report tool', ['report', 'tool'], live, huge],
    ['stdin left open: notify', ['notify'], live, 'open'],
    ['unknown word: report bogus', ['report', 'bogus'], live, ''],
  ];
  const rows: string[] = [];
  for (const [name, args, socket, stdin] of cases) {
    const e = { ...env };
    if (socket) e.AGENTWATCH_SOCKET = socket;
    const r = await hook(args, e, probe, stdin);
    assert.is(r.code, 0, `${name}: exit 0 (${r.stderr})`);
    assert.not.match(r.stderr, /internal error|Error:/, name);
    // it ends by itself, by its own clock: not when stdin ends (left open: closed after
    // STDIN_OPEN_MS), nor when a socket answers
    assert.ok(r.ownMs < STDIN_OPEN_MS, `${name}: ${r.ownMs.toFixed(0)} ms in agentwatch`);
    rows.push(
      `    ${name.padEnd(34)} wall ${r.wallMs.toFixed(0).padStart(4)} ms, ` +
        `after Node + tsx ${r.ownMs.toFixed(0).padStart(3)} ms` +
        (r.waitedMs >= 1 ? ` (+ ${r.waitedMs.toFixed(0)} ms waiting for a core)` : '') +
        (r.ownMs >= HOOK_BUDGET_MS ? ` (over the ${HOOK_BUDGET_MS} ms budget)` : ''),
    );
  }
  const base: number[] = [];
  for (let k = 0; k < 3; k++) base.push(await wall(['--import', 'tsx', '-e', '0']));
  console.log(
    `  hook processes from source (wall includes Node + tsx start; ` +
      `node --import tsx -e 0: ${median(base).toFixed(0)} ms):\n${rows.join('\n')}`,
  );
  // what the live session made of the garbage and the control bytes: logged, ignored
  const events = (await request<{ events: string[] }>(live, { op: 'events' })).events;
  const malformed = events.filter((e) => /notify: payload is not JSON: /.test(e));
  assert.ok(malformed.some((e) => e.includes('"\\u0001\\u0001')), events.join('\n'));
  assert.ok(malformed.length >= 2, events.join('\n'));
});

test('live session (a screen no rule knows: the reports alone decide): report working, report tool, notify permission/idle/malformed', async () => {
  const { probe, env, host } = shared;
  // A report is dated by its hook process's start, and a screen that contradicts it wins after
  // 1.5 s: hook processes from source can take that long on a busy machine. A screen that
  // matches no rule contradicts nothing, so every report counts here (the sim agent's idle
  // screen is for the Esc test and the replay).
  // (A screen with nothing drawn at all is an agent starting: working. One line no rule knows.)
  const session = await host.start({
    command: process.execPath,
    args: ['-e', "process.stdout.write('no rule knows this line'); setInterval(() => {}, 1e6)"],
    name: 'blank',
    agent: 'claude',
    headless: true,
  });
  const e = { ...env, AGENTWATCH_SOCKET: session.spec.socket };
  const socket = session.spec.socket;
  await until('the line drawn and read', async () => {
    const i = await info(socket);
    return session.terminal.screenText().includes('no rule knows') && i.by === 'screen' &&
      i.state === 'idle';
  });
  // The session's changes while each hook runs.
  const changes: SessionInfo[] = [];
  const stamps: string[] = [];
  // The host is shared with the replay session: only this session's transitions count.
  const off = host.onTransition((t) => {
    if (t.info.id !== session.id) return;
    changes.push(t.info);
    stamps.push(
      `${
        new Date().toISOString()
      } ${t.prev.state} -> ${t.info.state} ${t.info.by} ${t.info.reason}`,
    );
  });
  /** Runs the hook; the session's last change meanwhile, as [state, by, source]. */
  const step = async (args: string[], stdin = '') => {
    const from = changes.length;
    const r = await hook(args, e, probe, stdin);
    assert.is(r.code, 0, r.stderr);
    // A blocked with no dialog on the screen is published once it has waited PROMPT_WAIT_MS
    // for one (src/runtime/pty-pane.ts).
    if (host.ptyPane(session.id)!.record.state === 'blocked') {
      await until(
        'the blocked published',
        () => changes.slice(from).some((c) => c.state === 'blocked'),
        10_000,
      );
    }
    const last = changes.slice(from).at(-1);
    const events = (await request<{ events: string[] }>(socket, { op: 'events' })).events;
    return {
      got: last ? [last.state, last.by, last.reason.split(' (')[0]] : null,
      log: `events:\n${events.slice(-4).join('\n')}\nchanges:\n${stamps.join('\n')}`,
    };
  };
  try {
    let s = await step(['report', 'working']);
    assert.equal(s.got, ['working', 'report', 'report working'], s.log);
    const ask = JSON.stringify({
      hook_event_name: 'PreToolUse',
      tool_name: 'AskUserQuestion',
      tool_input: { questions: [{ question: 'Which test framework should I use?' }] },
    });
    s = await step(['report', 'tool'], ask);
    assert.equal(s.got, ['blocked', 'report', 'hook PreToolUse AskUserQuestion'], s.log);
    s = await step(['report', 'tool'], JSON.stringify({ tool_name: 'Bash' }));
    assert.equal(s.got, ['working', 'report', 'hook PreToolUse Bash'], s.log);
    const notify = (p: unknown) => step(['notify'], JSON.stringify(p));
    s = await notify({ notification_type: 'permission_prompt', message: 'Claude needs you' });
    assert.equal(s.got, ['blocked', 'report', 'notify permission_prompt'], s.log);
    s = await notify({ notification_type: 'idle_prompt', message: 'Claude is waiting' });
    assert.equal(s.got, ['idle', 'report', 'notify idle_prompt'], s.log);
    s = await step(['notify'], '{"notification_type": "permission_prompt"');
    assert.is(s.got, null, 'malformed: no change');
    const i = await info(socket);
    assert.equal([i.state, i.reason.split(' (')[0]], ['idle', 'notify idle_prompt'], 'unchanged');
    const events = (await request<{ events: string[] }>(socket, { op: 'events' })).events;
    assert.match(events.at(-1)!, /notify: payload is not JSON: "\{\\"notification_type/);
    assert.ok(events.some((l) => / notify idle_prompt$/.test(l)), events.join('\n'));
  } finally {
    off();
    session.kill();
  }
});

test('a blocked report is dropped once the person presses Esc on the prompt (no further hook)', async () => {
  const { probe, env, host, session } = shared;
  {
    const w = host.ptyPane(session.id)!;
    const socket = session.spec.socket;
    await guardedSend(w, 'please create hello.txt');
    await until('the prompt on screen', () => session.terminal.screenText().includes('❯ 1. Yes'));
    // PermissionRequest: blocked, reported
    await hook(['report', 'blocked'], { ...env, AGENTWATCH_SOCKET: socket }, probe);
    assert.is((await info(socket)).state, 'blocked');
    // The screen showed the dialog: it agrees with the report, so a screen that contradicts
    // the report drops it at once, not after REPORT_GRACE_MS (signals.ts; the timing itself is
    // test/signals.test.ts's, with an injected clock).
    await until('the screen agrees with the report', () => {
      const at = session.report?.at;
      return at !== undefined && w.record.reportAgreedAt === at;
    }, 20_000);
    // the person presses Esc in the pane: the prompt goes, no hook fires
    session.write('\x1b');
    await until('the prompt erased', () => !session.terminal.screenText().includes('❯ 1. Yes'));
    const after = await until('not blocked', async () => {
      const i = await info(socket);
      return i.state !== 'blocked' && i;
    }, 20_000);
    assert.is(after.by, 'screen', `dropped for the screen: ${after.reason}`);
    await until('idle after the rejected task', async () => (await info(socket)).state === 'idle');
    assert.is(w.record.reportDroppedAt, session.report!.at, 'the report no longer counts');
  }
});

/** One hook of the recording. */
interface RecordedHook {
  t: number;
  hook: string;
  payload: Record<string, unknown>;
}

/**
 * A child for the PTY that writes to its terminal the bytes it is sent framed as
 * STX base64 ETX, and ignores everything else it reads (the session's answers to terminal
 * queries). Once in raw mode it sets the title `replayer-ready` (nothing on screen moves).
 * Plain node: starts fast.
 */
const REPLAYER = String.raw`
process.stdin.setRawMode(true);
process.stdout.write('\x1b]0;replayer-ready\x07'); // a title: nothing on screen moves
let buf = '';
process.stdin.on('data', (d) => {
  buf += d.toString('latin1');
  for (;;) {
    const a = buf.indexOf('\x02');
    if (a < 0) return void (buf = '');
    const b = buf.indexOf('\x03', a);
    if (b < 0) return void (buf = buf.slice(a));
    process.stdout.write(Buffer.from(buf.slice(a + 1, b), 'base64'));
    buf = buf.slice(b + 1);
  }
});
`;

test(`replayed Claude Code hooks (hooks.hooks.jsonl) at ${REPLAY_SPEED}x: the states, idle_prompt never blocked, one "done"`, async () => {
  const { dir, env } = scratch('aw-hook-replay-');
  const host = createHost({ intervalMs: 100 }, env);
  const children = new Set<ChildProcess>();
  try {
    const jsonl = (name: string) =>
      readFileSync(join(RECORDINGS, name), 'utf8').split('\n').filter(Boolean).map((l) =>
        JSON.parse(l)
      );
    const hooks = jsonl('hooks.hooks.jsonl') as RecordedHook[];
    assert.equal(hooks.map((h) => h.hook), [
      'UserPromptSubmit',
      'PreToolUse',
      'PermissionRequest',
      'Notification',
      'Stop',
      'Notification',
      'UserPromptSubmit',
      'PreToolUse',
      'PermissionRequest',
      'Notification',
      'Stop',
      'Notification',
    ]);
    const chunks = jsonl('hooks.bytes.jsonl') as { t: number; b64: string }[];
    const replayer = join(dir, 'replayer.cjs');
    writeFileSync(replayer, REPLAYER);
    const session = await host.start({
      command: process.execPath,
      args: [replayer],
      name: 'claude-replay',
      agent: 'claude',
      headless: true,
      rows: 32,
      cols: 120,
    });
    const settings = claudeHookSettings([selfCommand().command, ...selfCommand().args]);
    const commandOf = (event: string) =>
      (settings.hooks[event][0] as { hooks: { command: string }[] }).hooks[0].command;

    // One clock, in recorded seconds. When this was recorded Claude Code waited for each hook
    // before it went on ("running Stop hook" on screen meanwhile; agentwatch's hooks were not
    // `async` yet), so the recording's clock stops while a hook process runs.
    let start = 0;
    let paused = 0;
    let hookStart: number | null = null;
    const now = () => (((hookStart ?? performance.now()) - start - paused) / 1000) * REPLAY_SPEED;
    const timeline: { t: number; what: string }[] = [];
    const notices: { t: number; notice: Notice }[] = [];
    const notifier = new Notifier({ desktop: false }, { done: true });
    notifier.onNotice = (n) => notices.push({ t: now(), notice: n });
    notifier.observe(host.info(session.id));
    host.onPublish((i) => notifier.observe(i));
    host.onTransition(({ info: i }) => {
      timeline.push({ t: now(), what: `${i.state} (${i.by}: ${i.reason.split(' (')[0]})` });
    });
    // The replayer is in raw mode (before it, the line discipline would echo the bytes).
    await until('the replayer in raw mode', () => session.terminal.title === 'replayer-ready');

    type Step = { t: number; b64?: string; hook?: RecordedHook };
    const steps: Step[] = [
      ...chunks.map((c) => ({ t: c.t, b64: c.b64 })),
      ...hooks.map((h) => ({
        t: h.t,
        hook: h,
      })),
    ].filter((e) => e.t <= REPLAY_END_S).sort((a, b) => a.t - b.t);
    start = performance.now();
    for (const step of steps) {
      const wait = start + paused + (step.t * 1000) / REPLAY_SPEED - performance.now();
      if (wait > 0) await sleep(wait);
      if (step.b64) {
        session.write(`\x02${step.b64}\x03`);
        continue;
      }
      // The hook, through /bin/sh from another folder, its payload on stdin.
      const h = step.hook!;
      const word = h.hook === 'Notification' ? String(h.payload.notification_type) : '';
      hookStart = performance.now();
      timeline.push({ t: now(), what: `HOOK ${h.hook} ${word}`.trim() });
      const code = await new Promise<number | null>((resolve) => {
        const c = spawn('/bin/sh', ['-c', commandOf(h.hook)], {
          env: { ...env, AGENTWATCH_SOCKET: session.spec.socket },
          cwd: dir,
          stdio: ['pipe', 'ignore', 'ignore'],
        });
        children.add(c);
        c.stdin!.end(JSON.stringify({ hook_event_name: h.hook, ...h.payload }));
        c.on('close', (code) => {
          children.delete(c);
          resolve(code);
        });
      });
      assert.is(code, 0, `${h.hook} exits 0`);
      paused += performance.now() - hookStart;
      hookStart = null;
    }
    await until('idle after the last hook', () => host.info(session.id).state === 'idle', 5000)
      .catch(() => {}); // the assertions below say what it was instead
    const text = timeline.map((e) => `    ${e.t.toFixed(2).padStart(6)} ${e.what}`).join('\n');
    console.log(
      `  replay timeline (recorded seconds; the clock stops while a hook runs):\n${text}`,
    );

    // idle -> working -> blocked -> ... -> idle, twice. What lies between a prompt and the end
    // of its turn depends on sampling (after the AskUserQuestion answer the recorded screen
    // shows a working footer for 0.1 s; no hook marks working after an answer), and a slow
    // machine can stretch a hook past a report's grace; so the test asks, turn by turn:
    // blocked between the prompt's submission and the Stop, idle after the Stop and before
    // the next hook, and no change at all from the idle_prompt to the next submission.
    // (Claude Code starting, nothing drawn yet, reads working, then idle once it drew: no turn)
    const states = timeline.filter((e) =>
      !e.what.startsWith('HOOK') && !e.what.includes('starting:')
    )
      .map((e) => e.what.split(' ')[0]);
    if (states[0] === 'idle') states.shift();
    assert.equal(states.slice(0, 2), ['working', 'blocked'], text);
    assert.is(states.at(-1), 'idle', text);
    const where = (what: string) => timeline.flatMap((e, k) => (e.what === what ? [k] : []));
    const submits = where('HOOK UserPromptSubmit');
    const stops = where('HOOK Stop');
    const idlePrompts = where('HOOK Notification idle_prompt');
    assert.equal([submits.length, stops.length, idlePrompts.length], [2, 2, 2]);
    const changes = (from: number, to: number) =>
      timeline.slice(from + 1, to).filter((e) => !e.what.startsWith('HOOK')).map((e) => e.what);
    for (let turn = 0; turn < 2; turn++) {
      const during = changes(submits[turn], stops[turn]);
      assert.ok(during.some((w) => w.startsWith('blocked')), `turn ${turn + 1} blocked:\n${text}`);
      const after = changes(stops[turn], idlePrompts[turn]);
      assert.match(after.at(-1) ?? '', /^idle/, `turn ${turn + 1} idle after its Stop:\n${text}`);
      const next = turn === 0 ? submits[1] : timeline.length;
      assert.equal(changes(idlePrompts[turn], next), [], `no change after idle_prompt:\n${text}`);
    }
    assert.is((await info(session.spec.socket)).state, 'idle');
    // Notices: each turn's prompt, each with the dialog's question, then one "done" between
    // each Stop and its idle_prompt; none at an idle_prompt (no cooldown holds the second
    // turn's: an episode ends when the state leaves blocked).
    const t = (k: number) => timeline[k].t;
    const kinds = notices.map((n) => n.notice.kind);
    assert.is(kinds[0], 'blocked', text);
    assert.equal(kinds.filter((k) => k === 'done'), ['done', 'done'], `two done: ${kinds}`);
    for (let turn = 0; turn < 2; turn++) {
      const blocked = notices.filter((n) =>
        n.notice.kind === 'blocked' && n.t >= t(submits[turn]) && n.t <= t(stops[turn])
      );
      // once, with the dialog's question (or, when the replay's hook processes held the
      // dialog past the 400 ms wait, with what was known then: no second notice for it)
      assert.is(blocked.length, 1, `turn ${turn + 1} announced once:\n${text}`);
      const n = blocked[0].notice;
      assert.ok(
        n.content ? n.question.endsWith('?') : n.question === '',
        `with its question: ${JSON.stringify(n.info)}`,
      );
      const done = notices.filter((n) =>
        n.notice.kind === 'done' && n.t >= t(stops[turn]) && n.t < t(idlePrompts[turn])
      );
      assert.is(done.length, 1, `turn ${turn + 1} done once:\n${text}`);
    }
    for (const k of idlePrompts) {
      assert.not.ok(notices.some((n) => n.t >= t(k) && n.t < t(k) + 5), 'none at idle_prompt');
    }
    console.log(
      `  replay notices: ${
        notices.map((n) => `${n.t.toFixed(2)} ${n.notice.kind} "${n.notice.body}"`).join(', ')
      }`,
    );
  } finally {
    for (const c of children) c.kill();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
