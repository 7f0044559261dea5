/**
 * Trust (issue 11): only the person approves a prompt, only our own sockets are believed,
 * nothing of the person's is ever deleted or chmod-ed. One test per finding, with real
 * processes, PTYs and sockets:
 *  1. an agent's tool that clears its environment, detaches (setsid), double-forks or runs in
 *     a host of another socket folder cannot `answer` (peer credentials, the parent chain, the
 *     controlling terminal, the session and process group, the host registry; not
 *     AGENTWATCH_SESSION); a terminal of the person's can;
 *  2. another user: a connection of another uid is refused by the session, and a socket folder
 *     of another user is refused by every command (root only: useradd; skipped otherwise);
 *  3. a hostile socket's names, questions, options, details and errors are printed as text;
 *  4. a shared folder (mode 1777) given as AGENTWATCH_DIR is refused, never chmod-ed;
 *  5. `ls` removes only our own dead sockets: files, FIFOs and symlinks stay, and a session
 *     behind a symlink is not listed;
 *  6. the tail of an over-long request line never runs as a request; a reply names its op;
 *  7. an unreadable socket folder is an error, not "no sessions";
 *  8. `send` reports a prompt that appeared while it typed (exit 3).
 * (9, the embedded Node, is test/build.test.ts.)
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHost } from '../src/runtime/default-host.ts';
import type { SessionHost } from '../src/runtime/host.ts';
import { listenControl } from '../src/runtime/control-server.ts';
import { request } from '../src/runtime/control-client.ts';
import { listSessions } from '../src/runtime/session-directory.ts';
import { GUARD_EXIT, guardedSend } from '../src/runtime/typing-guard.ts';
import { ancestry, answerRefusal, processFacts, ttyKey } from '../src/runtime/peer.ts';
import { registeredSessions, REGISTRY_DIR } from '../src/runtime/host-registry.ts';
import * as pty from 'node-pty';
import { UserError } from '../src/errors.ts';
import { agentwatchArgv, cli } from './support/cli.ts';
import { type PtyDriver, startPty } from './support/pty-driver.ts';
import { fakeInfo, fakeSession } from './support/fake-session.ts';
import { Notifier } from '../src/runtime/notify.ts';
import { shellQuote } from '../src/runtime/integrations/claude-code.ts';
import { until } from './support/until.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FLIPPER = join(ROOT, 'test', 'support', 'prompt-flipper.ts');
const IS_ROOT = process.getuid?.() === 0;

/** The environment of a person's command: no session of ours around it. */
function personEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, AGENTWATCH_DIR: dir };
  delete env.AGENTWATCH_SESSION;
  delete env.AGENTWATCH_SOCKET;
  return env;
}

/** Escape and control characters a terminal would act on (ESC, CSI, OSC, BEL, C1). */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/** The uid of a second local user, made with useradd when missing (root only). */
function secondUser(): { uid: number; gid: number } {
  const name = 'agentwatch-test';
  const id = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  if (id.status !== 0) execFileSync('useradd', ['--system', '--no-create-home', name]);
  const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** Runs the CLI as another user (root only), with no controlling terminal. */
function cliAs(
  user: { uid: number; gid: number },
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, agentwatchArgv(args), {
      env: { ...env, HOME: tmpdir() },
      cwd: ROOT,
      uid: user.uid,
      gid: user.gid,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d));
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The set-up of finding 1's cases: in `host`, a dialog that never leaves (prompt-flipper
 * `--hold`, session `sim1`, serving `dir`), once it reads blocked; `log` is where it logs
 * every key it reads.
 */
async function heldDialog(host: SessionHost, dir: string) {
  const log = join(dir, 'flipper.log');
  const sim = await host.start({
    command: process.execPath,
    args: ['--import', 'tsx', FLIPPER, '--prompt-flipper', '--log', log, '--hold'],
    name: 'sim1',
    agent: 'claude',
    headless: true,
    cwd: ROOT,
    env: { AGENTWATCH_DIR: dir },
  });
  const w = host.ptyPane(sim.id)!;
  await until('the dialog, blocked', () => w.classifyNow().state === 'blocked', 30_000);
  return { w, log };
}

/** An agent's shell: bash in a session `name` of `host`, its AGENTWATCH_DIR `dir`. */
function agentShell(host: SessionHost, dir: string, name: string) {
  return host.start({
    command: 'bash',
    args: ['--norc', '--noprofile'],
    name,
    headless: true,
    cwd: ROOT,
    env: { AGENTWATCH_DIR: dir, PS1: '$ ' },
  });
}

/**
 * The shell line of an agent's tool, as the issue reproduced it: `answer --yes sim1 1` with
 * our variables cleared (`env -u`; `vars`, such as `AGENTWATCH_DIR=...`, set), its output and
 * then `rc=CODE` written to `out`.
 */
function toolAnswer(out: string, vars = ''): string {
  return `env -u AGENTWATCH_SOCKET -u AGENTWATCH_SESSION ${vars}'${process.execPath}' ` +
    `${
      agentwatchArgv([]).map((a) => `'${a}'`).join(' ')
    } answer --yes sim1 1 > '${out}' 2>&1; echo "rc=$?" >> '${out}'`;
}

/** What the tool's answer said, once `out` holds its exit code. */
function toolSaid(out: string): Promise<string> {
  return until(`${out} to finish`, () => {
    const t = existsSync(out) ? readFileSync(out, 'utf8') : '';
    return /rc=\d+/.test(t) && t;
  }, 30_000);
}

/** A host's notify command `command` run once, for sim1 blocked (socket folder `dir`). */
async function notifySim1(command: string, env: NodeJS.ProcessEnv, dir: string): Promise<void> {
  await new Notifier({ command, desktop: false, env }).deliver({
    kind: 'blocked',
    title: 'sim1 (claude) needs you',
    body: '',
    question: '',
    action: '',
    options: [],
    content: false,
    info: fakeInfo('sim1', join(dir, 'sim1.sock'), { state: 'blocked' }),
  }, true);
}

/**
 * The person, in a terminal of theirs (outside any session), answers the held dialog: the key
 * (the digit: claude.toml says its dialogs take one) reaches it; the dialog never leaves, so
 * `answer` says the prompt is still showing (exit 5) instead of "answered". Keys reach the
 * dialog in the order they were typed, so the person's being the only one it read means the
 * refused tools before typed none.
 */
async function personAnswers(env: NodeJS.ProcessEnv, log: string): Promise<void> {
  const person = await cli(['answer', '--yes', 'sim1', '1'], env, { tty: true });
  assert.is(person.code, 5, person.stdout + person.stderr);
  assert.match(person.stderr, /typed '1' for "1\. Yes", but the prompt is still showing/);
  await until('the key in the dialog', () => /^I \d+ 1 31$/m.test(readFileSync(log, 'utf8')));
  const keys = readFileSync(log, 'utf8').match(/^I .*$/gm);
  assert.equal(keys?.length, 1, `the only key the dialog read is the person's: ${keys}`);
}

test('1: answer from a child of a session that cleared its environment is refused; the person outside answers', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust1-'));
  const env = personEnv(dir);
  const host = createHost({ intervalMs: 100 }, env);
  const out = join(dir, 'answer.out');
  try {
    const { w, log } = await heldDialog(host, dir);
    const shell = await agentShell(host, dir, 'shell');
    // An agent's tool, as the issue reproduced it: the environment cleared of ours.
    shell.write(`${toolAnswer(out)}\r`);
    const said = await toolSaid(out);
    assert.match(said, /rc=3/, said);
    assert.match(said, /runs inside an agentwatch session/, said);
    assert.is(w.classifyNow().state, 'blocked', 'still waiting for the person');
    await personAnswers(env, log);
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("1: a notify command (a session's --notify-cmd an agent's tool may have written) cannot answer, with a terminal of its own, nor after it ended", async () => {
  // tester9: a tool ran `run --detach --notify-cmd "script -qc 'env -u AGENTWATCH_SESSION -u
  // AGENTWATCH_SOCKET agentwatch answer --yes claude 1' /dev/null" -- ...`: the host ran the
  // command outside every session's process tree, `script` gave it a terminal, and the answer
  // approved the agent's next prompt. Twice: the command itself, then one that leaves a child
  // behind and exits at once (the child is re-parented, out of the host's tree).
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust1n-'));
  const env = personEnv(dir);
  const host = createHost({ intervalMs: 100 }, env);
  try {
    const { w, log } = await heldDialog(host, dir);
    for (
      const [k, wrap] of [[1, (c: string) => c], [2, (c: string) => `(${c}) & exit 0`]] as const
    ) {
      const out = join(dir, `notify${k}.out`);
      const script = `script -qc ${
        shellQuote(toolAnswer(out, `AGENTWATCH_DIR='${dir}' `))
      } /dev/null`;
      await notifySim1(wrap(script), env, dir);
      const said = await toolSaid(out);
      assert.match(said, /rc=3/, `${k}: ${said}`);
      assert.match(said, /was started by an agentwatch notify command/, `${k}: ${said}`);
      assert.is(w.classifyNow().state, 'blocked', `${k}: still waiting for the person`);
    }
    await personAnswers(env, log);
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("1: no session's agent, tool or notify command holds another session's PTY master (it could type the answer into it)", async () => {
  // helper-62: node-pty leaves each master inheritable, so every later child of the host held
  // them all (another session's agent and its tools, a notify command): writing `1` to one
  // typed it into that session's dialog, past every check of `answer`
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust1m-'));
  const env = personEnv(dir);
  const host = createHost({ intervalMs: 100 }, env);
  const count = (out: string) =>
    `ls -l /proc/self/fd | grep -c ptmx > '${out}'; echo "rc=$?" >> '${out}'`;
  try {
    const { w, log } = await heldDialog(host, dir);
    const shell = await agentShell(host, dir, 'shell');
    const fromTool = join(dir, 'tool.out');
    shell.write(`${count(fromTool)}\r`);
    const tool = await toolSaid(fromTool);
    assert.match(tool, /^0\n/, `an agent's tool holds masters: ${tool}`);
    const fromNotify = join(dir, 'notify.out');
    await notifySim1(count(fromNotify), env, dir);
    const notify = await toolSaid(fromNotify);
    assert.match(notify, /^0\n/, `a notify command holds masters: ${notify}`);
    assert.is(w.classifyNow().state, 'blocked', 'still waiting for the person');
    await personAnswers(env, log);
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("1: what a session's tool leaves running (nohup, setsid, its parent gone) is adopted by the host: it cannot answer with a terminal of its own, also after the host ended", async () => {
  // tester10: tools that background themselves (`nohup setsid bash -c "sleep 2; script -qc
  // '... answer --yes OTHER 1' /dev/null" &`), a notify command that double-forks, and Codex
  // CLI 0.171.0's app-server daemon left running by an ended session were re-parented to init
  // and, with `script`'s PTY, looked like a person's terminal: they approved prompts. Now the
  // host (`run`, a real process) adopts them (PR_SET_CHILD_SUBREAPER). Orphan A answers while
  // `run` lives (its parent chain leads to `run`); orphan B once `run` ended (its parent is
  // init then; the registry keeps what `run` adopted while B runs).
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust1o-'));
  const env = personEnv(dir);
  const host = createHost({ intervalMs: 100 }, env);
  let run: PtyDriver | undefined;
  const outA = join(dir, 'a.out');
  const outB = join(dir, 'b.out');
  const flag = join(dir, 'b.go');
  try {
    const { w, log } = await heldDialog(host, dir);
    for (const [name, out] of [['a', outA], ['b', outB]]) {
      writeFileSync(join(dir, `answer-${name}.sh`), toolAnswer(out, `AGENTWATCH_DIR='${dir}' `));
    }
    // the session's command: leaves A and B running in the background, its parent gone (A in a
    // session of its own), waits for A's answer and ends (so does `run`)
    writeFileSync(
      join(dir, 'tool.sh'),
      [
        `(nohup setsid bash -c "sleep 1; script -qc 'bash ${dir}/answer-a.sh' /dev/null" ` +
        '>/dev/null 2>&1 </dev/null &)',
        `(nohup bash -c "while [ ! -e ${flag} ]; do sleep 0.1; done; ` +
        `script -qc 'bash ${dir}/answer-b.sh' /dev/null" >/dev/null 2>&1 </dev/null &)`,
        `while ! grep -q rc= ${outA} 2>/dev/null; do sleep 0.1; done`,
      ].join('\n') + '\n',
    );
    run = await startPty({
      command: process.execPath,
      args: agentwatchArgv([
        'run',
        '--name',
        'tool',
        '--no-hooks',
        '--',
        'bash',
        join(dir, 'tool.sh'),
      ]),
      env: env as Record<string, string>,
      cwd: dir,
    });
    const saidA = await toolSaid(outA);
    assert.match(saidA, /rc=3/, saidA);
    assert.match(saidA, /descends from an agentwatch host \(process \d+\)/, saidA);
    await run.exited;
    writeFileSync(flag, '');
    const saidB = await toolSaid(outB);
    assert.match(saidB, /rc=3/, saidB);
    assert.match(saidB, /which an agentwatch host adopted/, saidB);
    assert.is(w.classifyNow().state, 'blocked', 'still waiting for the person');
    await personAnswers(env, log);
  } finally {
    writeFileSync(flag, '');
    await run?.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("1: a board an agent's tool runs as a session's command cannot attach to the blocked session and type its answer", async () => {
  // tester7: `run --detach --name evil -- agentwatch watch`, then `send evil k` (its Enter
  // attached the board to the blocked session) and `send --no-enter evil 1`: the dialog was
  // approved. The keys are written into the board's session here as send writes them.
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust1b-'));
  const env = personEnv(dir);
  const host = createHost({ intervalMs: 100 }, env);
  try {
    const { w, log } = await heldDialog(host, dir);
    const board = await host.start({
      command: process.execPath,
      args: agentwatchArgv(['watch']),
      name: 'evil',
      headless: true,
      cwd: ROOT,
      env: { AGENTWATCH_DIR: dir },
      rows: 24,
      cols: 120,
    });
    const screen = () => board.terminal.screenText();
    await until(
      'the board shows sim1 blocked',
      () => /sim1\s+claude\s+blocked/.test(screen()),
      30_000,
    )
      .catch((e: Error) => {
        throw new Error(`${e.message}\n${screen()}`);
      });
    board.write(Buffer.from('\r')); // Enter on the selected row: the blocked one
    await until('the attach refused', () => /cannot attach to sim1: refused/.test(screen()), 30_000)
      .catch((e: Error) => {
        throw new Error(`${e.message}\n${screen()}`);
      });
    assert.match(screen().replace(/\s+/g, ' '), /runs inside an agentwatch session/);
    board.write(Buffer.from('1')); // on the board: option 1's panel, then its confirmation
    board.write(Buffer.from('y'));
    await until(
      'the answer refused',
      () => /refused/.test(screen()) && !/answering/.test(screen()),
      30_000,
    )
      .catch((e: Error) => {
        throw new Error(`${e.message}\n${screen()}`);
      });
    assert.is(w.classifyNow().state, 'blocked', 'still waiting for the person');
    assert.not.match(readFileSync(log, 'utf8'), /^I /m, 'the dialog read no key');
    await personAnswers(env, log);
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('1: a key typed into the pane after the person confirmed makes the confirmation stale: the answer types nothing', async () => {
  // tester7: `1` in Gemini's pane and `y` on the board at once answered both dialogs of a
  // two-command turn; the second, drawn like the first, was never shown. Here the dialog stays
  // the same after the key (--hold), as that second one looked.
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust1c-'));
  const host = createHost({ intervalMs: 100 }, personEnv(dir));
  try {
    const { w, log } = await heldDialog(host, dir);
    const shown = await w.prompt(); // what the board's panel shows, with its episode
    w.session.write(Buffer.from('1')); // the person, in the pane
    await until('the key in the dialog', () => /^I \d+ 1 31$/m.test(readFileSync(log, 'utf8')));
    const err = await w.answer('1', shown).then(() => undefined, (e: unknown) => e);
    assert.instance(err, UserError, 'refused');
    assert.is((err as UserError).exitCode, GUARD_EXIT);
    assert.match((err as UserError).message, /keys were typed into it, since you saw it/);
    const keys = readFileSync(log, 'utf8').match(/^I .*$/gm);
    assert.equal(keys?.length, 1, `only the person's key reached the dialog: ${keys}`);
    // looked at again (a new panel: the prompt op's episode now), it is answered
    const again = await w.prompt();
    assert.ok(again.episode > shown.episode);
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('1: answerRefusal: unknown peer, another uid, a descendant of an agent (any depth), no controlling terminal, a session PTY are refused; a terminal of the person may', async () => {
  const uid = process.getuid?.() ?? -1;
  // a grandchild of this process: sh -> sleep
  const child = spawn('/bin/sh', ['-c', 'sleep 30 & echo $!; wait'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  // a process detached from every terminal (setsid), as a tool that detaches itself
  const detached = spawn('sleep', ['30'], { stdio: 'ignore', detached: true });
  // a process in a terminal of the person's: a PTY that no session hosts
  const own = pty.spawn('sleep', ['30'], { cols: 80, rows: 24 });
  const ownTty = (own as unknown as { ptsName: string }).ptsName;
  let grandchild = 0;
  try {
    grandchild = Number(
      await new Promise<string>((r) => child.stdout!.once('data', (d) => r(String(d)))),
    );
    assert.equal(ancestry(grandchild)!.slice(0, 3), [grandchild, child.pid, process.pid]);
    const none = { agents: new Set<number>() };
    assert.match(String(answerRefusal(null, none)), /cannot tell which process asked/);
    assert.match(String(answerRefusal({ pid: grandchild, uid: uid + 1 }, none)), /from uid/);
    assert.match(
      String(answerRefusal({ pid: grandchild, uid }, { agents: new Set([process.pid]) })),
      new RegExp(`process ${grandchild} runs inside an agentwatch session`),
    );
    assert.match(String(answerRefusal({ pid: 0, uid }, none)), /did not say/);
    assert.is(processFacts(detached.pid!)!.tty, null);
    assert.match(
      String(answerRefusal({ pid: detached.pid!, uid }, none)),
      new RegExp(`process ${detached.pid} has no controlling terminal`),
    );
    // node-pty's child makes its PTY its controlling terminal just after the fork
    await until('sleep on its PTY', () => processFacts(own.pid)?.tty === ttyKey(ownTty));
    assert.is(answerRefusal({ pid: own.pid, uid }, none), null, "the person's terminal may");
    assert.is(
      answerRefusal({ pid: own.pid, uid }, { agents: new Set([grandchild]), ttys: ['/nowhere'] }),
      null,
      'another process being an agent changes nothing',
    );
    assert.match(
      String(answerRefusal({ pid: own.pid, uid }, { agents: new Set(), ttys: [ownTty] })),
      new RegExp(`has the terminal of an agentwatch session \\(${ownTty}\\)`),
    );
  } finally {
    if (grandchild > 0) process.kill(grandchild, 'SIGKILL');
    child.kill('SIGKILL');
    detached.kill('SIGKILL');
    own.kill('SIGKILL');
  }
});

test("1: answerRefusal: a process orphaned out of an agent's parent chain but still in its session is refused", async () => {
  const uid = process.getuid?.() ?? -1;
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust1s-'));
  const pidFile = join(dir, 'orphan.pid');
  // the agent leads its PTY's session; its child's child is orphaned (a double fork)
  const agent = pty.spawn('/bin/sh', ['-c', `(sleep 31 & echo $! > '${pidFile}'); exec sleep 30`], {
    cols: 80,
    rows: 24,
  });
  let orphan = 0;
  try {
    orphan = Number(
      await until('the orphan', () => {
        const t = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim() : '';
        return t && processFacts(Number(t))?.ppid !== undefined && t;
      }),
    );
    await until('its parent gone', () => !ancestry(orphan)!.includes(agent.pid));
    const facts = processFacts(orphan)!;
    assert.is(facts.sid, agent.pid, "still in the agent's session");
    // without the session's PTY path (the check by terminal), its session tells
    assert.match(
      String(answerRefusal({ pid: orphan, uid }, { agents: new Set([agent.pid]) })),
      new RegExp(
        `process ${orphan} is in the process group or session of an agentwatch session's agent \\(process ${agent.pid}\\)`,
      ),
    );
  } finally {
    if (orphan > 0) process.kill(orphan, 'SIGKILL');
    agent.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test("1: a tool that detaches (setsid, or a double fork) from another host's session cannot answer; the person's terminal can", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust1d-'));
  const env = personEnv(dir);
  const host = createHost({ intervalMs: 100 }, env);
  const other = createHost({ intervalMs: 100 }, env);
  try {
    const { w, log } = await heldDialog(host, dir);
    // the agent's shell lives in another process than the blocked session (as `run --name dup`)
    const shell = await agentShell(other, dir, 'dup');
    // as the user reproduced it: a new session, its parent init, no controlling terminal
    const setsid = join(dir, 'setsid.out');
    shell.write(
      `(setsid sh -c "${
        toolAnswer(setsid).replace(/["$]/g, (c) => `\\${c}`)
      }" </dev/null >/dev/null 2>&1 &)\r`,
    );
    const said1 = await toolSaid(setsid);
    assert.match(said1, /rc=3/, said1);
    assert.match(said1, /has no controlling terminal/, said1);
    // a double fork: its parent is init, but its controlling terminal is dup's PTY
    const fork = join(dir, 'fork.out');
    shell.write(
      `(sh -c '${toolAnswer(fork).replace(/'/g, `'\\''`)}' </dev/null >/dev/null 2>&1 &)\r`,
    );
    const said2 = await toolSaid(fork);
    assert.match(said2, /rc=3/, said2);
    assert.match(said2, new RegExp(`terminal of an agentwatch session \\(${shell.tty}\\)`), said2);
    assert.is(w.classifyNow().state, 'blocked', 'still waiting for the person');
    await personAnswers(env, log);
  } finally {
    await other.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("1: a tool in a host of another socket folder (AGENTWATCH_DIR) cannot answer: the host registry lists every host's sessions", async () => {
  const dirA = mkdtempSync(join(tmpdir(), 'aw-trust1a-'));
  const dirB = mkdtempSync(join(tmpdir(), 'aw-trust1b-'));
  const envA = personEnv(dirA);
  const host = createHost({ intervalMs: 100 }, envA);
  const other = createHost({ intervalMs: 100 }, personEnv(dirB));
  const out = join(dirB, 'answer.out');
  const file = join(REGISTRY_DIR, `${process.pid}.json`);
  try {
    const { w, log } = await heldDialog(host, dirA);
    // the tool's host serves another socket folder: A's sessions do not list its shell
    const shell = await agentShell(other, dirB, 'elsewhere');
    assert.ok(existsSync(file), 'this process registered its hosts');
    const registered = registeredSessions();
    assert.ok(registered.agents.includes(shell.pid), 'the shell is registered');
    assert.ok(registered.ttys.includes(shell.tty!), "the shell's PTY is registered");
    shell.write(`${toolAnswer(out, `AGENTWATCH_DIR='${dirA}' `)}\r`);
    const said = await toolSaid(out);
    assert.match(said, /rc=3/, said);
    assert.match(said, /runs inside an agentwatch session/, said);
    assert.is(w.classifyNow().state, 'blocked', 'still waiting for the person');
    // the person, in a terminal of theirs, still answers
    await personAnswers(envA, log);
  } finally {
    await other.close();
    await host.close();
    rmSync(dirA, { recursive: true, force: true });
    rmSync(dirB, { recursive: true, force: true });
  }
  assert.not.ok(existsSync(file), 'the registry file is gone once its hosts ended');
});

test("1: a session that ended is no longer registered while its host lives on (its PTY's number is free for a person's terminal)", async () => {
  if (process.platform !== 'linux') return;
  const dir = mkdtempSync(join(tmpdir(), 'aw-reg-exit-'));
  const host = createHost({ intervalMs: 100 }, personEnv(dir));
  try {
    const keep = await host.start({
      command: 'sleep',
      args: ['600'],
      name: 'keep',
      headless: true,
    });
    const ends = await host.start({
      command: 'sh',
      args: ['-c', 'read -r _'],
      name: 'ends',
      headless: true,
    });
    const reg = () => registeredSessions();
    assert.ok(reg().ttys.includes(ends.tty!), 'a live session is registered');
    assert.ok(reg().agents.includes(ends.pid));
    ends.write('\r'); // it reads a line and ends
    await until('the ended session to leave the registry', () => !reg().ttys.includes(ends.tty!));
    assert.not.ok(reg().agents.includes(ends.pid), 'nor its pid');
    assert.ok(reg().ttys.includes(keep.tty!), 'the live one stays registered');
    assert.ok(host.pane(ends.id), 'the host still serves the ended session (its exit to report)');
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('1: a host registry folder that is not private, or is a symlink, is refused (answer fails closed); stale files are removed', () => {
  if (process.platform !== 'linux') return;
  const dir = mkdtempSync(join(tmpdir(), 'aw-reg-'));
  try {
    const reg = join(dir, 'registry');
    assert.equal(
      registeredSessions(reg),
      { agents: [], ttys: [], notifiers: [], hosts: [], adopted: [] },
      'absent',
    );
    mkdirSync(reg, { mode: 0o755 });
    chmodSync(reg, 0o755);
    assert.throws(() => registeredSessions(reg), /host registry has mode 0755/);
    chmodSync(reg, 0o700);
    const self = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
    const start = self.slice(self.lastIndexOf(')') + 2).split(' ')[19];
    writeFileSync(join(reg, '999999999.json'), '{"agents":[1],"ttys":["/dev/pts/1"]}');
    writeFileSync(join(reg, '1.json'), '{"start":"-1","agents":[2],"ttys":["/dev/pts/2"]}');
    writeFileSync(
      join(reg, `${process.pid}.json`),
      JSON.stringify({
        start,
        agents: [7],
        ttys: ['/dev/pts/9'],
        // a live notify command; one that ended (its session id lives on in its children);
        // a pid given anew to a process started at another time: not a notify command's
        notifiers: [{ pid: process.pid, start }, { pid: 999999998, start: '5' }, {
          pid: process.pid,
          start: '-5',
        }],
        // a host that adopts orphans, and one it adopted (the same rules as notify commands)
        subreaper: true,
        adopted: [{ pid: 999999996, start: '5' }],
      }),
    );
    // a host that ended: what it adopted stays refused while one of them runs (here: this
    // process stands for one); one whose adopted all ended is stale
    writeFileSync(
      join(reg, '999999997.json'),
      JSON.stringify({
        start: '3',
        agents: [8],
        subreaper: true,
        adopted: [{ pid: process.pid, start }, { pid: 999999995, start: '4' }],
      }),
    );
    writeFileSync(
      join(reg, '999999994.json'),
      JSON.stringify({ start: '3', subreaper: true, adopted: [{ pid: 999999993, start: '4' }] }),
    );
    const read = registeredSessions(reg);
    assert.equal({ ...read, adopted: [...read.adopted].sort() }, {
      agents: [7],
      ttys: ['/dev/pts/9'],
      notifiers: [process.pid, 999999998],
      hosts: [process.pid],
      adopted: [process.pid, 999999995, 999999996].sort(),
    });
    assert.equal(
      readdirSync(reg).sort(),
      [`${process.pid}.json`, '999999997.json'].sort(),
      'stale (dead, reused pid, adopted all ended) removed',
    );
    const link = join(dir, 'link');
    symlinkSync(reg, link);
    assert.throws(() => registeredSessions(link), /host registry is a symbolic link/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('2: another user: its connection is refused by the session; its socket folder by every command', async () => {
  if (!IS_ROOT) {
    console.log('  skipped: needs root to add and run as a second user (useradd, setuid)');
    return;
  }
  const user = secondUser();
  // (a) the kernel says who connected: a session refuses another uid even if it can connect.
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust2-'));
  try {
    chmodSync(dir, 0o711);
    const path = join(dir, 'x.sock');
    const ops: string[] = [];
    const server = await listenControl(path, (req) => {
      ops.push(req.op);
      return { session: 'yes' };
    });
    chmodSync(path, 0o777);
    try {
      const script = `const c=require('net').createConnection(${JSON.stringify(path)});` +
        `c.on('connect',()=>c.write('{"op":"info"}\\n'));let s='';c.on('data',d=>s+=d);` +
        `c.on('close',()=>{process.stdout.write(s)});c.on('error',e=>process.stdout.write('error '+e.code))`;
      // (spawn, not spawnSync: the session answers from this process's event loop)
      const got = await new Promise<{ stdout: string }>((resolve) => {
        const child = spawn(process.execPath, ['-e', script], {
          uid: user.uid,
          gid: user.gid,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let stdout = '';
        child.stdout!.on('data', (d: Buffer) => (stdout += d));
        child.on('close', () => resolve({ stdout }));
      });
      assert.match(got.stdout, new RegExp(`refused: uid ${user.uid} is not us`), got.stdout);
      assert.equal(ops, [], 'no request of theirs ran');
    } finally {
      await new Promise((r) => server.close(r));
    }
    // (b) a folder the other user made first, with a fake session in it.
    const theirs = join(dir, 'theirs');
    mkdirSync(theirs, { mode: 0o700 });
    const fake = await fakeSession(join(theirs, 'api.sock'), () => fakeInfo('api', 'x'));
    chownSync(theirs, user.uid, user.gid);
    try {
      const env = personEnv(theirs);
      for (const args of [['ls'], ['send', 'api', 'secret'], ['answer', '--yes', 'api', '1']]) {
        const r = await cli(args, env, { detached: true });
        assert.is.not(r.code, 0, `${args[0]}: ${r.stdout}`);
        assert.match(r.stderr, `${theirs}: the socket folder belongs to uid ${user.uid}`);
        assert.match(r.stderr, /AGENTWATCH_DIR/, 'the message names the fix');
        assert.not.match(r.stdout, /sent|answered/);
      }
    } finally {
      await fake.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('3: a hostile socket: names, questions, options, details and errors are printed as text', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust3-'));
  const evil = '\x1b]0;pwned\x07\x1b[8m';
  const fake = await fakeSession(
    join(dir, 'evil.sock'),
    () =>
      fakeInfo('evil', join(dir, 'evil.sock'), {
        name: `evil${evil}`,
        state: 'blocked',
        question: `Proceed?${evil}`,
      }),
    (req) =>
      req.op === 'prompt'
        ? {
          ok: true,
          op: 'prompt',
          question: `Do you want to proceed?${evil}`,
          options: [`1. Yes${evil}`, '2. No\x1b[2J'],
          selected: 0,
          details: [`rm -rf /${evil}`],
          episode: 1,
        }
        : req.op === 'answer'
        ? { ok: true, op: 'answer', answered: `1. Yes\x1b[2J${evil}` }
        : req.op === 'explain'
        ? {
          ok: true,
          op: 'explain',
          decidedBy: `screen${evil}`,
          reason: `rule${evil}`,
          report: null,
          foreground: { kind: 'addon', name: `claude${evil}` },
          manifest: `claude${evil}`,
          screen: `row one${evil}\nrow two\x1b[2J`,
          rules: `rule 0${evil}\n`,
          events: [`event${evil}`],
        }
        : { ok: false, op: req.op, error: 'refused\x1b[2J\x1b[H\x9b2J by the session', code: 3 },
  );
  try {
    const env = personEnv(dir);
    const answered = await cli(['answer', '--yes', 'evil', '1'], env, { detached: true });
    assert.is(answered.code, 0, answered.stderr);
    assert.match(answered.stdout, /Do you want to proceed\?/);
    assert.match(answered.stdout, /rm -rf \//);
    const sent = await cli(['send', 'evil', 'hi'], env, { detached: true });
    assert.is(sent.code, 3, sent.stderr);
    assert.match(sent.stderr, /refused.*by the session/);
    const waited = await cli(['wait', 'evil', '--until', 'idle', '--timeout', '0.5'], env);
    const listed = await cli(['ls'], env);
    const explained = await cli(['explain', 'evil'], env);
    assert.is(explained.code, 0, explained.stderr);
    assert.match(explained.stdout, /row one/);
    for (const r of [answered, sent, waited, listed, explained]) {
      const text = r.stdout + r.stderr;
      assert.not.ok(CONTROL.test(text), `no control character printed: ${JSON.stringify(text)}`);
    }
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('4: a shared folder (mode 1777) as AGENTWATCH_DIR is refused by run and ls, and stays 1777', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust4-'));
  chmodSync(dir, 0o1777);
  try {
    const env = personEnv(dir);
    const run = await cli(['run', '--', 'true'], env, { detached: true });
    assert.is.not(run.code, 0, run.stdout);
    assert.match(run.stderr, `${dir}: the socket folder has mode 1777`);
    assert.match(run.stderr, /AGENTWATCH_DIR/);
    assert.is(statSync(dir).mode & 0o7777, 0o1777, 'not chmod-ed');
    const ls = await cli(['ls'], env);
    assert.is.not(ls.code, 0, ls.stdout);
    assert.match(ls.stderr, `${dir}: the socket folder has mode 1777`);
    assert.is(statSync(dir).mode & 0o7777, 0o1777, 'not chmod-ed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A socket file left by a process killed before it could close it (a dead session's). */
async function staleSocket(path: string): Promise<void> {
  const child = spawn(process.execPath, [
    '-e',
    `require('net').createServer().listen(${JSON.stringify(path)},()=>console.log('up'))`,
  ], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((r) => child.stdout!.once('data', r));
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
}

test('5: ls removes only our own dead sockets; files, FIFOs and symlinks stay; a session behind a symlink is not listed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust5-'));
  const elsewhere = mkdtempSync(join(tmpdir(), 'aw-trust5-else-'));
  const live = await fakeSession(join(dir, 'live.sock'), () => fakeInfo('live', 'x'));
  const away = await fakeSession(join(elsewhere, 'away.sock'), () => fakeInfo('away', 'x'));
  try {
    writeFileSync(join(dir, 'regular.sock'), "the person's file");
    execFileSync('mkfifo', [join(dir, 'fifo.sock')]);
    symlinkSync(join(elsewhere, 'nothing-here'), join(dir, 'dangling.sock'));
    writeFileSync(join(elsewhere, 'file'), 'x');
    symlinkSync(join(elsewhere, 'file'), join(dir, 'tofile.sock'));
    symlinkSync(join(elsewhere, 'away.sock'), join(dir, 'away.sock'));
    symlinkSync(elsewhere, join(dir, 'folder.sock'));
    await staleSocket(join(dir, 'dead.sock'));
    assert.ok(lstatSync(join(dir, 'dead.sock')).isSocket());

    const sessions = await listSessions(dir);
    assert.equal(sessions.map((s) => s.id), ['live'], 'only the live socket of ours');
    assert.is(sessions[0].socket, join(dir, 'live.sock'), 'the path asked, not the one it said');
    for (const name of ['regular.sock', 'fifo.sock', 'dangling.sock', 'tofile.sock']) {
      assert.ok(
        existsSync(join(dir, name)) || lstatSync(join(dir, name)),
        `${name} is still there`,
      );
    }
    assert.ok(lstatSync(join(dir, 'away.sock')).isSymbolicLink());
    assert.ok(lstatSync(join(dir, 'folder.sock')).isSymbolicLink());
    assert.ok(existsSync(join(elsewhere, 'away.sock')), 'the socket behind the symlink stays');
    assert.is(readFileSync(join(dir, 'regular.sock'), 'utf8'), "the person's file");
    assert.not.ok(existsSync(join(dir, 'dead.sock')), 'the dead socket of ours is removed');
    // a session binding its socket replaces only a dead socket of ours, never a file
    let refused: Error | undefined;
    try {
      await listenControl(join(dir, 'regular.sock'), () => ({}));
    } catch (e) {
      refused = e as Error;
    }
    assert.match(String(refused?.message), /exists and is not a socket of ours/);
    assert.is(readFileSync(join(dir, 'regular.sock'), 'utf8'), "the person's file");
  } finally {
    await live.close();
    await away.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  }
});

test('6: the tail of an over-long request line never runs; the connection is closed; replies name their op', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust6-'));
  try {
    const path = join(dir, 's.sock');
    const ops: string[] = [];
    const server = await listenControl(path, (req) => {
      ops.push(req.op);
      return {};
    });
    const c = createConnection(path);
    try {
      let got = '';
      c.on('data', (d) => (got += d));
      let closed = false;
      c.on('close', () => (closed = true));
      await new Promise((r) => c.once('connect', r));
      // One line: 1 MB and a bit of blanks, then what would be a request on its own.
      c.write(' '.repeat((1 << 20) + 4096) + '{"op":"kill"}\n');
      c.write('{"op":"info"}\n');
      c.on('error', () => {});
      await until('the session to close the connection', () => closed, 30_000);
      assert.equal(ops, [], 'no request ran');
      const lines = got.trim().split('\n').map((l) => JSON.parse(l));
      assert.is(lines.length, 1, got.slice(0, 200));
      assert.is(lines[0].ok, false);
      assert.match(lines[0].error, /longer than 1 MB/);

      // every reply names the op it answers
      assert.equal(await request(path, { op: 'info' }), { ok: true, op: 'info' });
      assert.equal(ops, ['info']);
    } finally {
      c.destroy();
      await new Promise((r) => server.close(r));
    }
    // a client takes no answer that names another op (or none)
    const odd = createServer((c) => {
      c.on('error', () => {});
      c.once('data', () => c.end(JSON.stringify({ ok: true, written: 5 }) + '\n'));
    });
    await new Promise<void>((r) => odd.listen(join(dir, 'odd.sock'), r));
    try {
      let err: Error | undefined;
      try {
        await request(join(dir, 'odd.sock'), { op: 'send', text: 'x' });
      } catch (e) {
        err = e as Error;
      }
      assert.match(String(err?.message), /the answer is not for 'send'/);
    } finally {
      await new Promise((r) => odd.close(r));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('7: an unreadable socket folder is an error (non-zero exit), not "no sessions"', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust7-'));
  const folder = join(dir, 'sockets');
  mkdirSync(folder, { mode: 0o300 }); // ours, private, but not readable
  chmodSync(dir, 0o711);
  try {
    let r;
    if (IS_ROOT) {
      // root reads any folder: run ls as a second user, in a folder of theirs
      const user = secondUser();
      chownSync(folder, user.uid, user.gid);
      r = await cliAs(user, ['ls'], personEnv(folder));
    } else r = await cli(['ls'], personEnv(folder));
    assert.is.not(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stderr, `${folder}: cannot read the socket folder (EACCES)`);
    assert.not.match(r.stdout, /no sessions/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('8: send reports a prompt that appeared while it typed (exit 3), though the dialog is gone again by the Enter', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-trust8-'));
  const env = personEnv(dir);
  const host = createHost({ intervalMs: 100 }, env);
  // A Claude-like idle box; on SIGUSR2 it draws the permission dialog, which takes the next
  // keys it reads and closes 15 ms later (the text went into the dialog, not the input box).
  const child = `
    import { dialog, idleBox } from ${JSON.stringify(FLIPPER)};
    const cols = process.stdout.columns || 120, rows = process.stdout.rows || 32;
    const at = (lines) => '\\x1b[H\\x1b[2J' + '\\n'.repeat(rows - lines.length) + lines.join('\\r\\n');
    process.stdin.setRawMode(true);
    let up = false;
    process.stdin.on('data', () => {
      if (up) setTimeout(() => process.stdout.write(at(idleBox(cols))), 15);
      up = false;
    });
    process.on('SIGUSR2', () => {
      up = true;
      process.stdout.write(at(dialog(cols)));
    });
    // drawn last: once the idle box shows, SIGUSR2 has its handler (its default would end us)
    process.stdout.write(at(idleBox(cols)));`;
  try {
    writeFileSync(join(dir, 'flash.mjs'), child);
    const session = await host.start({
      command: process.execPath,
      args: ['--import', 'tsx', join(dir, 'flash.mjs')],
      name: 'flash',
      agent: 'claude',
      headless: true,
      cwd: ROOT,
    });
    const w = host.ptyPane(session.id)!;
    await until(
      'the idle box',
      () =>
        session.terminal.screenText().includes('? for shortcuts') &&
        w.classifyNow().state === 'idle',
      20_000,
    );
    // The dialog is drawn after the guard's last read and before its write(2): the write
    // asks the agent to draw it and waits until its bytes are on the PTY (a stand-in for
    // the ~50 µs window; the real one is measured by test/guard.test.ts).
    const writes: string[] = [];
    const writeNow = session.writeNow.bind(session);
    session.writeNow = (d: Uint8Array) => {
      if (!writes.length) {
        process.kill(session.pid, 'SIGUSR2');
        const until = Date.now() + 300;
        while (Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      }
      writes.push(Buffer.from(d).toString());
      return writeNow(d);
    };
    let err: unknown;
    try {
      await guardedSend(w, 'hello', true, true);
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof UserError, `send reported success: ${String(err)}`);
    assert.is((err as UserError).exitCode, 3, `${err}\n${session.terminal.screenText()}`);
    assert.match(
      (err as Error).message,
      'a prompt appeared while typing: the text may be in it, the Enter was not sent',
    );
    assert.equal(writes, ['hello'], 'no Enter was written');
    await until('the idle box again', () => w.classifyNow().state === 'idle');
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
