/**
 * Claude Code 2.1.332's onboarding "Security notes" (two numbered notes, "Press Enter to
 * continue", no option marked as selected) is blocked but offers no choice: `answer` and the
 * board read no options from it and type nothing (they offered the notes as options, typed
 * '1' and exited 5: the tester's finding). A plain node program in a real PTY hosted by a
 * SessionHost draws the real capture fixtures/claude-code/claude.blocked.onboarding.security.raw
 * and logs the keys it reads; `agentwatch answer` runs as a person does, in a terminal of its
 * own. The theme picker of the same onboarding (an option marked) still reads its options.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHost } from '../src/runtime/default-host.ts';
import { promptOn } from '../src/runtime/typing-guard.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { cli } from './support/cli.ts';
import { until } from './support/until.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/claude-code/', import.meta.url));

/** argv FILE LOG: writes FILE's bytes, then logs `K <hex>` per key read. */
const SHOW = String.raw`
const fs = require('fs');
const [file, log] = process.argv.slice(2);
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => fs.appendFileSync(log, 'K ' + d.toString('hex') + '\n'));
process.stdout.write(fs.readFileSync(file));
`;

test('the onboarding notes: no options read; the theme picker: its options', () => {
  const screen = (file: string) => {
    const t = new Terminal(32, 120);
    t.write(readFileSync(join(FIXTURES, file)));
    return t;
  };
  const notes = promptOn(screen('claude.blocked.onboarding.security.raw'));
  assert.equal(notes.options, []);
  const theme = promptOn(screen('claude.blocked.onboarding.theme.raw'));
  assert.ok(theme.options.length >= 2, JSON.stringify(theme));
  assert.ok(theme.selected >= 0);
});

test('answer on the onboarding notes: refused, nothing typed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-notes-'));
  const env: NodeJS.ProcessEnv = { ...process.env, AGENTWATCH_DIR: dir };
  delete env.AGENTWATCH_SESSION;
  const host = createHost({ intervalMs: 100 }, env);
  try {
    const script = join(dir, 'show.cjs');
    writeFileSync(script, SHOW);
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const session = await host.start({
      command: process.execPath,
      args: [script, join(FIXTURES, 'claude.blocked.onboarding.security.raw'), log],
      name: 'onb',
      agent: 'claude',
      headless: true,
    });
    const w = host.ptyPane(session.id)!;
    await until('the notes, blocked', () => {
      w.classifyNow();
      return w.record.state === 'blocked' && session.terminal.screenText().includes('Security');
    }, 15_000);
    assert.is(w.info().options, undefined, 'no options published');
    const run = await cli(['answer', '--yes', 'onb', '1'], env, { tty: true });
    assert.is(run.code, 3, run.stdout + run.stderr);
    assert.match(run.stderr, /shows no numbered options/);
    // (the log holds the emulator's replies to the capture's terminal queries, not keys)
    const keys = readFileSync(log, 'utf8').split('\n').filter((l) =>
      /^K (3\d|0d|1b5b[ABCD])$/.test(l)
    );
    assert.equal(keys, [], 'no digit, Enter or arrow typed');
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
