/**
 * `agentwatch ls [--json]`: every live session on this machine with its state; then, in text,
 * the sessions that ended (ended-sessions.ts: detached or `run` ones), how, and their last
 * screen's last row, quoted.
 * Exit 6 (`NO_ANSWER_EXIT`), after the list, when sessions did not answer within 10 s: stderr
 * names their ids.
 */
import type { Command } from './command.ts';
import { basename } from 'node:path';
import { INFO_PATIENCE_MS, surveySessions } from '../runtime/session-directory.ts';
import { NO_ANSWER_EXIT } from '../runtime/control-client.ts';
import { duration, fit, padCells } from './format.ts';
import { ageless, printable } from './printable.ts';
import { detailOf } from './board/rows.ts';
import { ENDED_BOUND_TEXT, lastScreenNote, listEnded } from '../runtime/ended-sessions.ts';

export const lsCommand: Command = {
  name: 'ls',
  summary: 'list the sessions on this machine and their states',
  usage: 'ls [--json]',
  maxArgs: 0,
  options: { json: { type: 'boolean' } },
  help: { json: 'print a JSON array of session infos' },
  async run(values, _positionals, io) {
    const { infos: sessions, unanswered } = await surveySessions(undefined, INFO_PATIENCE_MS);
    // A live session whose host is slow is not listed, and not left out in silence either.
    const silent = () => {
      if (!unanswered.length) return 0;
      io.stderr(
        `agentwatch ls: ${unanswered.length} session(s) did not answer within ${
          INFO_PATIENCE_MS / 1000
        } s (their host is busy or stopped), not listed: ${
          unanswered.map((p) => printable(basename(p, '.sock'))).join(', ')
        }\n`,
      );
      return NO_ANSWER_EXIT;
    };
    if (values.json === true) {
      io.stdout(JSON.stringify(sessions, null, 2) + '\n');
      return silent();
    }
    const live = new Set(sessions.map((s) => s.id));
    const ended = listEnded().filter((e) => !live.has(e.info.id));
    if (!sessions.length && !unanswered.length) {
      io.stdout(
        "no sessions (start one with 'agentwatch run -- CMD' or 'agentwatch watch -- CMD')\n",
      );
    }
    const now = Date.now();
    // An id is never cut: it is what kill, send and answer take.
    const idW = Math.max(
      20,
      ...sessions.map((s) => printable(s.id).length),
      ...ended.map((e) => printable(e.info.id).length),
    );
    if (sessions.length) {
      io.stdout(
        `${'SESSION'.padEnd(idW)} ${'AGENT'.padEnd(9)} ${'STATE'.padEnd(8)} ${
          'FOR'.padEnd(7)
        } DETAIL\n`,
      );
    }
    for (const s of sessions) {
      // Texts from sessions are made printable: a name or question may hold escape sequences.
      // In a person's words, as on the board (how a rule decided is `explain`'s); an age
      // written in a reason is dropped, times are computed now.
      const detail = ageless(printable(detailOf(s, now)));
      const id = printable(s.id);
      const agent = printable(s.agent) || '-';
      io.stdout(
        `${id.padEnd(idW)} ${padCells(agent, 9)} ${s.state.padEnd(8)} ${
          duration(now - s.since).padEnd(7)
        } ${fit(detail, 60)}\n`,
      );
    }
    if (!ended.length) return silent();
    io.stdout(
      `\nended (${ENDED_BOUND_TEXT}; 'agentwatch explain SESSION' shows its last screen):\n`,
    );
    for (const { info, screen, endedAt } of ended.reverse()) {
      // Not cut to 60 as a live row: the quoted last row (at most 80) is why it ended.
      const last = lastScreenNote(screen);
      const detail = printable(detailOf(info, now)) + (last ? ` · ${printable(last)}` : '');
      io.stdout(
        `${printable(info.id).padEnd(idW)} ${padCells(printable(info.agent) || '-', 9)} ${
          'ended'.padEnd(8)
        } ${(duration(now - endedAt) + ' ago').padEnd(7)} ${fit(detail, 120)}\n`,
      );
    }
    return silent();
  },
};
