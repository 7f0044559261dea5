/**
 * Resizing a pane while its prompt shows announces that prompt once, not once per resize (the
 * tester: Qwen Code 0.24.4 redraws its dialog at every resize, 6 notices in 9 s for one
 * prompt). A Claude-like Bash dialog (a plain node program in a real PTY hosted by a
 * SessionHost, rules from the bundled claude.toml) wraps its long command at the pane's width
 * and draws again on every resize; every info the host publishes goes through the notifier's
 * gate, as `run` and `watch` do.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHost } from '../src/runtime/default-host.ts';
import { type Notice, NotifyGate } from '../src/runtime/notify-gate.ts';
import { until } from './support/until.ts';

/** The dialog, its command wrapped at the width; drawn again on every resize. */
const DIALOG = String.raw`
const out = process.stdout;
const command = 'touch hello.txt && echo one two three four five six seven eight nine ten';
function draw() {
  const rows = out.rows || 32;
  const cols = out.columns || 120;
  const wrapped = [];
  for (let i = 0; i < command.length; i += cols - 4) wrapped.push('   ' + command.slice(i, i + cols - 4));
  const lines = ['─'.repeat(cols), ' Bash command', ...wrapped, '   Run the commands', '',
    ' Do you want to proceed?', ' ❯ 1. Yes', '   2. No', '', ' Esc to cancel · Tab to amend'];
  let s = '\x1b[H\x1b[2J● I will run it.';
  lines.forEach((l, i) => (s += '\x1b[' + (rows - lines.length + i + 1) + ';1H' + l));
  out.write(s);
}
process.stdin.setRawMode(true);
process.stdin.on('data', () => {});
out.on('resize', draw);
draw();
`;

test('a prompt redrawn at three other widths is announced once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-notify-resize-'));
  const host = createHost({ intervalMs: 100 }, { ...process.env, AGENTWATCH_DIR: dir });
  const gate = new NotifyGate();
  const notices: Notice[] = [];
  host.onPublish((info) => {
    const n = gate.observe(info, Date.now());
    if (n) notices.push(n);
  });
  try {
    const script = join(dir, 'dialog.cjs');
    writeFileSync(script, DIALOG);
    const session = await host.start({
      command: process.execPath,
      args: [script],
      name: 'wrap',
      agent: 'claude',
      headless: true,
    });
    const w = host.ptyPane(session.id)!;
    const details = () => {
      w.classifyNow();
      return w.record.state === 'blocked' ? (w.info().details ?? []).join('|') : '';
    };
    await until('the dialog, blocked', () => details().includes('touch hello.txt'), 30_000);
    await until('its notice', () => notices.length === 1, 30_000);
    // The dialog's own redraw at each width, not our screen's cut of the previous one: its
    // command's first line holds exactly cols - 4 characters (all of it when it fits).
    const command = 'touch hello.txt && echo one two three four five six seven eight nine ten';
    for (const cols of [60, 50, 120]) {
      w.resize(32, cols);
      const line = command.slice(0, cols - 4);
      await until(`the dialog redrawn at ${cols} columns`, () => {
        const now = details();
        return now.includes(line) &&
          (line.length === command.length || !now.includes(command.slice(0, cols - 3)));
      }, 30_000);
    }
    assert.is(notices.length, 1, notices.map((n) => n.action).join('\n'));
    assert.match(notices[0].action, /^Bash: /);
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
