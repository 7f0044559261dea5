/**
 * `notify --test` inside tmux: tmux's allow-passthrough is read (a real tmux server on a
 * private socket), and the person is warned, with the command that fixes it, when the
 * terminal notice cannot leave tmux; a missing tmux is a note, never a failure.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { notifyTest } from '../src/cli/notify-test.ts';

const dir = mkdtempSync(join(tmpdir(), 'aw-tmux-'));
const socket = join(dir, 'tmux.sock');
const base = {
  ...process.env,
  XDG_CONFIG_HOME: join(dir, 'config'),
  TMUX: undefined,
  TMUX_PANE: undefined,
};
let hasTmux = true;
try {
  execFileSync('tmux', ['-V']);
} catch {
  hasTmux = false;
}
const tmux = (...args: string[]) =>
  execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8' }).trim();

/** `notify --test --no-desktop` on a terminal, in `env`: its exit code and printout. */
async function run(env: NodeJS.ProcessEnv) {
  let out = '';
  let written = '';
  const code = await notifyTest({ 'no-desktop': true }, {
    stdout: (t) => (out += t),
    stderr: (t) => (out += t),
  }, { isTTY: true, write: (s) => (written += s), env });
  assert.ok(written.length > 0, 'the terminal notice was written');
  return { code, out };
}

test.after(() => {
  if (hasTmux) {
    try {
      tmux('kill-server');
    } catch {
      // not started
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

test('outside tmux: no word about it', async () => {
  const r = await run(base);
  assert.is(r.code, 0, r.out);
  assert.match(r.out, /^terminal +sent \(OSC 9/m);
  assert.not.match(r.out, /tmux/);
});

test('inside tmux with allow-passthrough off: a warning saying how to turn it on; on: none', async () => {
  if (!hasTmux) {
    console.log('    tmux is not installed: skipped');
    return;
  }
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'aw', 'sleep 600');
  tmux('set', '-g', 'allow-passthrough', 'off');
  const env = {
    ...base,
    TMUX: `${socket},${tmux('display', '-p', '#{pid}')},0`,
    TMUX_PANE: tmux('display', '-p', '#{pane_id}'),
  };
  const off = await run(env);
  assert.is(off.code, 0, off.out);
  assert.match(
    off.out,
    /^terminal +sent .*\n {10}warning: inside tmux with allow-passthrough off: .*cannot leave tmux.*tmux set -g allow-passthrough on/m,
  );
  tmux('set', '-g', 'allow-passthrough', 'on');
  const on = await run(env);
  assert.is(on.code, 0, on.out);
  assert.not.match(on.out, /tmux/);
  // the pane's own value wins over the global one
  tmux('set', '-p', '-t', env.TMUX_PANE, 'allow-passthrough', 'off');
  assert.match((await run(env)).out, /allow-passthrough off/);
});

test('inside tmux without tmux on PATH: a note, exit 0', async () => {
  const r = await run({ ...base, TMUX: '/nonexistent/sock,1,0', PATH: join(dir, 'empty') });
  assert.is(r.code, 0, r.out);
  assert.match(
    r.out,
    /note: inside tmux, but its allow-passthrough could not be read \(tmux is not on PATH\)/,
  );
});

test.run();
