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

/** A host (no periodic sweep) running the fake Claude Code, forced to the claude manifest. */
async function setup(promptWaitMs: number): Promise<Setup> {
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
      command: writeFakeClaude(dir),
      args: [],
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
    await press('', (s) => s.includes('READY'));
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

test.run();
