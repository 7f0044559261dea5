/**
 * The catalog against a real HTTP server on 127.0.0.1: a good signed catalog is adopted; then
 * each bad answer keeps the last good manifest and names the error (304, 404, 500, a timeout,
 * a body that never ends, an oversize body, garbage, a wrong content type, a bad signature, a
 * sha256 mismatch, a downgrade, the same version with other content, a failing example, a
 * golden screen that changes state, a catastrophic regex, a too-high min_engine, an unsigned
 * catalog without `catalog_keys = []`). Prints the fetch cost, the adoption time and the worst
 * event-loop lag while a 256 KiB manifest is fetched and validated.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { runCli } from './support/agentwatch-e2e.ts';
import { REPO_ROOT } from './support/claude-home.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeKeyPair, signIndex } from '../src/runtime/catalog-build.ts';
import { takeLock } from '../src/runtime/catalog-cache.ts';
import { pullCatalog, type PullOptions } from '../src/runtime/catalog-updater.ts';
import { ManifestSet } from '../src/runtime/manifest-set.ts';
import { bundledManifestTexts } from '../src/runtime/bundled-manifests.ts';
import { until } from './support/until.ts';
import { bundledGoldenScreens } from '../src/runtime/bundled-golden.ts';
import { evaluate } from '../src/detect/evaluate.ts';

const root = mkdtempSync(join(tmpdir(), 'aw-catalog-'));
const keys = makeKeyPair();
const other = makeKeyPair();

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let routes: Record<string, Handler> = {};
const server: Server = createServer((req, res) => {
  const h = routes[req.url ?? ''];
  if (h) h(req, res);
  else {
    res.writeHead(404).end('not found');
  }
});
let base = '';

const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

/** A toy manifest; `extra` goes at the end. */
function toy(version: string, extra = '', id = 'toyagent'): string {
  return `schema = 1\nid = "${id}"\nname = "Toy"\nversion = "${version}"\nprocess = ["${id}"]\n` +
    `[[rules]]\nstate = "blocked"\nany = ['PLEASE APPROVE']\n` +
    `[[examples]]\nstate = "blocked"\nscreen = "PLEASE APPROVE"\n` + extra;
}

interface Entry {
  id: string;
  body: string;
  version?: string;
  sha256?: string;
  size?: number;
  minEngine?: number;
}

/** Serves a catalog of `entries`, signed with `key` (null: no signature file). */
function serve(entries: Entry[], key: string | null = keys.privatePem, indexExtra = ''): string {
  let index = 'schema = 1\nfuture_key = "ignored"\n' + indexExtra;
  routes = {};
  for (const e of entries) {
    const path = `/m/${e.id}.toml`;
    const version = e.version ?? /version = "([^"]+)"/.exec(e.body)![1];
    index += `\n[[manifests]]\nid = "${e.id}"\npath = "m/${e.id}.toml"\nversion = "${version}"\n` +
      `min_engine = ${e.minEngine ?? 1}\nsha256 = "${e.sha256 ?? sha(e.body)}"\nsize = ${
        e.size ?? Buffer.byteLength(e.body)
      }\nunknown_in_entry = true\n`;
    routes[path] = (_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(e.body);
  }
  const etag = `"${sha(index).slice(0, 16)}"`;
  routes['/index.toml'] = (req, res) => {
    if (req.headers['if-none-match'] === etag) return void res.writeHead(304).end();
    res.writeHead(200, { 'content-type': 'application/toml', etag }).end(index);
  };
  if (key) {
    const sig = signIndex(Buffer.from(index), key);
    // what python's http.server, Apache and GitHub Pages send for .sig (mime-db; tester9)
    routes['/index.toml.sig'] = (_q, res) =>
      res.writeHead(200, { 'content-type': 'application/pgp-signature' }).end(sig);
  }
  return index;
}

let n = 0;
/** A fresh cache folder and manifest set, with toyagent 1 adopted from a good catalog. */
async function primed() {
  const dir = join(root, String(n++));
  const cacheDir = join(dir, 'cache');
  const set = new ManifestSet({ userDir: join(dir, 'user'), cacheDir });
  const opts: PullOptions = {
    url: `${base}/index.toml`,
    keys: [keys.publicKey],
    cacheDir,
    set,
    timeoutMs: 30_000, // a local server, but a loaded machine (1 s ran out once)
    force: true,
  };
  serve([{ id: 'toyagent', body: toy('1') }]);
  const r = await pullCatalog(opts);
  assert.is(r.result, 'adopted', r.error ?? JSON.stringify(r.refused));
  assert.is(set.effective().get('toyagent')!.version, '1');
  return { opts, set, cacheDir };
}

/** The last good manifest is still in force and in the cache. */
function kept(p: Awaited<ReturnType<typeof primed>>): void {
  p.set.refresh();
  assert.is(p.set.effective().get('toyagent')!.version, '1', 'the last good one stays in force');
  assert.match(readFileSync(join(p.cacheDir, 'toyagent.toml'), 'utf8'), /version = "1"/);
}

test.before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test('200: adopted, signed, new agent id; then 304 not modified', async () => {
  const p = await primed();
  assert.is(p.set.sourceOf('toyagent'), 'catalog');
  const again = await pullCatalog(p.opts);
  assert.is(again.result, 'not modified');
  console.log(
    `  catalog pull answered 304: ${again.ms.toFixed(1)} ms, ${again.bytes} bytes of body`,
  );
  const t0 = performance.now();
  serve([{ id: 'toyagent', body: toy('2') }]);
  const r = await pullCatalog(p.opts);
  const ms = performance.now() - t0;
  assert.equal(r.adopted, [{ id: 'toyagent', version: '2' }]);
  assert.is(p.set.effective().get('toyagent')!.version, '2');
  console.log(
    `  catalog pull with one adoption: ${
      ms.toFixed(1)
    } ms, ${r.bytes} bytes fetched (index, signature, manifest)`,
  );
});

for (
  const [what, setup, error, stallMs] of [
    ['404', () => void (routes = {}), /HTTP 404/],
    [
      '500',
      () => void (routes['/index.toml'] = (_q, res) => res.writeHead(500).end('boom')),
      /HTTP 500/,
    ],
    ['timeout', () => void (routes['/index.toml'] = () => {}), /timed out after 1 s/, 1000],
    [
      'a body that never ends',
      () =>
        void (routes['/index.toml'] = (_q, res) => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('schema = 1\n');
        }),
      /timed out after 1 s/,
      1000,
    ],
    [
      'an oversize body (streamed, no length)',
      () =>
        void (routes['/index.toml'] = (_q, res) => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          for (let i = 0; i < 40; i++) res.write('#'.repeat(8192) + '\n');
          res.end();
        }),
      /too large: more than 262144 bytes/,
    ],
    [
      'an oversize body (declared)',
      () =>
        void (routes['/index.toml'] = (_q, res) =>
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 300_000 })
            .end('#'.repeat(300_000))),
      /too large: 300000 bytes/,
    ],
    [
      'garbage (signed, so the index parse is what refuses it)',
      () => {
        const junk = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0x13]);
        routes['/index.toml'] = (_q, res) =>
          res.writeHead(200, { 'content-type': 'text/plain' }).end(junk);
        routes['/index.toml.sig'] = (_q, res) =>
          res.writeHead(200).end(signIndex(junk, keys.privatePem));
      },
      /not UTF-8 text/,
    ],
    [
      'a wrong content type',
      () =>
        void (routes['/index.toml'] = (_q, res) =>
          res.writeHead(200, { 'content-type': 'text/html' }).end('<html>portal</html>')),
      /wrong content type 'text\/html'/,
    ],
    [
      'a bad signature',
      () => void serve([{ id: 'toyagent', body: toy('3') }], other.privatePem),
      /bad signature: index.toml.sig does not verify/,
    ],
    [
      'no signature, catalog_keys not written as []',
      () => void serve([{ id: 'toyagent', body: toy('3') }], null),
      /index.toml.sig: HTTP 404/,
    ],
  ] as Array<[string, () => void, RegExp, number?]>
) {
  test(`${what}: the last good stays, the error is named`, async () => {
    const p = await primed();
    setup();
    // a server that stalls is given 1 s; the others, the time a loaded machine needs
    const r = await pullCatalog({ ...p.opts, timeoutMs: stallMs ?? p.opts.timeoutMs });
    assert.is(r.result, 'failed');
    assert.match(r.error!, error);
    kept(p);
    assert.ok(p.set.notices.some((x) => !x.ok && error.test(x.text)), 'told as a notice');
  });
}

const qwen = bundledManifestTexts()['qwen.toml'];
for (
  const [what, entries, error] of [
    [
      'a sha256 mismatch',
      [{ id: 'toyagent', body: toy('3'), sha256: sha(toy('4')) }],
      /sha256 mismatch/,
    ],
    [
      "a size that is not the index's",
      [{ id: 'toyagent', body: toy('3'), size: 10 }],
      /m\/toyagent\.toml: too large: more than 10 bytes/,
    ],
    ['a downgrade', [{ id: 'toyagent', body: toy('0.9') }], /downgrade: 0.9 is older than 1/],
    [
      'the same version, other content',
      [{ id: 'toyagent', body: toy('1', '# changed\n') }],
      /same version as the one in force \(1\) with other content/,
    ],
    [
      'a failing example',
      [{
        id: 'toyagent',
        body: toy('3', '[[examples]]\nstate = "working"\nscreen = "PLEASE APPROVE"\n'),
      }],
      /examples\[1\]: expected working, got blocked/,
    ],
    [
      'a catastrophic regex',
      [{
        id: 'toyagent',
        body: toy('3').replace("['PLEASE APPROVE']", () => "['^(a+)+\\1$', 'PLEASE APPROVE']"),
      }],
      /rules\[0\]\.any\[0\]: invalid regex '\^\(a\+\)\+\\1\$': invalid escape sequence/,
    ],
    [
      'a regex too big to compile',
      [{
        id: 'toyagent',
        body: toy('3').replace("['PLEASE APPROVE']", "['((a{100}){100}){100}']"),
      }],
      /invalid repeat count/,
    ],
    [
      'a too-high min_engine (index)',
      [{ id: 'toyagent', body: toy('3'), minEngine: 99 }],
      /needs rule engine 99; this agentwatch has engine 4/,
    ],
    ['a too-high min_engine (manifest)', [{
      id: 'toyagent',
      body: toy('3', '').replace('process =', 'min_engine = 99\nprocess ='),
    }], /min_engine: needs rule engine 99/],
    [
      'a golden screen that changes state',
      [{
        id: 'qwen',
        // the bundled qwen rules with a newer version and its blocked rules made 'idle'
        body: qwen.slice(0, qwen.indexOf('\n[[examples]]')).replace(
          /^version = "[^"]+"/m,
          'version = "2999.1.1"',
        )
          .replace(/state = "blocked"/g, 'state = "idle"'),
      }],
      /golden screen qwen-code\/qwen-code\.blocked[^ ]*\.raw is blocked, this manifest reads it as idle/,
    ],
  ] as Array<[string, Entry[], RegExp]>
) {
  test(`${what}: refused, the last good stays, the error is named`, async () => {
    const p = await primed();
    serve(
      [...entries, { id: 'toyagent', body: toy('1') }].filter((e, i, all) =>
        all.findIndex((x) => x.id === e.id) === i
      ),
    );
    const r = await pullCatalog(p.opts);
    assert.is(r.error, null);
    assert.is(r.refused.length, 1, JSON.stringify(r));
    assert.match(r.refused[0].why, error, r.refused[0].why);
    kept(p);
    if (entries[0].id === 'qwen') assert.is(p.set.sourceOf('qwen'), 'bundled');
  });
}

test('an unsigned catalog is accepted only with catalog_keys = [] written', async () => {
  const dir = join(root, 'unsigned');
  const set = new ManifestSet({ cacheDir: join(dir, 'cache') });
  serve([{ id: 'toyagent', body: toy('1') }], null);
  const opts = { url: `${base}/index.toml`, cacheDir: join(dir, 'cache'), set, force: true };
  const refused = await pullCatalog({ ...opts, keys: null });
  assert.match(refused.error!, /no public key to check the catalog with/);
  const ok = await pullCatalog({ ...opts, keys: [] });
  assert.equal(ok.adopted, [{ id: 'toyagent', version: '1' }]);
});

test('an index path with .. or a scheme is refused', async () => {
  const p = await primed();
  const index =
    `schema = 1\n[[manifests]]\nid = "toyagent"\npath = "../etc/passwd"\nversion = "5"\nsha256 = "${
      sha('x')
    }"\nsize = 1\n`;
  routes['/index.toml'] = (_q, res) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end(index);
  routes['/index.toml.sig'] = (_q, res) =>
    res.writeHead(200).end(signIndex(Buffer.from(index), keys.privatePem));
  const r = await pullCatalog(p.opts);
  assert.match(r.error!, /path '\.\.\/etc\/passwd' must be relative/);
  kept(p);
});

test('one fetch at a time: a live lock holder makes others skip; a stale lock is taken', async () => {
  const p = await primed();
  const release = takeLock(p.cacheDir)!;
  assert.ok(release);
  assert.is(takeLock(p.cacheDir), null, 'held by a live process (us)');
  const r = await pullCatalog(p.opts);
  assert.is(r.result, 'skipped');
  release();
  writeFileSync(join(p.cacheDir, 'lock'), '999999999 0\n'); // a dead process's lock
  const again = takeLock(p.cacheDir);
  assert.ok(again, "a dead holder's lock is stale");
  again!();
  // a recent check by another process: skipped without fetching (not forced)
  const skipped = await pullCatalog({ ...p.opts, force: false, intervalMs: 60_000 });
  assert.is(skipped.result, 'skipped');
  assert.is(skipped.bytes, 0);
});

test('failures back off, doubling from 1 min up to the interval, for every process', async () => {
  const p = await primed();
  routes['/index.toml'] = (_q, res) => res.writeHead(500).end('boom');
  const opts = { ...p.opts, intervalMs: 5 * 60_000 };
  const waits: number[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await pullCatalog(opts);
    assert.is(r.result, 'failed');
    waits.push(r.next! - r.at);
  }
  assert.equal(waits, [60_000, 120_000, 240_000, 300_000]);
  let fetched = false;
  routes['/index.toml'] = (_q, res) => {
    fetched = true;
    res.writeHead(500).end();
  };
  const other = await pullCatalog({ ...opts, force: false });
  assert.is(other.result, 'skipped', 'another process waits for the same backoff');
  assert.not.ok(fetched);
  kept(p);
});

test('sweep lag while a 256 KiB manifest is fetched and validated', async () => {
  const p = await primed();
  // 200 rules of about 1.2 KB patterns, plus examples: just under the 256 KiB cap
  let rules = '';
  for (let i = 0; i < 200; i++) {
    rules += `[[rules]]\nstate = "idle"\nany = ['${`word${i} `.repeat(1)}${
      '(?:alpha|beta|gamma) '.repeat(55)
    }']\n`;
  }
  let body = toy('9').replace('[[examples]]', rules + '[[examples]]');
  while (Buffer.byteLength(body) < 250 * 1024) body += `# ${'padding '.repeat(15)}\n`;
  assert.ok(Buffer.byteLength(body) <= 256 * 1024);
  serve([{ id: 'toyagent', body }]);
  // Two figures per gap between 5 ms ticks: the wall-clock lag (includes time the OS gave
  // other processes: this machine is shared) and the CPU time this process spent in it (our
  // own stall: the longest run of work the sweep had to wait for).
  let worst = 0;
  let worstCpu = 0;
  let last = performance.now();
  let cpu = process.cpuUsage();
  const gap = () => {
    const t = performance.now();
    const used = process.cpuUsage(cpu);
    worst = Math.max(worst, t - last - 5);
    worstCpu = Math.max(worstCpu, (used.user + used.system) / 1000);
    last = t;
    cpu = process.cpuUsage();
  };
  const tick = setInterval(gap, 5);
  const t0 = performance.now();
  const r = await pullCatalog(p.opts);
  const ms = performance.now() - t0;
  assert.equal(r.adopted, [{ id: 'toyagent', version: '9' }], JSON.stringify(r));
  // and a second one over it (the large one in force is compared, not parsed again)
  const body2 = body.replace('version = "9"', 'version = "9.1"');
  serve([{ id: 'toyagent', body: body2 }]);
  const r2 = await pullCatalog(p.opts);
  clearInterval(tick);
  assert.equal(r2.adopted, [{ id: 'toyagent', version: '9.1' }], JSON.stringify(r2));
  console.log(
    `  ${Buffer.byteLength(body)} byte manifest: pulled and adopted in ${ms.toFixed(0)} ms (then ` +
      `one over it); ` +
      `worst event-loop (sweep) lag meanwhile ${worst.toFixed(1)} ms wall, ${
        worstCpu.toFixed(1)
      } ms of our own CPU`,
  );
  // Another process (a set that only reads the cache) reloads it without a long stall.
  const reader = new ManifestSet({ cacheDir: join(p.cacheDir, '..', 'cache'), yielding: true });
  assert.is(reader.effective().get('toyagent')!.version, '9.1', 'read at start');
  writeFileSync(join(p.cacheDir, 'toyagent.toml'), body.replace('version = "9"', 'version = "10"'));
  worst = 0;
  worstCpu = 0;
  last = performance.now();
  cpu = process.cpuUsage();
  const tick2 = setInterval(gap, 5);
  const t1 = performance.now();
  reader.refresh();
  await until(
    'the reload',
    () => {
      reader.refresh();
      return reader.effective().get('toyagent')!.version === '10';
    },
    20_000,
    5,
  );
  clearInterval(tick2);
  console.log(
    `  another process reloads it from the cache in ${(performance.now() - t1).toFixed(0)} ms; ` +
      `worst event-loop (sweep) lag meanwhile ${worst.toFixed(1)} ms wall, ${
        worstCpu.toFixed(1)
      } ms of our own CPU`,
  );
});

test('manifests pull prints what was adopted and what was refused and why', async () => {
  const dir = join(root, 'pull-cli');
  mkdirSync(join(dir, 'config', 'agentwatch'), { recursive: true });
  writeFileSync(
    join(dir, 'config', 'agentwatch', 'config.toml'),
    `catalog_url = "${base}/index.toml"\ncatalog_keys = ["${keys.publicKey}"]\n`,
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_STATE_HOME: join(dir, 'state'),
  };
  delete env.AGENTWATCH_MANIFEST_URL;
  serve([{ id: 'toyagent', body: toy('1') }, {
    id: 'other',
    body: toy('1', '', 'other'),
    minEngine: 7,
  }]);
  const r = await runCli(['manifests', 'pull'], env);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /index\.toml: adopted \(\d+ bytes, \d+ ms\)\n/);
  assert.match(r.stdout, /\nadopted {2}toyagent 1\n/);
  assert.match(
    r.stdout,
    /\nrefused {2}other 1: needs rule engine 7; this agentwatch has engine 4\n/,
  );
  const list = await runCli(['manifests', 'list'], env);
  assert.match(list.stdout, /toyagent +1 +catalog +yes/);
  assert.match(
    list.stdout,
    // the time of day, or date and time when the check was on another day (a run at midnight)
    /catalog: http:\/\/127\.0\.0\.1:\d+\/index\.toml \(.*config\.toml:1\); last check (\d{4}-\d\d-\d\dT\d\d:\d\d|\d\d:\d\d:\d\d): adopted\n/,
  );
  // The refusal is listed (tester: `last error: none` right after a refusal), with what is in
  // force instead, until the catalog's file is fixed.
  assert.match(
    list.stdout,
    /\ncatalog refused: other 1: needs rule engine 7; this agentwatch has engine 4; no other manifest is in force\n/,
  );
  assert.not.match(list.stdout, /last error: none/);
  // A toyagent 2 that fails its example: refused, toyagent 1 stays in force, and list says so.
  serve([{ id: 'toyagent', body: toy('2').replace('screen = "PLEASE APPROVE"', 'screen = "no"') }]);
  const broken = await runCli(['manifests', 'pull'], env);
  assert.match(broken.stdout, /\nrefused {2}toyagent 2: .*examples\[0\]: expected blocked/);
  const listed = await runCli(['manifests', 'list'], env);
  assert.match(
    listed.stdout,
    /\ncatalog refused: toyagent 2: .*examples\[0\]: expected blocked, got \w+.*; toyagent 1 \(catalog\) stays in force\n/,
  );
  assert.not.match(listed.stdout, /catalog refused: other/, 'gone from the index: not refused');
  // The catalog cannot be read: its error is listed, and the refusal still stands.
  routes = {};
  const failed = await runCli(['manifests', 'pull'], env);
  assert.is(failed.code, 1);
  assert.match(failed.stderr, /manifests pull: http:\/\/127\.0\.0\.1:\d+\/index\.toml: HTTP 404/);
  const down = await runCli(['manifests', 'list'], env);
  assert.match(
    down.stdout,
    /: failed; error: http:\/\/127\.0\.0\.1:\d+\/index\.toml: HTTP 404 Not Found\n/,
    down.stdout,
  );
  assert.match(down.stdout, /\ncatalog refused: toyagent 2: /);
  // Fixed: adopted, and no refusal is listed any more.
  serve([{ id: 'toyagent', body: toy('2') }]);
  const fixed = await runCli(['manifests', 'pull'], env);
  assert.match(fixed.stdout, /\nadopted {2}toyagent 2\n/);
  const clean = await runCli(['manifests', 'list'], env);
  assert.match(clean.stdout, /toyagent +2 +catalog +yes/);
  assert.not.match(clean.stdout, /refused/);
});

test('npm run catalog: bad input is one line naming what and where, exit 1 (2 for usage), nothing written', () => {
  const dir = join(root, 'bad-catalog');
  mkdirSync(join(dir, 'empty'), { recursive: true });
  mkdirSync(join(dir, 'broken'), { recursive: true });
  writeFileSync(join(dir, 'broken', 'toy.toml'), toy('1') + 'this is [ broken\n');
  writeFileSync(join(dir, 'not-a-key.pem'), 'hello\n');
  writeFileSync(join(dir, 'file'), 'x');
  const out = join(dir, 'site');
  const catalog = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'catalog.ts', ...args], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
  const cases: Array<[string[], number, RegExp]> = [
    [
      ['--key', join(dir, 'missing.key'), '--out', out],
      1,
      /--key \S+missing\.key: no such file or folder$/,
    ],
    [
      ['--key', join(dir, 'not-a-key.pem'), '--out', out],
      1,
      /--key \S+not-a-key\.pem: not a private key in PEM/,
    ],
    [['--key', dir, '--out', out], 1, /--key \S+bad-catalog: a folder, not a file$/],
    [['--unsigned', '--from', join(dir, 'nowhere'), '--out', out], 1, /\S+nowhere: no such folder/],
    [
      ['--unsigned', '--from', join(dir, 'empty'), '--out', out],
      1,
      /\S+empty: no \*\.toml manifest in this folder$/,
    ],
    [
      ['--unsigned', '--from', join(dir, 'broken'), '--out', out],
      1,
      /\S+broken\/toy\.toml:\d+: TOML syntax error/,
    ],
    [
      ['--unsigned', '--out', join(dir, 'file', 'site')],
      1,
      /\S+file\/site\/manifests: a part of the path is not a folder/,
    ],
    [['--bogus'], 2, /Unknown option '--bogus'/],
    [['--unsigned', 'extra'], 2, /Unexpected argument 'extra'/],
    [[], 2, /give --key PRIVATE-KEY\.pem, or --unsigned/],
  ];
  for (const [args, code, message] of cases) {
    const r = catalog(...args);
    const what = args.join(' ');
    assert.is(r.status, code, `${what}: ${r.stderr}`);
    const lines = r.stderr.trimEnd().split('\n');
    assert.match(lines[0], /^npm run catalog: /, what);
    assert.match(lines[0], message, what);
    assert.ok(
      lines.length <= (code === 2 ? 2 : 1),
      `${what}: one line (and the usage): ${r.stderr}`,
    );
    assert.not.match(r.stderr, /\n\s+at /, `${what}: no stack trace`);
    assert.is(r.stdout, '', what);
  }
  assert.throws(() => statSync(out), /ENOENT/, 'nothing written');
});

test('golden screens: every labelled capture (sizes from labels.json), all read right by the bundled manifests', async () => {
  const screens = await bundledGoldenScreens();
  assert.ok(screens.length >= 60, `${screens.length} screens`);
  assert.ok(screens.some((g) => g.rows.length === 24), 'a 24x80 capture rendered at its size');
  const bundled = new ManifestSet({}).bundled;
  for (const g of screens) {
    const m = [...bundled.values()].find((x) =>
      g.prefix === x.id || g.prefix.startsWith(x.id + '-')
    );
    assert.ok(m, `${g.file}: no bundled manifest`);
    const input = { rows: g.rows, wrapped: g.wrapped, title: g.title, osc: new Map(g.osc) };
    assert.is(evaluate(input, m).state, g.label, g.file);
  }
});

test('keygen + npm run catalog: the bundled rules as a signed file:// catalog are all in force already', async () => {
  const dir = join(root, 'build');
  const kg = await runCli(['manifests', 'keygen', join(dir, 'k')], { ...process.env });
  assert.is(kg.code, 1, 'no folder yet: refused');
  mkdirSync(dir, { recursive: true });
  const made = await runCli(['manifests', 'keygen', join(dir, 'k')], { ...process.env });
  assert.is(made.code, 0, made.stderr);
  assert.is(statSync(join(dir, 'k.key')).mode & 0o777, 0o600);
  const pub = readFileSync(join(dir, 'k.pub'), 'utf8').trim();
  assert.match(made.stdout, new RegExp(`catalog_keys = \\["${pub.replace(/[+/]/g, '\\$&')}"\\]`));
  const again = await runCli(['manifests', 'keygen', join(dir, 'k')], { ...process.env });
  assert.match(again.stderr, /exists already \(nothing overwritten\)/);
  const out = join(dir, 'site');
  const npm = spawnSync(process.execPath, [
    '--import',
    'tsx',
    'catalog.ts',
    '--key',
    join(dir, 'k.key'),
    '--out',
    out,
  ], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  assert.is(npm.status, 0, npm.stderr);
  assert.match(npm.stdout, /index\.toml with 5 manifests, index\.toml\.sig/);
  const set = new ManifestSet({ cacheDir: join(dir, 'cache') });
  const opts = {
    url: pathToFileURL(join(out, 'index.toml')).href,
    cacheDir: join(dir, 'cache'),
    set,
    force: true,
  };
  const r = await pullCatalog({ ...opts, keys: [pub] });
  assert.is(r.result, 'up to date', JSON.stringify(r));
  assert.equal(r.refused, []);
  const wrongKey = await pullCatalog({ ...opts, keys: [keys.publicKey] });
  assert.match(wrongKey.error!, /bad signature/);
});

test.after(() => {
  server.close();
  server.closeAllConnections?.();
  rmSync(root, { recursive: true, force: true });
});
test.run();
