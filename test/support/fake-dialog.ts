/**
 * Claude-like permission dialogs as small plain-node programs (they start fast) in real PTYs,
 * for the answer tests (test/answer-confirm.test.ts, test/send-answer.test.ts,
 * test/answer-resize.test.ts): the dialog's
 * drawing, and starting one in a SessionHost until it reads blocked.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionHost } from '../../src/runtime/host.ts';
import type { PtyPane } from '../../src/runtime/pty-pane.ts';
import type { Session } from '../../src/runtime/session.ts';
import { until } from './until.ts';

/**
 * The top of a dialog program (CommonJS source): `fs`, `out` (stdout), `rows`, `cols`, the
 * dialog's three `options`, `selected` (0-based) and `open`, and `draw()`, which clears the
 * screen and draws, at its bottom, Claude Code 2.1.332's Bash permission dialog (`Do you want
 * to proceed?`, `❯` on the selected option; fixtures/claude-code/claude.blocked.screen.txt)
 * while `open`, else the idle input box. The program goes on with its key handling.
 */
export const CLAUDE_DIALOG = String.raw`
const fs = require('fs');
const out = process.stdout;
const rows = out.rows || 32;
const cols = out.columns || 120;
const options = ['Yes', "Yes, and don't ask again for touch commands in /home/dev/proj", 'No'];
let selected = 0;
let open = true;
function draw() {
  const lines = open
    ? ['─'.repeat(cols), ' Bash command', '   touch hello.txt', '', ' Do you want to proceed?',
      ...options.map((o, i) => (i === selected ? ' ❯ ' : '   ') + (i + 1) + '. ' + o), '',
      ' Esc to cancel · Tab to amend']
    : ['─'.repeat(cols), '❯ ', '─'.repeat(cols), '  ⏸ manual mode on · ? for shortcuts'];
  let s = '\x1b[H\x1b[2J● I will create the file.';
  lines.forEach((l, i) => (s += '\x1b[' + (rows - lines.length + i + 1) + ';1H' + l));
  out.write(s);
}
`;

/**
 * Writes `program` (CommonJS source) to `dir/NAME.cjs`, starts it with `args` in `host` as a
 * headless session `name` of `agent` (in a PTY of `rows` x `cols` cells when given, else the
 * host's default size), and waits until its pane reads blocked (20 s; the error then shows the
 * screen and the state's reason).
 */
export async function startDialog(
  host: SessionHost,
  dir: string,
  opts: {
    name: string;
    program: string;
    args: string[];
    agent: string;
    rows?: number;
    cols?: number;
  },
): Promise<{ session: Session; w: PtyPane }> {
  const script = join(dir, `${opts.name}.cjs`);
  writeFileSync(script, opts.program);
  const session = await host.start({
    command: process.execPath,
    args: [script, ...opts.args],
    name: opts.name,
    agent: opts.agent,
    headless: true,
    rows: opts.rows,
    cols: opts.cols,
  });
  const w = host.ptyPane(session.id)!;
  await until('the dialog, blocked', () => {
    w.classifyNow();
    return w.record.state === 'blocked';
  }, 20_000).catch((e) => {
    throw new Error(`${e.message}\n${session.terminal.screenText()}\n${w.record.reason}`);
  });
  return { session, w };
}
