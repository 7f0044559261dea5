/**
 * `send` types text literally and never a key (src/runtime/send-text.ts): control characters
 * are refused, with their name and offset, by the CLI (exit 2) and by the host; text with a line
 * break goes as one bracketed paste, only into an application that enabled it (DECSET 2004);
 * `--no-enter` never submits. Unit tests of the pure encoder, then a real bash and a real `cat`
 * in real PTYs, driven by the real CLI over the real socket.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  checkSendText,
  forbiddenChar,
  PASTE_END,
  PASTE_OVER_CHARS,
  PASTE_START,
  sendBytes,
} from '../src/runtime/send-text.ts';
import { createHost } from '../src/runtime/default-host.ts';
import { request } from '../src/runtime/control-client.ts';
import type { Session } from '../src/runtime/session.ts';
import { UserError } from '../src/errors.ts';
import { cli } from './support/cli.ts';
import { until } from './support/until.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const refusal = (f: () => unknown): UserError => {
  try {
    f();
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error('not refused');
};

test('forbiddenChar: ESC, CR, other C0, DEL and C1 are named with their offset; TAB and LF are text', () => {
  assert.is(forbiddenChar('run the tests'), null);
  assert.is(forbiddenChar('a\tb\nc ünïcödé 🙂'), null);
  assert.equal(forbiddenChar('\x1b[Z'), { offset: 0, code: 0x1b, name: 'ESC (U+001B)' });
  assert.equal(forbiddenChar('text\r'), { offset: 4, code: 0x0d, name: 'CR (U+000D, Enter)' });
  assert.equal(
    forbiddenChar('🙂x\x03'),
    { offset: 2, code: 3, name: 'U+0003 (Ctrl-C)' },
    'code points',
  );
  assert.equal(forbiddenChar('ok\x7f'), { offset: 2, code: 0x7f, name: 'DEL (U+007F, Backspace)' });
  assert.equal(forbiddenChar('\u009b2J'), { offset: 0, code: 0x9b, name: 'U+009B (a C1 control)' });
  assert.equal(forbiddenChar('\x00')?.name, 'U+0000 (Ctrl-@)');
  assert.is(forbiddenChar('\u00a0')?.name, undefined, 'NBSP (U+00A0) is text');
});

test('sendBytes: plain text as UTF-8; line breaks only as one bracketed paste, only when enabled', () => {
  assert.is(Buffer.from(sendBytes('héllo', false)).toString(), 'héllo');
  assert.is(Buffer.from(sendBytes('héllo', true)).toString(), 'héllo', 'one line: no brackets');
  assert.is(
    Buffer.from(sendBytes('echo ONE\necho TWO', true)).toString(),
    `${PASTE_START}echo ONE\necho TWO${PASTE_END}`,
  );
  assert.is(Buffer.from(sendBytes('a\tb', true)).toString(), `${PASTE_START}a\tb${PASTE_END}`);
  // a long line goes as one paste where the application takes pastes, typed where it does not
  const long = 'x'.repeat(PASTE_OVER_CHARS + 1);
  assert.is(Buffer.from(sendBytes(long, true)).toString(), `${PASTE_START}${long}${PASTE_END}`);
  assert.is(Buffer.from(sendBytes(long, false)).toString(), long);
  const limit = 'x'.repeat(PASTE_OVER_CHARS);
  assert.is(Buffer.from(sendBytes(limit, true)).toString(), limit, 'up to the limit: typed');
  const multi = refusal(() => sendBytes('echo ONE\necho TWO', false));
  assert.is(multi.exitCode, 2);
  assert.match(multi.message, /multi-line text needs an application that enabled bracketed paste/);
  assert.match(refusal(() => sendBytes('a\tb', false)).message, /text with a tab needs/);
  const esc = refusal(() => sendBytes('\x1b[201~rm -rf x\n', true));
  assert.is(esc.exitCode, 2, 'no way out of the paste: ESC is refused inside it too');
  assert.match(esc.message, /ESC \(U\+001B\) at offset 0/);
  assert.match(
    refusal(() => checkSendText('x\u0085')).message,
    /U\+0085 \(a C1 control\) at offset 1/,
  );
});

/** A host with one session of `command`, whose every write is recorded as the keys it typed. */
async function hosted(command: string, args: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'aw-send-text-'));
  const env: NodeJS.ProcessEnv = { ...process.env, AGENTWATCH_DIR: dir };
  delete env.AGENTWATCH_SESSION;
  delete env.AGENTWATCH_SOCKET;
  const host = createHost({ intervalMs: 100 }, env);
  const session: Session = await host.start({
    command,
    args,
    name: 'dup',
    headless: true,
    cwd: ROOT,
    env: { AGENTWATCH_DIR: dir, PS1: '$ ', TERM: 'xterm-256color' },
  });
  const keys: string[] = [];
  const writeNow = session.writeNow.bind(session);
  session.writeNow = (d: Uint8Array) => {
    const n = writeNow(d);
    keys.push(Buffer.from(d.subarray(0, n)).toString());
    return n;
  };
  const close = async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { env, session, keys, close };
}

test('send into bash: keys refused (CLI exit 2, and by the host); two lines go as one paste and run only on the Enter', async () => {
  const { env, session, keys, close } = await hosted('bash', ['--norc', '--noprofile']);
  const screen = () => session.terminal.screenText();
  try {
    await until(
      'bash at its prompt, bracketed paste on',
      () => screen().includes('$') && session.terminal.bracketedPaste,
      20_000,
    );
    // Shift+Tab (cycles Claude Code's permission mode), an Enter, a C1 CSI: refused, nothing typed
    for (
      const [text, why] of [
        ['\x1b[Z', /ESC \(U\+001B\) at offset 0/],
        ['text\r', /CR \(U\+000D, Enter\) at offset 4/],
        ['\u009b2J', /U\+009B \(a C1 control\) at offset 0/],
      ] as const
    ) {
      const r = await cli(['send', '--no-enter', 'dup', text], env, { detached: true });
      assert.is(r.code, 2, r.stderr);
      assert.match(r.stderr, why);
      assert.match(r.stderr, /send types text, never a key/);
      // past the CLI: the host refuses too
      const e = await request(session.spec.socket, { op: 'send', text, enter: false }).then(
        () => null,
        (e: UserError) => e,
      );
      assert.is(e?.exitCode, 2, String(e));
      assert.match(e!.message, why);
    }
    assert.equal(keys, [], 'nothing was typed');

    // two lines, --no-enter: one bracketed paste; bash runs neither line
    const two = await cli(['send', '--no-enter', 'dup', 'echo ONE\necho TWO'], env, {
      detached: true,
    });
    assert.is(two.code, 0, two.stderr);
    assert.equal(keys, [`${PASTE_START}echo ONE\necho TWO${PASTE_END}`]);
    // had the first line run, its ONE would show before bash echoes the second line
    await until('the pasted lines in the input', () => screen().includes('echo TWO'), 30_000);
    assert.not.match(screen(), /^ONE$/m, screen());
    // the Enter alone (send without --no-enter) submits what is in the input: both lines run
    const enter = await cli(['send', 'dup', ''], env, { detached: true });
    assert.is(enter.code, 0, enter.stderr);
    assert.equal(keys.slice(1), ['\r']);
    await until('both lines ran', () => /^ONE$/m.test(screen()) && /^TWO$/m.test(screen()), 30_000);
  } finally {
    await close();
  }
});

test('send into bash running a program (sleep): refused, nothing typed; the text never waits for the shell in its buffer', async () => {
  // tester6: the text and its Enter went into the line discipline's buffer while sleep ran, and
  // bash ran the line once sleep ended.
  const { env, session, keys, close } = await hosted('bash', ['--norc', '--noprofile']);
  const screen = () => session.terminal.screenText();
  try {
    await until('bash at its prompt', () => screen().includes('$'), 20_000);
    const started = await cli(['send', 'dup', 'sleep 600'], env, { detached: true });
    assert.is(started.code, 0, started.stderr);
    const running = await cli(['wait', 'dup', '--until', 'running', '--timeout', '30'], env, {
      detached: true,
    });
    assert.is(running.code, 0, running.stderr);
    const typed = keys.length;
    const r = await cli(['send', 'dup', 'echo typed-while-running'], env, { detached: true });
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stderr, /refused: dup is running sleep .*nothing was typed/);
    assert.is(keys.length, typed, 'nothing was typed');
  } finally {
    await close();
  }
});

test('send into an application without bracketed paste: multi-line text and tabs are refused', async () => {
  const { env, session, keys, close } = await hosted('cat', []);
  try {
    await until('cat running', () => session.pid > 0 && !session.exit);
    assert.is(session.terminal.bracketedPaste, false);
    const r = await cli(['send', '--no-enter', 'dup', 'a\nb'], env, { detached: true });
    assert.is(r.code, 2, r.stderr);
    assert.match(r.stderr, /multi-line text needs an application that enabled bracketed paste/);
    const t = await cli(['send', '--no-enter', 'dup', 'a\tb'], env, { detached: true });
    assert.is(t.code, 2, t.stderr);
    assert.match(t.stderr, /text with a tab needs/);
    assert.equal(keys, [], 'nothing was typed');
    const one = await cli(['send', '--no-enter', 'dup', 'one line'], env, { detached: true });
    assert.is(one.code, 0, one.stderr);
    assert.equal(keys, ['one line']);
  } finally {
    await close();
  }
});

test.run();
