/**
 * `agentwatch explain FILE`: the rendered screen with row numbers, then every rule of the
 * manifest in order with each pattern, whether it matched, and where; then the decision.
 */
import { statSync } from 'node:fs';
import { type Command, type Io, UsageError } from './command.ts';
import { requestOp } from '../runtime/control-client.ts';
import { findSession, NO_SESSION_EXIT } from '../runtime/session-directory.ts';
import { type EndedSession, findEnded } from '../runtime/ended-sessions.ts';
import { UserError } from '../errors.ts';
import { detailOf } from './board/rows.ts';
import { duration } from './format.ts';
import { classifySetup } from './classify.ts';
import { manifestForFile } from './capture-manifest.ts';
import { explain, formatExplain } from '../detect/explain.ts';
import { checkCaptureFile, renderFile } from '../runtime/render-file.ts';
import { printableLines } from './printable.ts';

/** The screen's rows numbered from 1, trailing empty rows cut, with the title and OSC payloads. */
export function numberedScreen(
  snapshot: { rows: readonly string[]; title: string; osc: ReadonlyMap<number, string> },
): string {
  let last = snapshot.rows.length;
  while (last > 0 && snapshot.rows[last - 1] === '') last--;
  const out = snapshot.rows.slice(0, last).map((r, i) => `${String(i + 1).padStart(3)} │${r}`);
  if (last < snapshot.rows.length) {
    out.push(`    │(rows ${last + 1}-${snapshot.rows.length} blank)`);
  }
  out.push(`title: ${JSON.stringify(snapshot.title)}`);
  for (const [n, payload] of [...snapshot.osc].sort((a, b) => a[0] - b[0])) {
    if (n === 0 || n === 2) continue;
    out.push(
      `osc ${n}: ${JSON.stringify(payload.length > 100 ? payload.slice(0, 99) + '…' : payload)}`,
    );
  }
  return out.join('\n') + '\n';
}

/** Explains a live session: its screen, which signal decided its state, the rules, its hook events. */
async function explainSession(key: string, sink: Io): Promise<number> {
  // Everything below came from the session's socket: printed as text, line by line.
  const io = { ...sink, stdout: (t: string) => sink.stdout(printableLines(t)) };
  let info;
  try {
    info = await findSession(key);
  } catch (e) {
    // Gone: the last look kept of a session that ended with nobody watching, if any.
    const ended = e instanceof UserError && e.exitCode === NO_SESSION_EXIT && findEnded(key);
    if (!ended) throw e;
    io.stdout(endedText(ended));
    return 0;
  }
  const x = await requestOp(info.socket, 'explain', {}, 5000);
  const rows = String(x.screen).split('\n');
  io.stdout(`${info.name} (${info.id}): ${info.state}, decided by ${x.decidedBy}: ${x.reason}\n`);
  io.stdout(
    `foreground: ${x.foreground.name || '?'} (${x.foreground.kind}); manifest: ${
      x.manifest ?? 'none'
    }\n`,
  );
  const age = x.report ? ` (${((Date.now() - x.report.at) / 1000).toFixed(1)} s ago)` : '';
  io.stdout(
    `latest report: ${x.report ? `${x.report.state} from ${x.report.source}${age}` : 'none'}\n\n`,
  );
  io.stdout(numberedScreen({ rows, title: '', osc: new Map() }));
  io.stdout('\n' + x.rules);
  if (x.events.length) io.stdout('\nevents:\n' + x.events.map((e) => `  ${e}\n`).join(''));
  return 0;
}

/**
 * What `explain` says of an ended session ({@link EndedSession}): how and when it ended, its
 * command, its last screen numbered, its last events. `now` in ms since the epoch.
 */
export function endedText(ended: EndedSession, now = Date.now()): string {
  const { info } = ended;
  const detail = detailOf(info, now);
  // 'ended by SIGHUP (signal 1)', 'exited with code 1' say it already
  const how = /^(?:ended|exited)\b/.test(detail) ? detail : `ended, ${detail}`;
  const out = [
    `${info.name} (${info.id}): ${how} ${
      duration(now - ended.endedAt)
    } ago; nothing runs in it any more`,
    `command: ${info.command.join(' ')}`,
    '',
    'its last screen:',
  ].join('\n') + '\n';
  const rows = ended.screen.split('\n');
  const screen = rows.some((r) => r.trim() !== '')
    ? numberedScreen({ rows, title: '', osc: new Map() }).replace(/title: ""\n$/, '')
    : '    (blank: it printed nothing)\n';
  const events = ended.events.length
    ? '\nevents:\n' + ended.events.map((e) => `  ${e}\n`).join('')
    : '';
  return out + screen + events;
}

export const explainCommand: Command = {
  name: 'explain',
  summary:
    "show a capture's or a live session's screen, how each rule reads it, which signal decided",
  usage:
    'explain [--agent ID | --manifest FILE] [--size ROWSxCOLS] FILE\n       agentwatch explain SESSION',
  maxArgs: 1,
  options: {
    agent: { type: 'string' },
    manifest: { type: 'string', multiple: true },
    size: { type: 'string' },
  },
  help: {
    agent: 'manifest id (default: the file name prefix)',
    manifest: 'use this manifest file for its agent (repeatable)',
    size: 'screen size in cells (default 32x120)',
  },
  async run(values, positionals, io) {
    if (positionals.length !== 1) throw new UsageError('give exactly one capture FILE or SESSION');
    const file = positionals[0];
    // A name that is no file of this folder is a session's; a directory is never a capture.
    if (!file.includes('/') && !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      return await explainSession(file, io);
    }
    const setup = classifySetup(values);
    await checkCaptureFile(file); // a missing file is named as such, as classify does
    const manifest = manifestForFile(file, setup.manifests, setup.agent, setup.explicit);
    const { terminal } = await renderFile(file, setup.rows, setup.cols);
    const snapshot = terminal.snapshot();
    io.stdout(
      `${file}: ${setup.rows}x${setup.cols} screen, manifest ${manifest.id} ${manifest.version} (${
        setup.explicit === manifest ? '--manifest' : setup.sourceOf(manifest.id)
      }: ${manifest.source})\n`,
    );
    io.stdout(numberedScreen(snapshot));
    io.stdout('\n');
    io.stdout(formatExplain(explain(snapshot, manifest)));
    return 0;
  },
};
