/**
 * Rules that update while sessions run, through the real CLI: a `run` session takes a
 * person's saved manifest at its next sweep (a new agent id, then a change, then a broken
 * save that keeps the last good one).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listSessions } from '../src/runtime/session-directory.ts';
import { agentwatchArgv, runCli } from './support/agentwatch-e2e.ts';
import { until } from './support/until.ts';
import { REPO_ROOT } from './support/claude-home.ts';
import { startPty } from './support/pty-driver.ts';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeKeyPair, signIndex } from '../src/runtime/catalog-build.ts';
import { agentwatchCommand } from './support/cli.ts';

/** A manifest for the toy agent: 'PLEASE APPROVE' on screen gives `state`. */
export function toyManifest(version: string, state: string): string {
  return `schema = 1\nid = "toyagent"\nname = "Toy agent"\nversion = "${version}"\n` +
    `process = ["toyagent"]\n[[rules]]\nstate = "${state}"\nany = ['PLEASE APPROVE']\n`;
}

/** A scratch HOME with XDG folders, a socket dir and the toy agent (a shell script). */
export function scratch(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_STATE_HOME: join(dir, 'state'),
    AGENTWATCH_DIR: join(dir, 'sock'),
    AGENTWATCH_MANIFEST_URL: '',
  };
  const userDir = join(dir, 'config', 'agentwatch', 'agent-detection');
  mkdirSync(userDir, { recursive: true });
  const agent = join(dir, 'toyagent');
  writeFileSync(agent, '#!/bin/sh\nprintf "hello\\nPLEASE APPROVE (y/n)\\n"\nexec sleep 600\n');
  chmodSync(agent, 0o755);
  return { dir, env, userDir, agent };
}

/** Starts `agentwatch run ... -- AGENT` as a real process. */
export function startRun(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, agentwatchArgv(['run', ...args]), {
    env,
    cwd: REPO_ROOT,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
}

/** Writes `text` to `path` as an editor saves: a temp file renamed over it. */
function save(path: string, text: string): void {
  writeFileSync(path + '.tmp', text);
  renameSync(path + '.tmp', path);
}

test('a running session takes a saved file of the person at its next sweep', async () => {
  const { dir, env, userDir, agent } = scratch('aw-live-');
  const run = startRun(['--name', 'toy', '--interval', '200', '--no-desktop', '--', agent], env);
  let err = '';
  run.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  try {
    const sock = join(dir, 'sock');
    const session = (want: (s: { agent: string; state: string }) => boolean, what: string) =>
      until(
        what,
        async () => (await listSessions(sock)).find((s) => s.name === 'toy' && want(s)),
        60_000,
      );
    // No manifest names the toy yet: its screen's question is nobody's prompt (it exec'd
    // `sleep`, which the first look reads as `running sleep`).
    await session(
      (s) => s.agent === '' && s.state !== 'blocked',
      'the session, no manifest for it yet',
    );

    const file = join(userDir, 'toyagent.toml');
    save(file, toyManifest('1', 'blocked'));
    await session(
      (s) => s.agent === 'toyagent' && s.state === 'blocked',
      'blocked by the new file',
    );

    const t0 = Date.now();
    save(file, toyManifest('2', 'working'));
    await session((s) => s.state === 'working', 'working after the change');
    console.log(
      `  a saved file in force in the running session after ${Date.now() - t0} ms (sweep: 200 ms)`,
    );

    save(file, toyManifest('3', 'working').replace("any = ['PLEASE APPROVE']", "any = ['(']"));
    const list = await until('manifests list shows the refusal', async () => {
      const r = await runCli(['manifests', 'list'], env);
      return /toyagent\.toml:8: rules\[0\]\.any\[0\]: invalid regex/.test(r.stdout) && r.stdout;
    });
    // a new process never read a good version of that file, but the last good copy kept by
    // the running one: it lists what the running session uses, and the refusal
    assert.match(list, /toyagent +2 +your folder +yes +\S+ +refused +.*toyagent\.toml/);
    // ... and says which file, what is wrong, and what stays in force (not 'last error: none').
    assert.match(
      list,
      /\nrefused: \S+toyagent\.toml:8: rules\[0\]\.any\[0\]: invalid regex.*; its last good copy, toyagent 2, stays in force\n/,
    );
    const now = (await listSessions(sock)).find((s) => s.name === 'toy')!;
    assert.is(now.state, 'working', 'the last good manifest stays in force');

    const ex = await runCli(['explain', now.id], env);
    assert.match(ex.stdout, /manifest: toyagent 2 \(your folder: .*toyagent\.toml\)/);
    assert.match(
      ex.stdout,
      /events:[^]*rules updated: toyagent 2 \(your folder\)[^]*rules refused: /,
    );
  } finally {
    run.kill('SIGTERM');
    await new Promise((r) => run.once('exit', r));
    if (err) console.log(err);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the board says rules updated, or why a saved file was refused', async () => {
  const { dir, env, userDir } = scratch('aw-live-board-');
  const self = agentwatchCommand();
  const penv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) penv[k] = v;
  const pty = await startPty({
    command: self.command,
    args: [...self.args, 'watch', '--interval', '200', '--no-desktop'],
    cwd: process.cwd(),
    env: penv,
  });
  try {
    await pty.waitForScreen(/no sessions|agentwatch/, 30_000);
    const file = join(userDir, 'toyagent.toml');
    save(file, toyManifest('2026.12.02', 'blocked'));
    await pty.waitForScreen(/rules updated: toyagent 2026\.12\.02 \(your folder\)/, 30_000);
    save(file, 'schema = 1\nid = "toyagent"\n');
    await pty.waitForScreen(/rules refused: .*toyagent\.toml/, 30_000);
  } finally {
    await pty.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a running session takes a good catalog update within one poll; config errors name the line', async () => {
  const { dir, env, agent } = scratch('aw-live-cat-');
  delete env.AGENTWATCH_MANIFEST_URL; // '' would turn the catalog off
  const keys = makeKeyPair();
  let files: Record<string, string> = {};
  const publish = (version: string, state: string) => {
    const body = toyManifest(version, state);
    const index = `schema = 1\n[[manifests]]\nid = "toyagent"\npath = "m/toyagent.toml"\n` +
      `version = "${version}"\nsha256 = "${createHash('sha256').update(body).digest('hex')}"\n` +
      `size = ${Buffer.byteLength(body)}\n`;
    files = {
      '/index.toml': index,
      '/index.toml.sig': signIndex(Buffer.from(index), keys.privatePem),
      '/m/toyagent.toml': body,
    };
  };
  publish('1', 'idle');
  const server = createServer((req, res) => {
    const body = files[req.url ?? ''];
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/index.toml`;
  const cfg = join(dir, 'config', 'agentwatch', 'config.toml');
  writeFileSync(cfg, `catalog_url = "${url}"\nupdate_interval = "1s"\nbogus = 1\n`);
  const bad = await runCli(['config'], env);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /config\.toml:3: bogus: unknown key 'bogus'/);
  writeFileSync(
    cfg,
    `catalog_url = "${url}"\ncatalog_keys = ["${keys.publicKey}"]\nupdate_interval = "1s"\n`,
  );
  const shown = await runCli(['config'], env);
  assert.match(shown.stdout, /update_interval += "1s" {2}# .*config\.toml:3/);
  assert.match(shown.stdout, /sweep\.interval += 700 {2}# default/);

  const run = startRun(['--name', 'toy', '--interval', '200', '--no-desktop', '--', agent], env);
  let err = '';
  run.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  try {
    const sock = join(dir, 'sock');
    const session = (want: (s: { agent: string; state: string }) => boolean, what: string) =>
      until(
        what,
        async () => (await listSessions(sock)).find((s) => s.name === 'toy' && want(s)),
        60_000,
      );
    await session(
      (s) => s.agent === 'toyagent' && s.state === 'idle',
      'toyagent 1 from the catalog',
    );
    publish('2', 'blocked');
    const t0 = Date.now();
    await session((s) => s.state === 'blocked', 'blocked by toyagent 2 from the catalog');
    console.log(
      `  catalog update in force in the running session after ${Date.now() - t0} ms (poll: 1 s)`,
    );
    const list = await runCli(['manifests', 'list'], env);
    assert.match(list.stdout, /toyagent +2 +catalog +yes/);
  } finally {
    run.kill('SIGTERM');
    await new Promise((r) => run.once('exit', r));
    server.close();
    if (err) console.log(err);
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
