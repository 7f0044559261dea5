/**
 * The capture driver that recorded opencode-ai 1.18.33's pickers over its composer
 * (fixtures/opencode/marked/ocmenus*.*, 2026-12-02): the command palette (Ctrl-P: `Commands`,
 * a search field, then the commands by group), the same with `new` typed into its search
 * field, the `/` commands list, the model picker (Ctrl-X m), the session list (Ctrl-X l) and
 * the theme picker (`/themes`). It runs the platform binary of an opencode-ai 1.18.33 that
 * was installed outside the project (`npm i --prefix DIR opencode-ai@1.18.33`; opencode is no
 * dependency of agentwatch) in a PTY of ROWSxCOLS, through our own emulator (its replies to
 * opencode's terminal queries written back), against the fake Chat Completions server
 * (fake-openai.ts) on 127.0.0.1, in a throwaway HOME and git project under /tmp/occap. It
 * writes the recording as `agentwatch record` does (`NAME.bytes.jsonl` {t, b64} per PTY read,
 * `.input.jsonl`, `.truth.jsonl` with a mark per screen, `.meta.json`); `agentwatch cut REC
 * --mark N` cuts the fixtures. Readiness is the screen's text (this is a capture tool, not a
 * test: it also waits for output to go quiet before marking, so a mark is a settled frame).
 *
 *   node --import tsx test/support/capture-opencode.ts --capture-opencode OPENCODE_BIN OUT NAME ROWS COLS
 *
 * Importing this module (uvu loads every file under test/) runs nothing.
 */
import { spawn } from 'node-pty';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Terminal } from '../../src/vt/terminal.ts';
import { writeOpencodeHome } from './agent-homes.ts';
import { startFakeOpenAI } from './fake-openai.ts';
import { sleep } from './until.ts';

async function main(args: string[]): Promise<void> {
  const [bin, out, name, rowsArg, colsArg] = args;
  const ROWS = Number(rowsArg);
  const COLS = Number(colsArg);
  const server = await startFakeOpenAI();
  const base = '/tmp/occap';
  const home = join(base, `home-${name}`);
  const proj = join(base, 'proj');
  rmSync(home, { recursive: true, force: true });
  mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
  mkdirSync(proj, { recursive: true });
  writeFileSync(join(proj, 'hello.txt'), 'Helo, world!\n');
  try {
    execFileSync('git', ['init', '-q'], { cwd: proj });
  } catch { /* already one */ }
  writeOpencodeHome(home, server.url);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    LANG: 'C.UTF-8',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_MODELS_PATH: join(home, 'models.json'),
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
  };
  mkdirSync(out, { recursive: true });
  const rec = (ext: string) => join(out, `${name}.${ext}`);
  for (const ext of ['bytes.jsonl', 'input.jsonl', 'truth.jsonl', 'meta.json']) {
    rmSync(rec(ext), { force: true });
  }
  const term = new Terminal(ROWS, COLS);
  const t0 = Date.now();
  const started = new Date(t0).toISOString();
  const now = () => Math.round((Date.now() - t0) / 1000 * 1000) / 1000;
  let lastOut = Date.now();
  const p = spawn(bin, [], { cols: COLS, rows: ROWS, cwd: proj, env, encoding: null });
  let exited: { exitCode: number } | undefined;
  p.onData((d: string | Buffer) => {
    const b = typeof d === 'string' ? Buffer.from(d, 'utf8') : Buffer.from(d);
    lastOut = Date.now();
    appendFileSync(
      rec('bytes.jsonl'),
      JSON.stringify({ t: now(), b64: b.toString('base64') }) + '\n',
    );
    term.write(new Uint8Array(b));
    const r = term.takeReplies();
    if (r) p.write(Buffer.from(r));
  });
  p.onExit((e) => {
    exited = e;
  });
  const keys = (k: string) => {
    p.write(k);
    appendFileSync(rec('input.jsonl'), JSON.stringify({ t: now(), keys: k }) + '\n');
  };
  async function type(s: string) {
    for (const ch of s) {
      keys(ch);
      await sleep(50);
    }
  }
  async function waitScreen(re: RegExp, ms = 60000): Promise<void> {
    const end = Date.now() + ms;
    while (!re.test(term.screenText())) {
      if (Date.now() > end || exited) {
        throw new Error(
          `waitScreen ${re} (exited=${JSON.stringify(exited)})\n${term.screenText()}`,
        );
      }
      await sleep(50);
    }
  }
  async function waitGone(re: RegExp, ms = 60000): Promise<void> {
    const end = Date.now() + ms;
    while (re.test(term.screenText())) {
      if (Date.now() > end || exited) throw new Error(`waitGone ${re}\n${term.screenText()}`);
      await sleep(50);
    }
  }
  async function settle(ms = 1200, maxMs = 6000) {
    const end = Date.now() + maxMs;
    await sleep(200);
    while (Date.now() - lastOut < ms && Date.now() < end) await sleep(50);
  }
  let marks = 0;
  const mark = (state: string, why: string) => {
    appendFileSync(rec('truth.jsonl'), JSON.stringify({ t: now(), state, why }) + '\n');
    marks++;
    console.log(`--- mark ${marks} [${now()}] ${state}: ${why}`);
    console.log(term.screenText().split('\n').filter((l) => l.trim() !== '').join('\n'));
  };
  const ESC = '\x1b';

  await waitScreen(/ctrl\+p commands/, 120000);
  await settle(2000);
  mark('idle', 'start screen, composer empty');
  // the palette on the start screen
  keys('\x10');
  await waitScreen(/Commands/);
  await settle();
  mark('idle', 'command palette (Ctrl-P) over the start screen');
  keys(ESC);
  await waitGone(/ {3,}esc$/m);
  await settle();
  await type('please task-question a1');
  await sleep(300);
  keys('\r');
  await waitScreen(/off-by-one/);
  await waitScreen(/ctrl\+p commands\s*$/);
  await settle(2000);
  mark('idle', 'after a turn: the session view, composer empty');
  keys('\x10');
  await waitScreen(/Commands/);
  await settle();
  mark('idle', 'command palette (Ctrl-P) over the session view');
  await type('new');
  await waitScreen(/^ *new$/m);
  await settle();
  mark('idle', 'command palette with `new` typed into its search field');
  keys(ESC);
  await waitGone(/ {3,}esc$/m);
  await settle();
  await type('/');
  await waitScreen(/┃ \/agents +Switch agent/);
  await settle();
  mark('idle', 'the `/` commands list over the composer');
  keys('\x7f');
  await waitGone(/┃ \/agents/);
  await settle();
  keys('\x18');
  await sleep(100);
  keys('m');
  await waitScreen(/Select model {3,}esc$/m);
  await settle();
  mark('idle', 'model picker (Ctrl-X m)');
  keys(ESC);
  await waitGone(/ {3,}esc$/m);
  await settle();
  keys('\x18');
  await sleep(100);
  keys('l');
  await waitScreen(/Sessions {3,}esc$/m);
  await settle();
  mark('idle', 'session list (Ctrl-X l)');
  keys(ESC);
  await waitGone(/ {3,}esc$/m);
  await settle();
  await type('/themes');
  await waitScreen(/┃ \/themes +Switch theme/);
  await settle();
  keys('\r');
  await waitScreen(/Themes {3,}esc$/m);
  await settle();
  mark('idle', 'theme picker (/themes)');
  keys(ESC);
  await waitGone(/ {3,}esc$/m);
  await settle();
  await type('draft x');
  await waitScreen(/┃ {2}draft x$/m);
  await settle();
  mark('idle', 'back to the composer, `draft x` typed');
  keys('\x03');
  await settle();
  keys('\x03');
  await sleep(500);
  if (!exited) {
    await type('/exit');
    keys('\r');
  }
  const end = Date.now() + 15000;
  while (!exited && Date.now() < end) await sleep(100);
  if (!exited) p.kill();
  writeFileSync(
    rec('meta.json'),
    JSON.stringify(
      {
        agent: 'opencode',
        version: '1.18.33',
        rows: ROWS,
        cols: COLS,
        argv: ['opencode'],
        args: [],
        resizes: [],
        started,
        exit: { t: now(), code: exited?.exitCode ?? null },
      },
      null,
      1,
    ) + '\n',
  );
  await server.close();
}

const at = process.argv.indexOf('--capture-opencode');
if (at >= 0) {
  main(process.argv.slice(at + 1)).then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
