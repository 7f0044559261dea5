/**
 * The capture driver that made the Qwen Code 0.24.4 and Gemini CLI 0.61.0 fixtures of
 * 2026-12-01 (fixtures/qwen-code/*.v24-*, fixtures/gemini-cli/*.auth, *.trust_level, *.v61-*):
 * runs the real agent (dev dependency) in a PTY of 32x120 against its fake model server on
 * 127.0.0.1 (fake-openai.ts, fake-gemini.ts) in a throwaway HOME under /tmp/awcap, plays a
 * scripted session like a person (typing one key every 45 ms), writes the recording
 * (`recordings/NAME.bytes.jsonl` {t, b64} per PTY read, `.input.jsonl`, `.truth.jsonl`,
 * `.meta.json`) and cuts labelled fixtures (`AGENT.STATE.CASE.raw`, its @xterm/headless
 * `.screen.txt`, an entry in labels.json). The truth is the driver's: what it typed, what the
 * fake server answered (a tool call issued and the dialog painted: blocked), and the screen
 * settling. A fixture is cut from the agent's last full redraw (`CSI 2J CSI 3J CSI H`) with
 * the alternate screen and the title put in front, when that renders the same screen and
 * title as all bytes so far (Qwen Code 0.24 repaints in full); else it holds every byte.
 *
 *   node --import tsx test/support/capture-agent.ts --capture-agent qwen-auto|qwen-flash|gemini-auth|gemini-main
 *
 * `agentwatch record` / `cut` (README "When an agent changes its screens") are the tools for
 * new captures; this driver adds the scripted person and the fake servers' truth. Importing
 * this module (uvu loads every file under test/) runs nothing.
 */
import { spawn } from 'node-pty';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { Terminal } from '../../src/vt/terminal.ts';
import { startFakeOpenAI } from './fake-openai.ts';
import { startFakeGemini } from './fake-gemini.ts';
import type { FakeModelServer, ModelRule } from './fake-model.ts';
import { xtermRender } from './xterm-oracle.ts';

import { REPO_ROOT as REPO } from './claude-home.ts';
import { sleep } from './until.ts';

const which = process.argv[process.argv.indexOf('--capture-agent') + 1] ?? '';

interface Setup {
  folder: string; // fixtures/<folder>
  prefix: string; // fixture file prefix
  name: string; // recording name
  agent: 'qwen' | 'gemini';
  args: string[];
  settings: unknown;
  trusted: boolean;
  env?: Record<string, string | undefined>;
  rules?: ModelRule[];
  rows?: number; // the PTY's size; 32x120 unless given
  cols?: number;
}

const QUOTE_QWEN = [
  'When Qwen Code needs your approval it shows a dialog like this one:',
  '',
  '```',
  '? Shell touch hello.txt (Create an empty hello.txt) ←',
  '',
  "   ⚠ Auto Mode couldn't classify this action. Review it manually.",
  '',
  "Allow execution of: 'touch'?",
  '',
  '› 1. Yes, allow once',
  '  2. Switch to Default Mode and allow once (recommended)',
  '  3. No, suggest changes (esc)',
  '',
  '⠏ Waiting for user confirmation...',
  '```',
  '',
  'Do you want me to run it now?',
].join('\n');

const QUOTE_GEMINI = [
  'The trust dialog of Gemini CLI looks like this:',
  '',
  '```',
  '> Modify Trust Level',
  '',
  'Folder: /tmp/awcap/proj',
  'Current Level: TRUST_FOLDER',
  '',
  '● 1. Trust this folder (proj)',
  '  2. Trust parent folder (awcap)',
  "  3. Don't trust",
  '```',
  '',
  'And the approval dialog:',
  '',
  '```',
  'Allow execution of [Shell]?',
  '● 1. Allow once',
  '  2. Allow for this session',
  '  3. No, suggest changes (esc)',
  '```',
  'Would you like to change the trust level?',
].join('\n');

const quoteRule = (text: string): ModelRule => ({
  name: 'task-quote',
  match: (t) => t.task === 'task-quote' && t.toolResults.length === 0,
  reply: () => ({ text }),
});

const setups: Record<string, Setup> = {
  'qwen-auto': {
    folder: 'qwen-code',
    prefix: 'qwen-code',
    name: 'qwen-code-0.24.4',
    agent: 'qwen',
    args: [],
    settings: { tools: { useRipgrep: false }, ui: { enableUserFeedback: false } },
    trusted: true,
    rules: [quoteRule(QUOTE_QWEN)],
  },
  'qwen-flash': {
    folder: 'qwen-code',
    prefix: 'qwen-code',
    name: 'qwen-code-0.24.4.scrollbar',
    agent: 'qwen',
    args: [],
    settings: { tools: { useRipgrep: false }, ui: { enableUserFeedback: false } },
    trusted: true,
  },
  'qwen-provider': {
    folder: 'qwen-code',
    prefix: 'qwen-code',
    name: 'qwen-code-0.24.4.provider',
    agent: 'qwen',
    args: [],
    settings: { tools: { useRipgrep: false }, ui: { enableUserFeedback: false } },
    trusted: true,
    // first run: no OPENAI_* variables and no auth in settings.json
    env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, OPENAI_MODEL: undefined },
  },
  'qwen-narrow': {
    folder: 'qwen-code-narrow',
    prefix: 'qwen-code',
    name: 'qwen-code-0.24.4.narrow',
    agent: 'qwen',
    args: [],
    settings: { tools: { useRipgrep: false }, ui: { enableUserFeedback: false } },
    trusted: true,
    rows: 8,
    cols: 30,
  },
  'gemini-auth': {
    folder: 'gemini-cli',
    prefix: 'gemini-cli',
    name: 'gemini-cli.auth',
    agent: 'gemini',
    args: [],
    settings: {},
    trusted: true,
    env: { GEMINI_API_KEY: undefined, GOOGLE_GEMINI_BASE_URL: undefined },
  },
  'gemini-main': {
    folder: 'gemini-cli',
    prefix: 'gemini-cli',
    name: 'gemini-cli.trust-level',
    agent: 'gemini',
    args: [],
    settings: { security: { auth: { selectedType: 'gemini-api-key' } } },
    trusted: true,
    rules: [quoteRule(QUOTE_GEMINI)],
  },
};

/** Runs the session `which` names; exits the process when done. */
async function main(): Promise<void> {
  const setup = setups[which];
  if (!setup) throw new Error(`unknown setup ${which}`);
  const server: FakeModelServer = setup.agent === 'qwen'
    ? await startFakeOpenAI({ slowMs: 8000, rules: setup.rules })
    : await startFakeGemini({ slowMs: 8000, rules: setup.rules });
  const root = `/tmp/awcap/${setup.agent}`;
  rmSync(root, { recursive: true, force: true });
  const home = join(root, 'home');
  const proj = join(root, 'proj');
  mkdirSync(join(home, setup.agent === 'qwen' ? '.qwen' : '.gemini'), { recursive: true });
  mkdirSync(proj, { recursive: true });
  writeFileSync(join(proj, 'hello.txt'), 'Helo, world!\n');
  writeFileSync(
    join(proj, 'main.js'),
    'for (let i = 0; i < a.length - 1; i++) console.log(a[i]);\n',
  );
  const dot = setup.agent === 'qwen' ? '.qwen' : '.gemini';
  writeFileSync(join(home, dot, 'settings.json'), JSON.stringify(setup.settings, null, 2));
  if (setup.agent === 'gemini' && setup.trusted) {
    writeFileSync(
      join(home, '.gemini', 'trustedFolders.json'),
      JSON.stringify({ [proj]: 'TRUST_FOLDER' }),
    );
  }
  const env: Record<string, string> = {
    HOME: home,
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    LANG: 'C.UTF-8',
    PATH: process.env.PATH!,
    SHELL: '/bin/bash',
    USER: 'dev',
  };
  if (setup.agent === 'qwen') {
    Object.assign(env, {
      OPENAI_API_KEY: 'sk-fake',
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_MODEL: 'fake-model',
      QWEN_CODE_NO_RELAUNCH: 'true',
    });
  } else {
    Object.assign(env, {
      GEMINI_API_KEY: 'fake',
      GOOGLE_GEMINI_BASE_URL: server.url,
      GEMINI_CLI_NO_RELAUNCH: 'true',
      GEMINI_TELEMETRY_ENABLED: 'false',
    });
  }
  for (const [k, v] of Object.entries(setup.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const version = JSON.parse(
    readFileSync(
      join(
        REPO,
        'node_modules',
        setup.agent === 'qwen' ? '@qwen-code/qwen-code' : '@google/gemini-cli',
        'package.json',
      ),
      'utf8',
    ),
  ).version;

  const recDir = join(REPO, 'fixtures', setup.folder, 'recordings');
  const fixDir = join(REPO, 'fixtures', setup.folder);
  mkdirSync(recDir, { recursive: true });
  const rec = (ext: string) => join(recDir, `${setup.name}.${ext}`);
  for (const ext of ['bytes.jsonl', 'input.jsonl', 'truth.jsonl', 'meta.json']) {
    rmSync(rec(ext), { force: true });
  }

  const ROWS = setup.rows ?? 32;
  const COLS = setup.cols ?? 120;
  const term = new Terminal(ROWS, COLS);
  const chunks: Buffer[] = [];
  const t0 = Date.now();
  const now = () => Math.round((Date.now() - t0) / 1000 * 10000) / 10000;
  let lastOut = Date.now();
  const bin = join(REPO, 'node_modules', '.bin', setup.agent);
  const p = spawn(process.execPath, [bin, ...setup.args], {
    cols: COLS,
    rows: ROWS,
    cwd: proj,
    env,
    encoding: null,
  });
  let exited: { exitCode: number } | undefined;
  p.onData((d: string | Buffer) => {
    const b = typeof d === 'string' ? Buffer.from(d, 'utf8') : Buffer.from(d);
    chunks.push(b);
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

  const input = (o: Record<string, unknown>) =>
    appendFileSync(rec('input.jsonl'), JSON.stringify({ t: now(), ...o }) + '\n');
  const truth = (state: string, why: string) => {
    appendFileSync(rec('truth.jsonl'), JSON.stringify({ t: now(), state, why }) + '\n');
    console.log(`[${now()}] truth ${state}: ${why}`);
  };
  async function typeText(s: string) {
    for (const ch of s) {
      p.write(ch);
      await sleep(45);
    }
    input({ typed: s });
  }
  function key(name: string, bytes: string) {
    p.write(bytes);
    input({ key: name });
  }
  async function waitScreen(re: RegExp, ms = 30000, not?: RegExp): Promise<string> {
    const end = Date.now() + ms;
    for (;;) {
      const s = term.screenText();
      if (re.test(s) && !(not && not.test(s))) return s;
      if (Date.now() > end || exited) {
        throw new Error(
          `waitScreen ${re} failed (exited=${JSON.stringify(exited)})\n${s}\n${server.dump(300)}`,
        );
      }
      await sleep(50);
    }
  }
  async function waitTurns(n: number, ms = 30000) {
    const end = Date.now() + ms;
    while (!server.turns().slice(n).some((e) => /\/tool$/.test(e.rule ?? '') && e.status === 200)) {
      if (Date.now() > end) throw new Error(`waitTurns ${n}\n${server.dump(300)}`);
      await sleep(50);
    }
  }
  const mainTurns = () => server.turns().length;
  /** Waits until the output has been quiet for `ms` (animations excepted: capped at maxMs). */
  async function settle(ms = 1500, maxMs = 4000) {
    const end = Date.now() + maxMs;
    await sleep(300);
    while (Date.now() - lastOut < ms && Date.now() < end) await sleep(50);
  }
  const labelsPath = join(fixDir, 'labels.json');
  /** Renders bytes in a fresh emulator: screen text, title, alternate screen. */
  function render(b: Buffer): string {
    const t = new Terminal(ROWS, COLS);
    t.write(new Uint8Array(b));
    return JSON.stringify([t.screenText(), t.title, t.altScreen]);
  }
  /**
   * The fixture's bytes: from the last full redraw (`CSI 2J CSI 3J CSI H`, inside synchronized
   * output when it is) with the alternate screen and the title put in front, when that renders
   * the same screen, title and buffer as all bytes so far; else all bytes so far.
   */
  function fixtureBytes(): { data: Buffer; from: string } {
    const all = Buffer.concat(chunks);
    let at = all.lastIndexOf('\x1b[2J\x1b[3J\x1b[H');
    if (at < 0) return { data: all, from: 'spawn' };
    const sync = Buffer.from('\x1b[?2026h');
    if (at >= sync.length && all.subarray(at - sync.length, at).equals(sync)) at -= sync.length;
    const pre = (term.altScreen ? '\x1b[?1049h' : '') +
      (term.title ? `\x1b]0;${term.title}\x07\x1b]2;${term.title}\x07` : '');
    const short = Buffer.concat([Buffer.from(pre), all.subarray(at)]);
    if (render(short) !== render(all)) return { data: all, from: 'spawn' };
    return { data: short, from: `full redraw at byte ${at}` };
  }
  const cuts: Array<Record<string, unknown>> = [];
  function cut(state: string, kase: string) {
    const file = `${setup.prefix}.${state}.${kase}.raw`;
    const { data, from } = fixtureBytes();
    cuts.push({
      file,
      state,
      t: now(),
      bytes: data.length,
      from,
      totalBytes: Buffer.concat(chunks).length,
    });
    writeFileSync(join(fixDir, file), data);
    const o = xtermRender(new Uint8Array(data), ROWS, COLS);
    writeFileSync(join(fixDir, file.replace(/\.raw$/, '.screen.txt')), o.rows.join('\n') + '\n');
    const labels = existsSync(labelsPath) ? JSON.parse(readFileSync(labelsPath, 'utf8')) : {};
    labels[file] = setup.rows || setup.cols ? { state, size: `${ROWS}x${COLS}` } : state;
    const sorted = Object.fromEntries(
      Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)),
    );
    writeFileSync(labelsPath, JSON.stringify(sorted, null, 1) + '\n');
    console.log(
      `[${now()}] cut ${file} (${data.length} bytes from ${from}) title=${
        JSON.stringify(term.title.trim())
      }`,
    );
    console.log(term.screenText().split('\n').filter((l) => l.trim() !== '').slice(-14).join('\n'));
  }
  async function prompt(text: string) {
    await typeText(text);
    await sleep(300);
    key('Enter', '\r');
    truth('working', `submitted: ${text}`);
  }

  const COMPOSER = /Type your message or @path\/to\/file/;

  async function qwenAuto() {
    truth('starting', 'spawned');
    await waitScreen(COMPOSER, 60000);
    await settle(2000, 8000);
    truth('idle', 'start-up complete, composer ready');
    cut('idle', 'v24-initial');

    // 1. shell in the default approval mode (auto): the classifier fails -> fallback dialog
    let n = mainTurns();
    await prompt('Please do task-bash round 1.');
    await waitTurns(n);
    await waitScreen(/couldn't classify/);
    await settle();
    truth('blocked', 'shell tool call; auto mode classifier failed: fallback approval dialog');
    cut('blocked', 'v24-classifier');
    await sleep(500);
    key('2', '2'); // switch to default mode and allow once
    truth('working', 'answered 2: switch to Default Mode and allow once');
    await waitScreen(/Touched hello\.txt for round 1\./);
    await waitScreen(COMPOSER, 20000);
    await settle();
    truth('idle', 'final text, composer back');
    cut('idle', 'v24-after_shell');

    // 2. shell approval in default mode
    n = mainTurns();
    await prompt('Please do task-bash round 2.');
    await waitTurns(n);
    await waitScreen(/Allow execution/);
    await settle();
    truth('blocked', 'shell tool call: approval dialog');
    cut('blocked', 'v24-shell');
    await sleep(500);
    key('Enter', '\r');
    truth('working', 'approved (Enter on 1. Yes, allow once)');
    await waitScreen(/Touched hello\.txt for round 2\./);
    await waitScreen(COMPOSER, 20000);
    await settle();
    truth('idle', 'final text');
    cut('idle', 'v24-after_approval');

    // 3. edit approval
    n = mainTurns();
    await prompt('Please do task-write now.');
    await waitTurns(n);
    await waitScreen(/Apply this change|Allow|Yes, allow once/);
    await settle();
    truth('blocked', 'write_file tool call: edit approval dialog');
    cut('blocked', 'v24-edit');
    await sleep(500);
    key('Enter', '\r');
    truth('working', 'approved edit');
    await waitScreen(/Wrote notes\.txt\./);
    await waitScreen(COMPOSER, 20000);
    await settle();
    truth('idle', 'final text');
    cut('idle', 'v24-after_edit');

    // 4. slow turn
    await prompt('Please do task-slow, analyze the project.');
    await sleep(3000);
    cut('working', 'v24-slow');
    await waitScreen(/nothing to change/, 30000);
    await waitScreen(COMPOSER, 20000);
    await settle();
    truth('idle', 'final text after the stall');
    cut('idle', 'v24-after_slow');

    // 5. a question in prose
    await prompt('Please do task-question about main.js.');
    await waitScreen(/regression test\?/);
    await waitScreen(COMPOSER, 20000);
    await settle();
    truth('idle', 'final text ending in a question');
    cut('idle', 'v24-question');

    // 6. a reply quoting the dialog
    await prompt('Please do task-quote, show me the dialog.');
    await waitScreen(/Do you want me to run it now\?/);
    await waitScreen(COMPOSER, 20000);
    await settle();
    truth('idle', 'final text quoting the approval dialog');
    cut('idle', 'v24-quoted');

    // 7. denial
    n = mainTurns();
    await prompt('Please do task-bash round 3.');
    await waitTurns(n);
    await waitScreen(/Allow execution/);
    await settle();
    truth('blocked', 'shell tool call: approval dialog');
    cut('blocked', 'v24-before_deny');
    await sleep(500);
    key('Escape', '\x1b');
    truth('idle', 'denied with Esc');
    await waitScreen(COMPOSER, 20000);
    await settle();
    cut('idle', 'v24-denied');

    // 8. slow tool
    n = mainTurns();
    await prompt('Please do task-slowbash, run the slow benchmark.');
    await waitTurns(n);
    await waitScreen(/Allow execution/);
    await settle();
    truth('blocked', 'slow shell tool call: approval dialog');
    cut('blocked', 'v24-slowtool');
    await sleep(500);
    key('Enter', '\r');
    truth('working', 'approved: the command runs ~8 s');
    await sleep(3500);
    cut('working', 'v24-tool');
    await waitScreen(/slow benchmark finished/, 30000);
    await waitScreen(COMPOSER, 20000);
    await settle();
    truth('idle', 'final text');
    cut('idle', 'v24-after_slowtool');

    // 9. the person types "1. Yes" into the composer (not sent)
    await typeText('1. Yes');
    await settle();
    truth('idle', 'draft "1. Yes" in the composer, not sent');
    cut('idle', 'v24-typed');
    for (let i = 0; i < 6; i++) {
      key('Backspace', '\x7f');
      await sleep(60);
    }
    await settle();

    // 10. a long streamed reply
    await prompt('Please do task-essay on testing.');
    await waitScreen(/point 3\./, 20000);
    await sleep(1500);
    cut('working', 'v24-streaming');
    await waitScreen(/point 60\./, 60000);
    await waitScreen(COMPOSER, 20000);
    await settle();
    truth('idle', 'long reply done');
    cut('idle', 'v24-after_stream');
  }

  async function qwenFlash() {
    truth('starting', 'spawned');
    await waitScreen(COMPOSER, 60000);
    await settle(2000, 8000);
    truth('idle', 'start-up complete, composer ready');
    for (let r = 1; r <= 3; r++) {
      const n = mainTurns();
      await prompt(`Please do task-bash round ${r}.`);
      await waitTurns(n);
      await waitScreen(/Waiting for user confirmation/);
      await sleep(150);
      truth('blocked', 'shell tool call: the dialog just painted (scrollbar flashing)');
      if (r === 3) cut('blocked', 'v24-scrollbar');
      await sleep(700);
      key('Enter', '\r');
      truth('working', 'approved');
      await waitScreen(new RegExp(`Touched hello\\.txt for round ${r}\\.`));
      await waitScreen(COMPOSER, 20000);
      await sleep(150);
      truth('idle', 'final text (scrollbar flashing)');
      if (r === 3) cut('idle', 'v24-scrollbar');
      await settle();
    }
  }

  async function qwenProvider() {
    truth('starting', 'spawned');
    await waitScreen(/Connect a Provider/, 60000);
    await settle(2000, 8000);
    truth(
      'blocked',
      'first run without OPENAI_* variables: the provider dialog waits for a choice',
    );
    cut('blocked', 'v24-provider');
  }

  async function qwenNarrow() {
    truth('starting', 'spawned');
    await waitScreen(/Type your message/, 60000);
    await settle(2000, 8000);
    truth('idle', 'start-up complete in a 30x8 pane: the placeholder wraps');
    cut('idle', 'v24-narrow');
    await typeText('fix the typo in hello');
    await settle();
    truth('idle', 'draft typed into the composer, not sent');
    cut('idle', 'v24-narrow-typed');
    for (let i = 0; i < 'fix the typo in hello'.length; i++) {
      key('Backspace', '\x7f');
      await sleep(45);
    }
    await waitScreen(/Type your message/, 20000);
    await settle();
    truth('idle', 'draft erased');

    // a shell approval in the narrow pane (default approval mode: auto; the classifier fails)
    const n = mainTurns();
    await prompt('Please do task-bash round 1.');
    await waitTurns(n);
    const waiting = () => /^✳/.test(term.title);
    const end = Date.now() + 30000;
    while (!waiting() && Date.now() < end) await sleep(50);
    await settle();
    truth('blocked', 'shell tool call: the approval dialog in an 8x30 pane');
    cut('blocked', 'v24-narrow-shell');
    // The dialog does not fit in 8 rows: only its spinner line shows (`⠏ Waiting for user
    // confirmat` / `i…`), and neither Enter nor Esc answered it there in two tries (the
    // session stays blocked until the pane grows), so the session ends here.
    await sleep(500);
  }

  async function geminiAuth() {
    truth('starting', 'spawned');
    await waitScreen(/How would you like to authenticate|authenticate|Get started/i, 60000);
    await settle(2000, 6000);
    truth('blocked', 'start-up auth dialog: no key and no auth type configured');
    cut('blocked', 'auth');
  }

  async function geminiMain() {
    truth('starting', 'spawned');
    await waitScreen(/\? for shortcuts/, 60000);
    await settle(2000, 8000);
    truth('idle', 'start-up complete');
    cut('idle', 'v61-initial');

    await typeText('/permissions trust');
    await sleep(400);
    key('Enter', '\r');
    await waitScreen(/Modify Trust Level/);
    await settle();
    truth('blocked', '/permissions: Modify Trust Level dialog waits for a choice');
    cut('blocked', 'trust_level');
    key('Escape', '\x1b');
    await waitScreen(/\? for shortcuts/, 20000, /Modify Trust Level/);
    await settle();
    truth('idle', 'dialog closed with Esc');
    cut('idle', 'after_trust_level');

    const n = mainTurns();
    await prompt('Please do task-bash round 1.');
    await waitTurns(n);
    await waitScreen(/Allow execution/);
    await settle();
    truth('blocked', 'shell tool call: approval dialog');
    cut('blocked', 'v61-shell');
    await sleep(500);
    key('Enter', '\r');
    truth('working', 'approved');
    await waitScreen(/Touched hello\.txt for round 1\./);
    await waitScreen(/\? for shortcuts/, 20000);
    await settle();
    truth('idle', 'final text');

    await prompt('Please do task-quote, show me the dialogs.');
    await waitScreen(/change the trust level\?/);
    await waitScreen(/\? for shortcuts/, 20000);
    await settle();
    truth('idle', 'final text quoting the trust and approval dialogs');
    cut('idle', 'v61-quoted');
  }

  try {
    if (which === 'qwen-auto') await qwenAuto();
    else if (which === 'qwen-flash') await qwenFlash();
    else if (which === 'qwen-provider') await qwenProvider();
    else if (which === 'qwen-narrow') await qwenNarrow();
    else if (which === 'gemini-auth') await geminiAuth();
    else await geminiMain();
  } catch (e) {
    console.error(String((e as Error).stack));
  } finally {
    writeFileSync(
      rec('meta.json'),
      JSON.stringify(
        {
          agent: setup.folder,
          version,
          rows: ROWS,
          cols: COLS,
          resizes: [],
          argv: [setup.agent, ...setup.args],
          env: { ...env, PATH: '<PATH>' },
          node: process.version,
          captured: new Date().toISOString(),
          driver: 'capture driver (fake model server on 127.0.0.1)',
          cuts,
        },
        null,
        1,
      ) + '\n',
    );
    writeFileSync(join(root, 'server.log'), server.dump(2000));
    p.kill();
    await server.close();
    process.exit(0);
  }
}

if (process.argv.includes('--capture-agent')) void main();
