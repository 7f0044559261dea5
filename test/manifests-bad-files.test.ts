/**
 * Bad local manifest files are refused at once, in bounded memory, with a clear message:
 * a FIFO (it used to hang `manifests check` forever), /dev/zero (it used to grow memory without
 * bound), a directory, a symlink loop, bytes that are not UTF-8, 50 MB, a 10 MB pattern. An
 * error never quotes more than 200 characters of a pattern. Through the real CLI.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from './support/agentwatch-e2e.ts';
import { ManifestError } from '../src/detect/errors.ts';
import { parseManifest } from '../src/detect/manifest.ts';

const dir = mkdtempSync(join(tmpdir(), 'aw-badfiles-'));
const env = {
  ...process.env,
  XDG_CONFIG_HOME: join(dir, 'cfg'),
  XDG_CACHE_HOME: join(dir, 'cache'),
  XDG_STATE_HOME: join(dir, 'state'),
};
const HEAD =
  `schema = 1\nid = "big"\nname = "Big"\nversion = "1"\nprocess = ["big"]\n[[rules]]\nstate = "blocked"\n`;

/** Runs `manifests check FILE` and returns its stderr; it must end by itself with exit 1. */
async function refused(file: string): Promise<string> {
  const r = await runCli(['manifests', 'check', file], env, 20_000);
  assert.is(r.code, 1, `exit 1 (null: it hung and was killed)\n${r.stdout}${r.stderr}`);
  return r.stderr;
}

test('a FIFO with no writer is refused without reading it', async () => {
  const fifo = join(dir, 'pipe.toml');
  execFileSync('mkfifo', [fifo]);
  assert.match(await refused(fifo), /pipe\.toml: is a FIFO \(named pipe\), not a regular file/);
});

test('/dev/zero is refused without reading it', async () => {
  assert.match(
    await refused('/dev/zero'),
    /\/dev\/zero: is a character device, not a regular file/,
  );
});

test('a directory, a symlink loop, not UTF-8', async () => {
  assert.match(await refused(dir), /: is a directory, not a file/);
  const a = join(dir, 'loop-a.toml');
  const b = join(dir, 'loop-b.toml');
  symlinkSync(b, a);
  symlinkSync(a, b);
  assert.match(await refused(a), /loop-a\.toml: symlink loop/);
  const latin1 = join(dir, 'latin1.toml');
  writeFileSync(latin1, Buffer.concat([Buffer.from('name = "caf'), Buffer.from([0xe9, 0x22])]));
  assert.match(
    await refused(latin1),
    /latin1\.toml:1: not UTF-8 text \(invalid byte 0xe9 at offset 11\)/,
  );
});

test('50 MB and a 10 MB pattern: refused by size before reading', async () => {
  const big = join(dir, 'big.toml');
  writeFileSync(big, HEAD);
  truncateSync(big, 50 * 1024 * 1024); // sparse: costs no disk, reads as 50 MB
  assert.match(await refused(big), /big\.toml: too large: 52428800 bytes \(at most 262144\)/);
  const pat = join(dir, 'pattern.toml');
  writeFileSync(pat, HEAD + `any = ['${'a'.repeat(10 * 1024 * 1024)}']\n`);
  const err = await refused(pat);
  assert.match(err, /pattern\.toml: too large: 104858\d\d bytes \(at most 262144\)/);
  assert.ok(err.length < 400, 'the message quotes nothing of the pattern');
});

test('a 10 MB pattern given as text: refused by length, quoting at most 200 characters', () => {
  const p = 'x'.repeat(10 * 1024 * 1024);
  let e: unknown;
  try {
    parseManifest(HEAD + `any = ['${p}']\n`, 'mem.toml');
  } catch (x) {
    e = x;
  }
  assert.ok(e instanceof ManifestError);
  assert.match(
    e.message,
    /^mem\.toml:8: rules\[0\]\.any\[0\]: pattern too long: 10485760 characters \(at most 2048\)/,
  );
  assert.ok((e.message.match(/x+/)?.[0].length ?? 0) <= 200, 'at most 200 characters quoted');
  // an invalid pattern under the limit is quoted cut to 200 characters too
  let e2: unknown;
  try {
    parseManifest(HEAD + `any = ['(${'y'.repeat(1500)}']\n`, 'mem.toml');
  } catch (x) {
    e2 = x;
  }
  assert.ok(e2 instanceof ManifestError);
  assert.match(e2.message, /invalid regex '\(y+… \(1501 characters\)': missing closing \)/);
  assert.ok((e2.message.match(/y+/)?.[0].length ?? 0) <= 200);
});

test('the catalog limits: rules <= 256, examples <= 512', () => {
  const rule = `[[rules]]\nstate = "idle"\nany = ['a']\n`;
  const head = HEAD.replace('[[rules]]\nstate = "blocked"\n', '');
  assert.throws(
    () => parseManifest(head + rule.repeat(257), 'r.toml'),
    /rules: too many rules: 257 \(at most 256\)/,
  );
  const ex = `[[examples]]\nstate = "idle"\nscreen = "a"\n`;
  assert.throws(
    () => parseManifest(head + rule + ex.repeat(513), 'e.toml'),
    /examples: too many examples: 513 \(at most 512\)/,
  );
  assert.throws(
    () => parseManifest(head + 'min_engine = 99\n' + rule, 'm.toml'),
    /min_engine: needs rule engine 99; this agentwatch has engine 4/,
  );
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
