/**
 * The manifests in force from four sources (manifest-set.ts): precedence, new agent ids,
 * hot reload of the person's folder (a saved file, a broken save that keeps the last good
 * one, a removed file), the catalog cache only when newer than bundled, and the sweep taking
 * a reloaded manifest at its next tick.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManifestError } from '../src/detect/errors.ts';
import { ManifestSet } from '../src/runtime/manifest-set.ts';
import { compareVersions } from '../src/detect/version.ts';
import { runCli } from './support/agentwatch-e2e.ts';

const root = mkdtempSync(join(tmpdir(), 'aw-mset-'));
let n = 0;

/** A fresh folder layout: user dir, cache dir, a scratch dir for --manifest files. */
function layout() {
  const base = join(root, String(n++));
  const userDir = join(base, 'user');
  const cacheDir = join(base, 'cache');
  mkdirSync(userDir, { recursive: true });
  mkdirSync(cacheDir, { recursive: true });
  return { base, userDir, cacheDir };
}

/** A small manifest: `id`, `version`, one rule giving `state` for 'PLEASE APPROVE'. */
export function toy(id: string, version: string, state = 'blocked', process = id): string {
  return `schema = 1\nid = "${id}"\nname = "Toy"\nversion = "${version}"\nprocess = ["${process}"]\n` +
    `[[rules]]\nstate = "${state}"\nany = ['PLEASE APPROVE']\n` +
    `[[examples]]\nstate = "${state}"\nscreen = "PLEASE APPROVE"\n`;
}

test('compareVersions: numeric parts, prefixes older', () => {
  assert.ok(compareVersions('2026.12.10', '2026.12.9') > 0);
  assert.ok(compareVersions('2026.11.30', '2026.12.02') < 0);
  assert.is(compareVersions('2026.12.02', '2026.12.02'), 0);
  assert.ok(compareVersions('2026.12', '2026.12.1') < 0);
  assert.ok(compareVersions('2026-12-02', '2026-11-30') > 0);
});

test('precedence: --manifest over the folder over bundled; new ids from the folder', () => {
  const { base, userDir, cacheDir } = layout();
  writeFileSync(join(userDir, 'qwen.toml'), toy('qwen', '1', 'idle', 'qwen'));
  writeFileSync(join(userDir, 'toyagent.toml'), toy('toyagent', '1'));
  const opt = join(base, 'opt.toml');
  writeFileSync(opt, toy('qwen', '0.1', 'working', 'qwen'));
  const set = new ManifestSet({ userDir, cacheDir });
  assert.is(set.effective().get('qwen')!.source, join(userDir, 'qwen.toml'));
  assert.is(set.sourceOf('qwen'), 'user');
  assert.is(set.effective().get('toyagent')!.version, '1');
  assert.is(set.sourceOf('claude'), 'bundled');
  const withOpt = new ManifestSet({ files: [opt], userDir, cacheDir });
  assert.is(withOpt.effective().get('qwen')!.source, opt, '--manifest wins, whatever its version');
  assert.is(withOpt.sourceOf('qwen'), 'option');
});

test('a broken --manifest file fails at start; a broken folder file is only reported', () => {
  const { base, userDir, cacheDir } = layout();
  const bad = join(base, 'bad.toml');
  writeFileSync(bad, 'schema = 1\nid = "x"\n');
  assert.throws(
    () => new ManifestSet({ files: [bad], userDir, cacheDir }),
    (e: unknown) => e instanceof ManifestError,
  );
  writeFileSync(join(userDir, 'bad.toml'), 'schema = 1\nid = "x"\n');
  const set = new ManifestSet({ userDir, cacheDir });
  const st = set.statuses().find((s) => s.path === join(userDir, 'bad.toml'))!;
  assert.is(st.lastResult, 'refused');
  assert.match(st.lastError!, /missing required key 'name'/);
  assert.is(set.effective().get('claude')?.id, 'claude');
});

test('hot reload: a saved file, a broken save (last good stays), a failing example, removal', () => {
  const { userDir, cacheDir } = layout();
  const set = new ManifestSet({ userDir, cacheDir });
  const notices: string[] = [];
  set.onNotice((x) => notices.push(x.text));
  const before = set.effective();
  assert.not.ok(set.refresh(), 'nothing changed');
  assert.is(set.effective(), before, 'the same Map while nothing changes');
  const file = join(userDir, 'toyagent.toml');
  writeFileSync(file, toy('toyagent', '1'));
  assert.ok(set.refresh());
  assert.is(set.effective().get('toyagent')!.rules[0].state, 'blocked');
  assert.match(notices.at(-1)!, /rules updated: toyagent 1 \(your folder\)/);
  const good = set.effective();

  writeFileSync(file, toy('toyagent', '2').replace("any = ['PLEASE APPROVE']", "any = ['(']"));
  assert.not.ok(set.refresh(), 'a broken save changes nothing in force');
  assert.is(set.effective(), good);
  assert.match(
    notices.at(-1)!,
    /rules refused: .*toyagent.toml:8: rules\[0\]\.any\[0\]: invalid regex '\('.*toyagent 1 stays in force/,
  );
  const st = set.statuses().find((s) => s.path === file)!;
  assert.is(st.version, '1');
  assert.is(st.lastResult, 'refused');
  assert.ok(st.inForce);

  // its own example fails: refused too
  writeFileSync(
    file,
    toy('toyagent', '3').replace('screen = "PLEASE APPROVE"', 'screen = "nothing"'),
  );
  assert.not.ok(set.refresh());
  assert.match(notices.at(-1)!, /examples\[0\]: expected blocked, got idle/);

  writeFileSync(file, toy('toyagent', '4', 'working'));
  assert.ok(set.refresh());
  assert.is(set.effective().get('toyagent')!.rules[0].state, 'working');

  unlinkSync(file);
  assert.ok(set.refresh());
  assert.not.ok(set.effective().has('toyagent'), 'a removed file leaves the set');
});

test('a broken folder file: a process started now uses its last good copy, as running ones do', () => {
  const { base, userDir, cacheDir } = layout();
  const lastGoodDir = join(base, 'state', 'last-good');
  const file = join(userDir, 'qwen.toml');
  writeFileSync(file, toy('qwen', '7', 'idle', 'qwen'));
  const running = new ManifestSet({ userDir, cacheDir, lastGoodDir });
  assert.is(running.effective().get('qwen')!.version, '7');
  assert.is(readFileSync(join(lastGoodDir, 'qwen.toml'), 'utf8'), toy('qwen', '7', 'idle', 'qwen'));
  assert.equal(readdirSync(lastGoodDir), ['qwen.toml'], 'no temporary file left');

  writeFileSync(file, 'schema = 1\nid = "qwen"\n[[rules'); // a broken save
  running.touch(userDir);
  running.refresh();
  assert.is(running.effective().get('qwen')!.version, '7', 'the running process keeps it');
  const started = new ManifestSet({ userDir, cacheDir, lastGoodDir });
  assert.is(started.effective().get('qwen')!.version, '7', 'a new process too, not bundled');
  assert.is(started.sourceOf('qwen'), 'user');
  const st = started.statuses().find((x) => x.path === file)!;
  assert.is(st.lastResult, 'refused');
  assert.ok(st.lastError, 'the error is shown');
  assert.ok(st.inForce);
  assert.match(
    started.notices.map((x) => x.text).join('\n'),
    /qwen 7 \(its last good copy\) stays in force/,
  );
  assert.is(
    readFileSync(join(lastGoodDir, 'qwen.toml'), 'utf8'),
    toy('qwen', '7', 'idle', 'qwen'),
    'the broken file never replaces the copy',
  );
  // A failing example is refused the same way; a good save becomes the new copy.
  writeFileSync(
    file,
    toy('qwen', '8', 'blocked', 'qwen').replace('screen = "PLEASE', 'screen = "NO'),
  );
  assert.is(
    new ManifestSet({ userDir, cacheDir, lastGoodDir }).effective().get('qwen')!.version,
    '7',
  );
  writeFileSync(file, toy('qwen', '9', 'idle', 'qwen'));
  assert.is(
    new ManifestSet({ userDir, cacheDir, lastGoodDir }).effective().get('qwen')!.version,
    '9',
  );
  writeFileSync(file, '[[rules');
  assert.is(
    new ManifestSet({ userDir, cacheDir, lastGoodDir }).effective().get('qwen')!.version,
    '9',
  );
  // Without a kept copy, bundled stays (as before).
  const bundled = new ManifestSet({ userDir, cacheDir });
  assert.is(bundled.sourceOf('qwen'), 'bundled');
});

test('the catalog cache is used only when newer than bundled; the folder beats it', () => {
  const { userDir, cacheDir } = layout();
  const set = new ManifestSet({ userDir, cacheDir });
  const bundledVersion = set.bundled.get('qwen')!.version;
  writeFileSync(join(cacheDir, 'qwen.toml'), toy('qwen', '2000.1.1', 'idle', 'qwen'));
  set.refresh();
  assert.is(set.effective().get('qwen')!.version, bundledVersion, 'older than bundled: ignored');
  writeFileSync(join(cacheDir, 'qwen.toml'), toy('qwen', '2999.1.1', 'idle', 'qwen'));
  set.touch(cacheDir);
  set.refresh();
  assert.is(set.effective().get('qwen')!.version, '2999.1.1');
  assert.is(set.sourceOf('qwen'), 'catalog');
  writeFileSync(join(userDir, 'mine.toml'), toy('qwen', '1', 'idle', 'qwen'));
  set.refresh();
  assert.is(set.sourceOf('qwen'), 'user');
});

test('the status says what is in force now: a catalog copy removed, one not newer than bundled', () => {
  const { userDir, cacheDir } = layout();
  let now = 1_000_000;
  const set = new ManifestSet({ userDir, cacheDir, now: () => now });
  const bundled = `qwen ${set.bundled.get('qwen')!.version} (bundled)`;
  const copy = join(cacheDir, 'qwen.toml');
  writeFileSync(copy, toy('qwen', '2999.1.1', 'idle', 'qwen'));
  set.refresh();
  assert.is(set.status(), 'rules updated: qwen 2999.1.1 (catalog)');
  now += 60_000;
  unlinkSync(copy);
  set.touch(cacheDir);
  assert.ok(set.refresh());
  assert.is(set.sourceOf('qwen'), 'bundled');
  assert.is(set.status(), `rules in force: ${bundled}`, 'not the catalog copy any more');
  assert.not.ok(set.refresh());
  assert.is(set.notices.length, 2, 'told once');
  // a copy read but not newer than bundled: said so at once
  writeFileSync(copy, toy('qwen', '2000.1.1', 'idle', 'qwen'));
  set.touch(cacheDir);
  set.refresh();
  assert.equal(set.notices.slice(-2).map((x) => x.text), [
    'rules updated: qwen 2000.1.1 (catalog)',
    `rules in force: ${bundled}`,
  ]);
  // a file of the person's removed: its id leaves
  writeFileSync(join(userDir, 'toyagent.toml'), toy('toyagent', '1'));
  set.refresh();
  unlinkSync(join(userDir, 'toyagent.toml'));
  set.refresh();
  assert.is(set.status(), 'rules removed: toyagent');
});

test('refused files of the folder stay counted on the status line after their notices expire', () => {
  const { userDir, cacheDir } = layout();
  execFileSync('mkfifo', [join(userDir, 'pipe.toml')]);
  symlinkSync(join(userDir, 'loop-b.toml'), join(userDir, 'loop-a.toml'));
  symlinkSync(join(userDir, 'loop-a.toml'), join(userDir, 'loop-b.toml'));
  writeFileSync(join(userDir, 'big.toml'), '');
  truncateSync(join(userDir, 'big.toml'), 1 << 20);
  writeFileSync(
    join(userDir, 'latin1.toml'),
    Buffer.concat([Buffer.from('name = "caf'), Buffer.from([0xe9, 0x22])]),
  );
  writeFileSync(join(userDir, 'good.toml'), toy('toyagent', '1'));
  let now = 1_000_000;
  const set = new ManifestSet({ userDir, cacheDir, now: () => now });
  assert.is(set.refusedFiles(), 5);
  assert.match(set.status()!, / · 5 manifest files refused: see agentwatch manifests list$/);
  now += 3600_000;
  assert.is(set.status(), '5 manifest files refused: see agentwatch manifests list');
  for (const f of ['pipe', 'loop-a', 'loop-b', 'big']) unlinkSync(join(userDir, `${f}.toml`));
  set.refresh();
  assert.is(set.status(), '1 manifest file refused: see agentwatch manifests list');
  unlinkSync(join(userDir, 'latin1.toml'));
  set.refresh();
  assert.is(set.status(), undefined);
});

test('a folder another user could write is not read', () => {
  const { userDir, cacheDir } = layout();
  writeFileSync(join(userDir, 'qwen.toml'), toy('qwen', '1', 'idle', 'qwen'));
  chmodSync(userDir, 0o777);
  const set = new ManifestSet({ userDir, cacheDir });
  assert.is(set.sourceOf('qwen'), 'bundled');
  assert.match(
    set.notices.at(-1)!.text,
    /user: writable by every user \(mode 777\): its manifests are ignored/,
  );
  chmodSync(userDir, 0o755);
  set.refresh();
  assert.is(set.sourceOf('qwen'), 'user');
});

test('classify and explain take --manifest (repeatable) and name the source and version used', async () => {
  const { base } = layout();
  const env = {
    ...process.env,
    HOME: base,
    XDG_CONFIG_HOME: join(base, 'cfg'),
    XDG_CACHE_HOME: join(base, 'cache'),
    XDG_STATE_HOME: join(base, 'state'),
  };
  const capture = 'fixtures/qwen-code/qwen-code.blocked.raw';
  const bundled = await runCli(['explain', capture], env);
  assert.match(
    bundled.stdout,
    /manifest qwen 2026\.\d+\.\d+ \(bundled: resources\/agent-detection\/qwen\.toml\)/,
  );
  const mine = join(base, 'qwen-mine.toml');
  writeFileSync(
    mine,
    toy('qwen', '7', 'working', 'qwen').replace("any = ['PLEASE APPROVE']", "any = ['Shell']")
      .replace('screen = "PLEASE APPROVE"', 'screen = "Shell"'),
  );
  const other = join(base, 'codex-mine.toml');
  writeFileSync(other, toy('codex', '8', 'idle', 'codex'));
  const ex = await runCli(['explain', '--manifest', mine, '--manifest', other, capture], env);
  assert.is(ex.code, 0, ex.stderr);
  assert.match(
    ex.stdout,
    new RegExp(`manifest qwen 7 \\(--manifest: ${mine.replace(/[/.]/g, '\\$&')}\\)`),
  );
  const cl = await runCli(['classify', '--manifest', mine, '--manifest', other, capture], env);
  assert.match(cl.stdout, /qwen-code\.blocked\.raw +working/);
});

test.after(() => rmSync(root, { recursive: true, force: true }));
test.run();
