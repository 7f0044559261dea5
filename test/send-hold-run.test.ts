/**
 * `agentwatch run` in the person's terminal (a real PTY), `agentwatch send` from another
 * process, and the person typing in their terminal while the send types: their keys wait
 * until the send is done (its Enter read), then reach the agent whole and in order; the
 * send's text is submitted alone. The agent is a small program that reads its terminal in raw
 * mode, keeps a line, submits it on Enter and logs every read; it stops itself (SIGSTOP) once
 * it has read the send's text, before drawing it (an agent busy for a moment), and the test
 * lets it go on once the person's keys are held (the session's event log says so). Twice in
 * a row.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentwatchArgv, cli, cliInProcess } from './support/cli.ts';
import { type PtyDriver, startPty } from './support/pty-driver.ts';
import { until } from './support/until.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The agent: logs each read (`{pid, read}`) and each line it submits (`{submitted}`) to the
 * file named by argv[2]; stops itself after a read that holds 'stop-here'; exits on Ctrl-D.
 */
const AGENT = String.raw`
const fs = require('node:fs');
const log = process.argv[2];
const out = process.stdout;
const note = (o) => fs.appendFileSync(log, JSON.stringify(o) + '\n');
let line = '';
const draw = () => out.write('\r\x1b[2K> ' + line);
process.stdin.setRawMode(true);
out.write('fake agent ready\r\n');
draw();
process.stdin.on('data', (d) => {
  const s = d.toString('latin1');
  note({ pid: process.pid, read: s });
  for (const c of s) {
    if (c === '\x04') process.exit(0);
    if (c !== '\r') line += c;
    else {
      note({ submitted: line });
      out.write('\r\nsubmitted: ' + line + '\r\n');
      line = '';
    }
  }
  if (s.includes('stop-here')) process.kill(process.pid, 'SIGSTOP');
  draw();
});
`;

test("keys typed in run's terminal while send types reach the agent after its Enter, twice", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-hold-run-'));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { AGENTWATCH_DIR: dir, TERM: 'xterm-256color' });
  const agent = join(dir, 'agent.js');
  writeFileSync(agent, AGENT);
  const log = join(dir, 'agent.log');
  writeFileSync(log, '');
  const entries = () =>
    readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) =>
      JSON.parse(l) as { pid?: number; read?: string; submitted?: string }
    );
  let term: PtyDriver | undefined;
  let agentPid = 0;
  try {
    term = await startPty({
      command: process.execPath,
      args: [
        ...agentwatchArgv([]),
        'run',
        '--no-desktop',
        '--name',
        'held',
        '--',
        process.execPath,
        agent,
        log,
      ],
      cwd: ROOT,
      env,
      rows: 24,
      cols: 100,
    });
    const t = term;
    await t.waitForScreen(/fake agent ready/, 60_000);
    await until(
      'the session listed',
      async () => (await cliInProcess(['ls'], env)).stdout.includes('held'),
      60_000,
    );
    /** How often the session's event log says it held the person's input. */
    const holds = async () =>
      (await cliInProcess(['explain', 'held'], env)).stdout.split('holding the input typed')
        .length - 1;
    for (const round of [1, 2]) {
      const text = `task stop-here round ${round}`;
      const keys = `my own words ${round}`;
      const before = entries().length;
      const sent = cli(['send', 'held', text], env);
      // the agent read the text and stopped: the person types now, in their terminal
      const read = await until(
        'the agent read the text',
        () => entries().slice(before).find((e) => e.read?.includes(text)),
      );
      agentPid = read.pid!;
      t.send(keys);
      await until("the person's keys held", async () => (await holds()) >= round);
      process.kill(agentPid, 'SIGCONT');
      const r = await sent;
      assert.is(r.code, 0, `round ${round}: ${r.stdout}${r.stderr}`);
      await t.waitForScreen(new RegExp(`> ${keys}$`, 'm'), 30_000);
      t.send('\r'); // the person submits their own line
      await until(
        `round ${round}: the person's line submitted`,
        () => entries().slice(before).some((e) => e.submitted === keys),
      );
      const mine = entries().slice(before);
      assert.equal(
        mine.filter((e) => e.submitted !== undefined).map((e) => e.submitted),
        [text, keys],
        `round ${round}: the text submitted alone, then the person's line`,
      );
      assert.is(
        mine.map((e) => e.read ?? '').join(''),
        text + '\r' + keys + '\r',
        `round ${round}: what the agent read, in order`,
      );
    }
    t.send('\x04');
    await t.exited;
  } finally {
    if (agentPid) {
      try {
        process.kill(agentPid, 'SIGCONT');
      } catch {
        // gone
      }
    }
    await term?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
