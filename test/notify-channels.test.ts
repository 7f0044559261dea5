/**
 * The notification channels with real parts: a fake `notify-send` on PATH that logs its
 * argv, one that fails like notify-send without D-Bus (reported once), the terminal notice
 * passed through a real tmux server (Debian's tmux; skipped with the reason when tmux is
 * missing), and `--notify-url` against a real HTTP server on 127.0.0.1: delivery, 500 then
 * success, a timeout, and the endpoint down while 20 sessions flap (bounded requests).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn as ptySpawn } from 'node-pty';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChannelName, Notifier, terminalNotice } from '../src/runtime/notify.ts';
import { notice } from '../src/runtime/notify-gate.ts';
import { MAX_QUEUE, PushChannel } from '../src/runtime/push.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { fakeInfo } from './support/fake-session.ts';
import type { SessionState } from '../src/detect/types.ts';
import { sleep, until } from './support/until.ts';

/** A session info in `state` at time 0 (the gate's clock is scripted), with `over` on top. */
function info(state: SessionState, over: Partial<SessionInfo> = {}): SessionInfo {
  const base = { name: 'backend', state, since: 0, reason: '', startedAt: 0, lastOutput: 0 };
  return { ...fakeInfo('s-1', '/tmp/x.sock', base), exit: undefined, ...over } as SessionInfo;
}

const prompt = (cmd: string, over: Partial<SessionInfo> = {}) =>
  info('blocked', {
    question: 'Do you want to proceed?',
    options: ['1. Yes', '2. No'],
    details: ['Bash command', cmd],
    ...over,
  });

/** A folder with an executable `notify-send` running `body` (sh). */
function fakeNotifySend(body: string): { dir: string; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'aw-notify-'));
  const log = join(dir, 'argv.log');
  writeFileSync(join(dir, 'notify-send'), `#!/bin/sh\n${body.replaceAll('$LOG', log)}\n`);
  chmodSync(join(dir, 'notify-send'), 0o755);
  return { dir, log };
}

test('desktop: a fake notify-send on PATH gets the title and the dialog (three prompts, three notices)', async () => {
  const { dir, log } = fakeNotifySend(
    // one write per run: the three runs go at once
    `rec=$(printf '%s\\037' "$@"); printf '%s\\036' "$rec" >> $LOG`,
  );
  try {
    const n = new Notifier({ desktop: true, env: { PATH: `${dir}:/usr/bin:/bin` } });
    n.observe(info('working'), 0);
    for (const [k, cmd] of ['rm -rf build/', 'npm test', 'git push'].entries()) {
      n.observe(prompt(cmd), 1_000 + k * 10_000);
      n.observe(info('working'), 5_000 + k * 10_000);
    }
    const lines = await until('three notify-send runs', () => {
      const l = existsSync(log) ? readFileSync(log, 'utf8').split('\x1e').slice(0, -1) : [];
      return l.length >= 3 && l;
    });
    const argvs = lines.map((l) => l.split('\x1f').slice(0, -1));
    assert.equal(argvs.map((a) => a[1]), Array(3).fill('backend (claude) needs you'));
    assert.equal( // the three run at once: in any order
      argvs.map((a) => a[2].split('\n')[1]).sort(),
      ['Bash: git push', 'Bash: npm test', 'Bash: rm -rf build/'],
    );
    assert.ok(argvs.every((a) => a[0] === '--app-name=agentwatch'));
    assert.ok(argvs.every((a) => a[2].startsWith('Do you want to proceed?\n')));
    assert.equal(n.failures(), {});
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('desktop: a failing notify-send is reported once, and shown in failures()', async () => {
  const { dir, log } = fakeNotifySend(
    `echo run >> $LOG; echo 'Cannot autolaunch D-Bus without X11 $DISPLAY' >&2; exit 1`,
  );
  try {
    const reported: Array<[ChannelName, string]> = [];
    const n = new Notifier(
      { desktop: true, env: { PATH: dir } },
      {},
      (c, why) => reported.push([c, why]),
    );
    n.observe(info('working'), 0);
    for (let k = 0; k < 3; k++) {
      n.observe(prompt(`cmd ${k}`), 1_000 + k * 10_000);
      n.observe(info('working'), 5_000 + k * 10_000);
    }
    await until(
      'three runs',
      () => existsSync(log) && readFileSync(log, 'utf8').split('\n').length > 3,
    );
    await until('the failure recorded', () => n.failures().desktop);
    await sleep(100); // the other two runs' outcomes
    assert.is(reported.length, 1, JSON.stringify(reported));
    assert.is(reported[0][0], 'desktop');
    assert.match(reported[0][1], /notify-send exited with code 1: Cannot autolaunch D-Bus/);
    assert.match(n.failures().desktop!, /Cannot autolaunch D-Bus/);
    // notify-send missing altogether: said so, not silent
    const none = new Notifier({ desktop: true, env: { PATH: '/nonexistent' } });
    const out = await none.deliver(notice('blocked', prompt('ls'), true));
    assert.match(out.desktop!, /notify-send is not installed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('desktop: none for the session the person looks at; the terminal notice still goes', async () => {
  const { dir, log } = fakeNotifySend(`echo "$2" >> $LOG`);
  try {
    const written: string[] = [];
    let focused = true;
    const n = new Notifier({
      desktop: true,
      terminal: (s) => written.push(s),
      env: { PATH: dir },
      focused: () => focused,
    });
    n.observe(info('working'), 0);
    n.observe(prompt('ls'), 1_000);
    n.observe(info('working'), 2_000);
    focused = false;
    n.observe(prompt('pwd'), 10_000);
    await until('one run', () => existsSync(log) && readFileSync(log, 'utf8'));
    await sleep(200);
    assert.is(readFileSync(log, 'utf8').trim().split('\n').length, 1);
    assert.is(written.length, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--notify-cmd: runs with the AGENTWATCH_* variables; a failing one is reported', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-cmd-'));
  const out = join(dir, 'env.txt');
  try {
    const n = new Notifier({
      desktop: false,
      command:
        `printf '%s|%s|%s|%s\\n' "$AGENTWATCH_SESSION" "$AGENTWATCH_QUESTION" "$AGENTWATCH_ACTION" "$AGENTWATCH_NOTICE" >> ${out}`,
    });
    n.observe(info('working'), 0);
    n.observe(prompt('rm -rf build/'), 1_000);
    const text = await until('the command ran', () => existsSync(out) && readFileSync(out, 'utf8'));
    assert.is(text, 's-1|Do you want to proceed?|Bash: rm -rf build/|blocked\n');
    const bad = new Notifier({ desktop: false, command: 'echo nope >&2; exit 4' });
    const r = await bad.deliver(notice('blocked', prompt('ls'), true));
    assert.is(r.command, '--notify-cmd exited with code 4: nope');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Runs tmux (its own server socket) in a real PTY; returns every byte the client wrote. */
test('terminal: OSC 9 and OSC 777 reach the outer terminal through a real tmux (passthrough)', async () => {
  let version = '';
  try {
    version = execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim();
  } catch {
    console.log('  skipped: tmux is not installed (apt-get install -y tmux)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'aw-tmux-'));
  const sock = join(dir, 'tmux.sock');
  const n = (name: string) => notice('blocked', prompt('ls', { name, agent: '' }), true);
  // tmux sets $TMUX in its panes: the notice is made for that environment, and a bare one
  // (as written before) beside it, to show tmux swallows that one.
  writeFileSync(join(dir, 'wrapped'), terminalNotice(n('wrapped'), { TMUX: `${sock},1,0` }));
  writeFileSync(join(dir, 'bare'), terminalNotice(n('bare'), {}));
  writeFileSync(join(dir, 'tmux.conf'), 'set -g allow-passthrough on\nset -g status off\n');
  // The pane waits until the client shows it (tmux passes a sequence through to the clients
  // attached at that moment).
  const inner = `printf 'READY-%s' MARK; while [ ! -e ${dir}/go ]; do sleep 0.05; done; ` +
    `cat ${dir}/bare; cat ${dir}/wrapped; printf 'DONE-%s\\n' MARK; sleep 30`;
  const pty = ptySpawn(
    'tmux',
    ['-S', sock, '-f', join(dir, 'tmux.conf'), 'new-session', 'sh', '-c', inner],
    { cols: 100, rows: 20, env: { ...process.env, TERM: 'xterm-256color', TMUX: '' } },
  );
  let out = '';
  pty.onData((d) => (out += d));
  try {
    await until('the client shows the pane', () => out.includes('READY-MARK'), 30_000);
    writeFileSync(join(dir, 'go'), '');
    await until('the pane printed its mark', () => out.includes('DONE-MARK'), 30_000);
    await sleep(200);
    assert.ok(
      out.includes('\x1b]9;wrapped needs you: Do you want to proceed?'),
      `${version}: OSC 9 passed through`,
    );
    assert.ok(out.includes('\x1b]777;notify;wrapped needs you;'), 'OSC 777 passed through');
    assert.not.ok(out.includes(']9;bare'), 'a bare OSC 9 is swallowed by tmux');
  } finally {
    try {
      execFileSync('tmux', ['-S', sock, 'kill-server'], { stdio: 'ignore' });
    } catch {
      // already gone
    }
    pty.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('terminal: screen passthrough wraps each sequence in its own DCS string', () => {
  const s = terminalNotice(notice('blocked', prompt('ls'), true), { STY: '123.pts-0.host' });
  assert.ok(s.startsWith('\x1bP\x1b]9;'));
  assert.ok(s.includes('\x07\x1b\\\x1bP\x1b]777;notify;'));
  assert.ok(s.endsWith('\x1b\\\x07'));
});

/** A real HTTP server on 127.0.0.1 answering with `handler`; records every request. */
async function server(
  handler: (req: IncomingMessage, res: ServerResponse, n: number) => void,
): Promise<{ url: string; bodies: string[]; close: () => Promise<void>; srv: Server }> {
  const bodies: string[] = [];
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      bodies.push(body);
      handler(req, res, bodies.length);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    bodies,
    srv,
    close: () =>
      new Promise((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
}

test('push: JSON delivery; the prompt text only with includeText; text format', async () => {
  const s = await server((_q, res) => res.end('ok'));
  try {
    const n = notice('blocked', prompt('rm -rf build/'), true);
    assert.is(await new PushChannel({ url: s.url, host: 'box' }).send(n), null);
    const body = JSON.parse(s.bodies[0]);
    assert.equal(Object.keys(body).sort(), [
      'agent',
      'host',
      'kind',
      'name',
      'session',
      'state',
      'time',
      'title',
    ]);
    assert.is(body.session, 's-1');
    assert.is(body.state, 'blocked');
    assert.is(body.host, 'box');
    assert.not.ok(
      s.bodies[0].includes('proceed') || s.bodies[0].includes('rm -rf'),
      'no prompt text',
    );
    await new PushChannel({ url: s.url, includeText: true }).send(n);
    const full = JSON.parse(s.bodies[1]);
    assert.is(full.question, 'Do you want to proceed?');
    assert.is(full.action, 'Bash: rm -rf build/');
    await new PushChannel({ url: s.url, format: 'text' }).send(n);
    assert.is(s.bodies[2], 'backend needs you');
  } finally {
    await s.close();
  }
});

test('push: 500 then success is retried with backoff and delivered', async () => {
  const s = await server((_q, res, k) => {
    res.statusCode = k === 1 ? 500 : 200;
    res.end();
  });
  try {
    const push = new PushChannel({ url: s.url, backoffMs: 50 });
    assert.is(await push.send(notice('blocked', prompt('ls'), true)), null);
    assert.is(s.bodies.length, 2);
    assert.not.ok(push.down);
  } finally {
    await s.close();
  }
});

test('push: an endpoint that never answers times out, and is reported', async () => {
  const s = await server(() => {}); // never answers
  try {
    const reported: string[] = [];
    const n = new Notifier(
      {
        desktop: false,
        push: new PushChannel({ url: s.url, timeoutMs: 300, retries: 1, backoffMs: 50 }),
      },
      {},
      (_c, why) => reported.push(why),
    );
    const r = await n.deliver(notice('blocked', prompt('ls'), true));
    assert.match(r.push!, /did not answer within 300 ms/);
    assert.is(s.bodies.length, 2); // the first attempt and one retry
    assert.equal(reported, [r.push]);
  } finally {
    await s.close();
  }
});

test('push: a notice sent while the endpoint is down is delivered once it is back', async () => {
  // a port nothing listens on (connection refused), then a server on that same port
  const probe = await server((_q, res) => res.end());
  const port = (probe.srv.address() as AddressInfo).port;
  await probe.close();
  const alive = setInterval(() => {}, 1_000); // the channel's timers never hold the process
  const reported: string[] = [];
  const push = new PushChannel({ url: probe.url, backoffMs: 20, retries: 1 });
  const n = new Notifier({ desktop: false, push }, {}, (_c, why) => reported.push(why));
  const made = Date.now();
  const r = await n.deliver(notice('blocked', prompt('rm -rf build/'), true));
  assert.match(r.push!, /ECONNREFUSED/, 'the first round failed');
  assert.match(n.failures().push ?? '', /ECONNREFUSED/, 'shown');
  assert.ok(push.down);
  assert.is(push.waiting, 1, 'kept for a retry');
  const bodies: string[] = [];
  const back = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      bodies.push(body);
      res.end();
    });
  });
  await new Promise<void>((ok) => back.listen(port, '127.0.0.1', ok));
  try {
    await until('the kept notice delivered', () => bodies.length >= 1, 30_000);
    await until('the failure cleared', () => !n.failures().push, 30_000);
    const body = JSON.parse(bodies[0]);
    assert.is(body.state, 'blocked');
    assert.ok(Date.parse(body.time) <= made + 1_000, `the time it was made: ${body.time}`);
    assert.not.ok(push.down);
    assert.is(push.waiting, 0);
    assert.is(bodies.length, 1, 'delivered once');
    assert.equal(reported.length, 1, 'the failure shown once');
  } finally {
    n.close();
    clearInterval(alive);
    back.closeAllConnections();
    await new Promise<void>((ok) => back.close(() => ok()));
  }
});

test('push: a notice the endpoint never takes is given up once too old, and told', async () => {
  const probe = await server((_q, res) => res.end());
  await probe.close();
  const alive = setInterval(() => {}, 1_000); // the channel's timers never hold the process
  const late: Array<string | null> = [];
  const push = new PushChannel({ url: probe.url, backoffMs: 20, retries: 0, maxAgeMs: 1_500 });
  push.onLate = (why) => late.push(why);
  try {
    assert.match((await push.send(notice('blocked', prompt('ls'), true)))!, /ECONNREFUSED/);
    await until('given up', () => late.length > 0, 30_000);
    assert.match(late[0]!, /gave up: not delivered within 2 s/);
    assert.is(push.waiting, 0);
    assert.is(push.dropped, 1);
  } finally {
    push.close();
    clearInterval(alive);
  }
});

test('push: endpoint down while 20 sessions flap: a bounded number of requests', async () => {
  const s = await server((_q, res) => res.end());
  const url = s.url;
  await s.close(); // nothing listens there now: connection refused
  const push = new PushChannel({ url, backoffMs: 20, retries: 2 });
  const n = new Notifier({ desktop: false, push });
  const t0 = Date.now();
  let sent = 0;
  // 20 sessions, each blocked on a new prompt every 3 s of scripted time, for a minute
  for (let id = 0; id < 20; id++) n.observe(info('working', { id: `s-${id}` }), t0);
  for (let k = 0; k < 20; k++) {
    for (let id = 0; id < 20; id++) {
      const at = t0 + 1_000 + k * 3_000;
      if (n.observe(prompt(`step ${k}`, { id: `s-${id}` }), at)) sent++;
      n.observe(info('working', { id: `s-${id}` }), at + 1_000);
    }
  }
  await sleep(1_500);
  n.close();
  assert.is(sent, 400, 'every prompt was a notice');
  // the first notice: 1 + 2 retries; then one attempt per backoff (1 s, 2 s, ...), and the
  // queue holds at most MAX_QUEUE: the rest are dropped, not sent
  assert.ok(push.requests <= 6, `${push.requests} requests`);
  assert.ok(push.dropped >= 400 - MAX_QUEUE - push.requests, `${push.dropped} dropped`);
  assert.ok(push.down);
  assert.match(n.failures().push ?? '', /ECONNREFUSED|dropped/);
});

test.run();
