/**
 * A blocked spell is published with its dialog (src/runtime/pty-pane.ts): real PTYs, the fake
 * Claude Code of test/support/fake-claude.ts, which can say `OSC 7501 ; state=blocked` before
 * it draws its dialog (as Claude Code 2.1.332 does, and as Qwen Code's title does), and a
 * SessionHost whose periodic sweep never fires: every look is a tick by hand or the pane's own
 * look after output while a blocked waits for its dialog. No sleeps: each step awaits what it
 * caused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SessionHost } from '../src/runtime/host.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { NotifyGate } from '../src/runtime/notify-gate.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import type { Session } from '../src/runtime/session.ts';
import type { PtyPane } from '../src/runtime/pty-pane.ts';
import { until } from './support/until.ts';
import { writeFakeClaude } from './support/fake-claude.ts';
import { REPO_ROOT } from './support/claude-home.ts';

const QUESTION = 'Do you want to proceed?';

interface Setup {
  host: SessionHost;
  session: Session;
  pane: PtyPane;
  /** Every info the host published for the session, in order. */
  infos: SessionInfo[];
  /** Types `keys` into the fake agent and awaits what they draw (`shows`: text, or a test). */
  press(keys: string, shows: (screen: string, osc: string) => boolean): Promise<void>;
  done(): Promise<void>;
}

/** A program the host runs instead of the fake Claude Code, and what its first screen shows. */
interface Agent {
  command: string;
  args: string[];
  ready: (screen: string) => boolean;
}

/**
 * A host (no periodic sweep) running the fake Claude Code (or `agent`), forced to the claude
 * manifest.
 */
async function setup(promptWaitMs: number, agent?: Agent): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'aw-publish-'));
  const manifests = loadBundledManifests();
  const host = new SessionHost({
    manifests: () => manifests,
    foreground: () => null,
    intervalMs: 3_600_000,
    promptWaitMs,
    hooks: false,
    env: { ...process.env, AGENTWATCH_DIR: dir },
  });
  const done = async () => {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const session = await host.start({
      command: agent?.command ?? writeFakeClaude(dir),
      args: agent?.args ?? [],
      name: 'fake',
      agent: 'claude',
      headless: true,
    });
    const pane = host.ptyPane(session.id)!;
    const infos: SessionInfo[] = [];
    host.onPublish((i) => infos.push(i));
    const t = session.terminal;
    const press = async (keys: string, shows: (screen: string, osc: string) => boolean) => {
      session.write(keys);
      await until(
        `keys '${keys}' drawn`,
        () => shows(t.screenText(), t.oscPayload(7501) ?? ''),
        10_000,
      );
    };
    await press('', agent?.ready ?? ((s) => s.includes('READY')));
    return { host, session, pane, infos, press, done };
  } catch (e) {
    await done(); // a set-up that failed leaves no host, agent or folder behind
    throw e;
  }
}

const dialog = (s: string) => s.includes(QUESTION);
const working = (s: string) => s.includes('esc to interrupt') && !dialog(s);

test('blocked said before its dialog is drawn: published once the dialog shows, with its question and options; the notice carries them', async () => {
  const x = await setup(60_000);
  try {
    const gate = new NotifyGate();
    gate.observe(x.host.info(x.session.id), Date.now());
    await x.press('w', working);
    x.host.tick();
    assert.is(x.pane.record.state, 'working');
    await x.press('p', (_, osc) => osc.includes('state=blocked'));
    x.host.tick();
    assert.is(x.pane.record.state, 'blocked', 'OSC 7501 says blocked');
    assert.is(x.infos.filter((i) => i.state === 'blocked').length, 0, 'held: no dialog yet');
    // The dialog is drawn: the pane looks on its own (no tick) and publishes it.
    x.session.write('b');
    const first = await until(
      'the first blocked info',
      () => x.infos.find((i) => i.state === 'blocked'),
      10_000,
    );
    assert.is(first.question, QUESTION);
    assert.equal(first.options, [
      '1. Yes',
      "2. Yes, and don't ask again for touch commands in /home/dev/proj",
      '3. No',
    ]);
    assert.is(first.by, 'osc');
    const notices = x.infos.map((i) => gate.observe(i, Date.now())).filter((n) => n !== null);
    assert.is(notices.length, 1);
    assert.is(notices[0]!.question, QUESTION);
    assert.ok(notices[0]!.content, 'sent with the dialog read');
  } finally {
    await x.done();
  }
});

test('blocked said and no dialog within the wait: published without a question, then again once the dialog shows', async () => {
  const x = await setup(200);
  try {
    await x.press('w', working);
    x.host.tick();
    await x.press('p', (_, osc) => osc.includes('state=blocked'));
    x.host.tick();
    const blind = await until(
      'blocked published once the wait is over',
      () => x.infos.find((i) => i.state === 'blocked'),
      10_000,
    );
    assert.is(blind.question, undefined);
    assert.is(blind.options, undefined);
    await x.press('b', dialog);
    x.host.tick();
    const read = x.infos.at(-1)!;
    assert.is(read.state, 'blocked');
    assert.is(read.question, QUESTION);
  } finally {
    await x.done();
  }
});

test('a blocked said without a dialog that ends within the wait is not published', async () => {
  const x = await setup(60_000);
  try {
    await x.press('w', working);
    x.host.tick();
    await x.press('p', (_, osc) => osc.includes('state=blocked'));
    x.host.tick();
    assert.is(x.pane.record.state, 'blocked');
    // working again, told in-band: the pane's own look after that output reads it
    x.session.write('r');
    await until('working again', () => x.pane.record.state === 'working', 10_000);
    assert.equal(x.infos.map((i) => i.state).filter((s) => s === 'blocked'), []);
  } finally {
    await x.done();
  }
});

test('a dialog erased while the agent still says blocked keeps its prompt in what is published; drawn again, it is a new episode for the typing guard', async () => {
  const x = await setup(60_000);
  try {
    await x.press('w', working);
    x.host.tick();
    await x.press('pb', (s, osc) => dialog(s) && osc.includes('state=blocked'));
    x.host.tick();
    const blocked = x.infos.at(-1)!;
    assert.is(blocked.state, 'blocked');
    assert.is(blocked.question, QUESTION);
    const episode = x.pane.promptEpisode;
    const published = x.infos.length;
    // answered: the dialog is erased, OSC 7501 still says blocked
    await x.press('c', (s) => !dialog(s) && !s.includes('esc to interrupt'));
    x.host.tick();
    assert.is(x.pane.record.state, 'blocked');
    assert.is(x.infos.length, published, 'nothing new to publish');
    assert.is(x.host.info(x.session.id).question, QUESTION);
    // the same dialog again: the same text, but the screen showed it anew
    await x.press('b', dialog);
    x.host.tick();
    assert.ok(x.pane.promptEpisode > episode, 'a new episode: a confirmation does not carry over');
    assert.is(x.infos.length, published, 'the same prompt: nothing new to publish');
    // working, in-band and on screen
    await x.press('rw', (s, osc) => working(s) && osc.includes('state=working'));
    x.host.tick();
    const after = x.infos.at(-1)!;
    assert.is(after.state, 'working');
    assert.is(after.question, undefined);
  } finally {
    await x.done();
  }
});

/**
 * Real Claude Code 2.1.332 output (fixtures/claude-code/claude.working.multiline, then the rest
 * of claude.blocked.multiline), written by a small program: at start the spinner frame under a
 * task of several lines echoed `❯ task-bash alpha` / `  beta` / `  gamma`; Ctrl-A its in-band
 * blocked (what its hook says, before the dialog); Ctrl-B the bytes up to where a PTY read
 * ended with the dialog half drawn (inside Claude Code's synchronized update, which the pane
 * does not read until it ends); Ctrl-E the rest, the dialog whole (control keys: the host's
 * replies to the output's queries reach it as keys too).
 */
function multilineReplay(): Agent {
  const dir = join(REPO_ROOT, 'fixtures', 'claude-code');
  const program = String.raw`
const fs = require('fs');
const before = fs.readFileSync(process.argv[1]);
const whole = fs.readFileSync(process.argv[2]);
const half = Number(process.argv[3]);
if (process.stdin.isTTY) process.stdin.setRawMode(true);
process.stdout.write(before);
let at = before.length;
process.stdin.on('data', (d) => {
  for (const k of d.toString()) {
    if (k === '\x01') process.stdout.write('\x1b]7501;state=blocked:app=claude-code:kind=permission\x07');
    if (k === '\x02' && at < half) { process.stdout.write(whole.subarray(at, half)); at = half; }
    if (k === '\x05') { process.stdout.write(whole.subarray(at)); at = whole.length; }
  }
});`;
  return {
    command: process.execPath,
    args: [
      '-e',
      program,
      join(dir, 'claude.working.multiline.raw'),
      join(dir, 'claude.blocked.multiline.raw'),
      String(MULTILINE_HALF),
    ],
    ready: (s) => /^❯ task-bash alpha\n {2}beta\n {2}gamma$/m.test(s),
  };
}

/** Where a PTY read of the capture ended with the dialog half drawn (test/prompt-claude-drawn.test.ts). */
const MULTILINE_HALF = 5199;

test('Claude Code says blocked under a task of several lines, before its dialog (real bytes): the echoed lines are no prompt; the dialog half drawn, then whole, is one notice', async () => {
  const x = await setup(60_000, multilineReplay());
  try {
    const gate = new NotifyGate();
    gate.observe(x.host.info(x.session.id), Date.now());
    x.host.tick();
    assert.is(x.pane.record.state, 'working');
    await x.press('\x01', (_, osc) => osc.includes('state=blocked'));
    x.host.tick();
    assert.is(x.pane.record.state, 'blocked', 'OSC 7501 says blocked');
    assert.equal(
      x.infos.filter((i) => i.state === 'blocked'),
      [],
      'held: the echoed task is no dialog',
    );
    await x.press('\x02', (s) => /auto mode handle─{8}/.test(s));
    x.host.tick();
    await x.press('\x05', (s) => /^ {3}4\. No$/m.test(s));
    x.host.tick();
    const blocked = await until(
      'the whole dialog published',
      () => x.infos.filter((i) => i.state === 'blocked').find((i) => i.options?.length === 4),
      10_000,
    );
    assert.is(blocked.question, QUESTION);
    for (const i of x.infos.filter((i) => i.state === 'blocked')) {
      assert.is(i.question, QUESTION, JSON.stringify(i));
    }
    const notices = x.infos.map((i) => gate.observe(i, Date.now())).filter((n) => n !== null);
    assert.is(notices.length, 1, JSON.stringify(notices.map((n) => n!.options)));
    assert.is(notices[0]!.action, 'Bash: touch hello.txt');
  } finally {
    await x.done();
  }
});

test.run();
