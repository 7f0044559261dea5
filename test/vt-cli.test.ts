/**
 * `agentwatch screen FILE`: the rendered screen of a capture, and clear errors for files
 * that are not captures.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { screenCommand } from '../src/cli/screen.ts';
import { UsageError, UserError } from '../src/cli/command.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

async function run(values: Record<string, string>, args: string[]) {
  let out = '';
  let err = '';
  const code = await screenCommand.run(values, args, {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

async function rejects(
  p: Promise<unknown>,
  type: new (...args: never[]) => Error,
  message: RegExp,
) {
  try {
    await p;
  } catch (e) {
    assert.instance(e, type);
    assert.match((e as Error).message, message);
    return;
  }
  assert.unreachable('expected an error');
}

test('prints the screen of a capture, as in its .screen.txt', async () => {
  const path = join(FIXTURES, 'claude-code', 'claude.blocked.raw');
  const { code, out, err } = await run({}, [path]);
  assert.is(code, 0);
  assert.is(err, '');
  const expected = readFileSync(path.replace(/\.raw$/, '.screen.txt'), 'utf8').split('\n')
    .map((l) => l.replace(/ +$/, '')).slice(0, 32).join('\n');
  assert.is(out, expected + '\n');
});

test('--size renders at another size', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vt-cli-'));
  try {
    const file = join(dir, 'small.raw');
    writeFileSync(file, 'abcdefgh\r\n\x1b[31mred\x1b[0m');
    const { out } = await run({ size: '3x5' }, [file]);
    assert.is(out, 'abcde\nfgh\nred\n');
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('an empty file is an error that names it (as in classify)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vt-cli-'));
  try {
    const file = join(dir, 'empty.raw');
    writeFileSync(file, '');
    await rejects(run({ size: '2x10' }, [file]), UserError, /empty\.raw: empty file \(0 bytes\)/);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('missing file, directory and bad arguments give clear errors', async () => {
  await rejects(
    run({}, ['/nonexistent/x.raw']),
    UserError,
    /^\/nonexistent\/x\.raw: no such file$/,
  );
  await rejects(run({}, [FIXTURES]), UserError, /is a directory/);
  await rejects(run({}, []), UsageError, /missing FILE/);
  await rejects(run({}, ['a', 'b']), UsageError, /exactly one FILE/);
  await rejects(run({ size: '0x0' }, ['a']), UsageError, /--size/);
});

test.run();
