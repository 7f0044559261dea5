/**
 * The last look at sessions that ended (a `run --detach`, a `run` in a terminal, or a
 * board's `n` session whose agent exited: its host lets it go at once, and ends when it was
 * its last): how it ended and its last screen, kept in `ended/ID.json` of the socket folder so
 * that `ls`, `explain SESSION` and the board can still say why, after its host is gone.
 *
 * Bounded: the visible rows only (at most {@link MAX_SCREEN} characters) and the session's last
 * {@link MAX_EVENTS} events, for {@link ENDED_KEEP_MS} at most and the newest
 * {@link MAX_ENDED} sessions; older records are removed by the next write or read. A record is
 * removed when forgotten ({@link forgetEnded}: the board's `x`). The folder is in the checked
 * socket folder (private, ours); files are written atomically with mode 0600, and only regular
 * files of ours are read or removed.
 */
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { checkSocketDir, socketDir } from './paths.ts';
import { sessionInfoOf } from './control-client.ts';
import type { SessionInfo } from './protocol.ts';
import { UserError } from '../errors.ts';
import { AMBIGUOUS_SESSION_EXIT } from './session-directory.ts';

/**
 * How long an ended session's record is kept, ms: a day, so that a person who comes back after
 * lunch, or the next morning, still sees that it ended and how (an hour was too short).
 */
export const ENDED_KEEP_MS = 24 * 60 * 60_000;
/** How many ended sessions are kept at most (the newest), whatever their age. */
export const MAX_ENDED = 50;
/** How {@link ENDED_KEEP_MS} and {@link MAX_ENDED} read for a person: 'kept: the newest 50, for 24 h'. */
export const ENDED_BOUND_TEXT = `kept: the newest ${MAX_ENDED}, for ${ENDED_KEEP_MS / 3_600_000} h`;
/** The longest last row shown after an ended session's detail, in characters. */
const MAX_LAST_ROW = 80;
/** The longest screen kept, in UTF-16 code units (a 32x120 screen is under 4,000). */
export const MAX_SCREEN = 64 * 1024;
/** How many of its last events are kept. */
export const MAX_EVENTS = 40;
/** The largest record file read, bytes. */
const MAX_FILE = 256 * 1024;

/** An ended session as kept: its last info (with `exit`), its last screen and events. */
export interface EndedSession {
  info: SessionInfo;
  /** The visible rows when it ended, joined by '\n', trailing blank rows cut. */
  screen: string;
  events: string[];
  /** When it was recorded, ms since the epoch. */
  endedAt: number;
}

/** The folder of ended sessions' records in socket folder `dir`. */
export function endedDir(dir = socketDir()): string {
  return join(dir, 'ended');
}

/** The last non-blank lines of `screen` (at most `n`), trailing spaces cut. */
export function lastLines(screen: string, n = 3): string[] {
  const rows = screen.split('\n').map((r) => r.trimEnd()).filter((r) => r.trim() !== '');
  return rows.slice(-n);
}

/**
 * How an ended session's last screen is quoted after its detail (board, `ls`): its last
 * non-blank row, runs of blanks made one space (a row is padded to the screen's width, and a
 * status line spreads its parts across it), cut to {@link MAX_LAST_ROW} characters, marked as
 * the dead screen's text (`last screen: "Error: no API key"`): a key hint drawn there ("Esc to
 * cancel") is not an instruction to the person. '' for a blank screen.
 */
export function lastScreenNote(screen: string): string {
  const row = lastLines(screen, 1)[0]?.replace(/\s+/g, ' ').trim();
  if (!row) return '';
  const cut = row.length > MAX_LAST_ROW ? row.slice(0, MAX_LAST_ROW - 1) + '…' : row;
  return `last screen: "${cut}"`;
}

/**
 * Keeps `ended` in socket folder `dir` (which must exist and pass its check; the `ended`
 * folder is made, mode 0700), then removes records past {@link ENDED_KEEP_MS} or beyond the
 * newest {@link MAX_ENDED}. Never throws: a record that cannot be written is only a lost look.
 */
export function saveEnded(ended: EndedSession, dir = socketDir()): void {
  try {
    if (!checkSocketDir(dir)) return;
    const folder = endedDir(dir);
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (!ownFolder(folder)) return;
    let screen = ended.screen.split('\n').map((r) => r.trimEnd()).join('\n').trimEnd();
    if (screen.length > MAX_SCREEN) screen = screen.slice(-MAX_SCREEN);
    const record: EndedSession = {
      info: { ...ended.info, question: undefined, options: undefined, details: undefined },
      screen,
      events: ended.events.slice(-MAX_EVENTS),
      endedAt: ended.endedAt,
    };
    const file = join(folder, `${safeId(ended.info.id)}.json`);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(record), { mode: 0o600 });
    renameSync(tmp, file);
    listEnded(dir);
  } catch {
    // not kept: ls and explain only lose this look back
  }
}

/**
 * The ended sessions kept in socket folder `dir`, oldest first; expired ones and those beyond
 * the newest {@link MAX_ENDED} are removed on the way. Malformed or foreign files are skipped.
 * None when the folder does not exist.
 * @throws UserError when the socket folder fails its check.
 */
export function listEnded(dir = socketDir(), now = Date.now()): EndedSession[] {
  if (!checkSocketDir(dir)) return [];
  const folder = endedDir(dir);
  if (!ownFolder(folder)) return [];
  let names: string[];
  try {
    names = readdirSync(folder).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const out: { ended: EndedSession; path: string }[] = [];
  for (const name of names) {
    const path = join(folder, name);
    const ended = readRecord(path);
    if (!ended) continue;
    if (now - ended.endedAt > ENDED_KEEP_MS) remove(path);
    else out.push({ ended, path });
  }
  out.sort((a, b) => a.ended.endedAt - b.ended.endedAt);
  while (out.length > MAX_ENDED) remove(out.shift()!.path);
  return out.map((o) => o.ended);
}

/**
 * The ended session `key` names (exact id or name first, else the only id it starts; the
 * newest of several with that name), or undefined.
 * @throws UserError (exit code {@link AMBIGUOUS_SESSION_EXIT}) when `key` is a prefix of
 *   several ids.
 */
export function findEnded(key: string, dir = socketDir()): EndedSession | undefined {
  if (!key.trim()) return undefined;
  const all = listEnded(dir);
  const exact = all.filter((e) => e.info.id === key || e.info.name === key);
  if (exact.length) return exact[exact.length - 1];
  const found = all.filter((e) => e.info.id.startsWith(key));
  if (found.length > 1) {
    throw new UserError(
      `'${key}' matches ${found.length} ended sessions: ${
        found.map((e) => e.info.id).join(', ')
      } (give more of the id)`,
      AMBIGUOUS_SESSION_EXIT,
    );
  }
  return found[0];
}

/** Removes the record of ended session `id`, if kept. Never throws. */
export function forgetEnded(id: string, dir = socketDir()): void {
  try {
    if (!checkSocketDir(dir)) return;
    const folder = endedDir(dir);
    if (ownFolder(folder)) remove(join(folder, `${safeId(id)}.json`));
  } catch {
    // gone already, or not ours
  }
}

/** A session id as a file name: ids are [a-z0-9-]; anything else is replaced. */
function safeId(id: string): string {
  return id.replace(/[^A-Za-z0-9-]/g, '_').slice(0, 64) || 'session';
}

/** True when `folder` is a real directory of ours with no group or other bits. */
function ownFolder(folder: string): boolean {
  try {
    const st = lstatSync(folder);
    return st.isDirectory() && st.uid === process.getuid?.() && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** Removes `path` when it is a regular file of ours. */
function remove(path: string): void {
  try {
    const st = lstatSync(path);
    if (st.isFile() && st.uid === process.getuid?.()) unlinkSync(path);
  } catch {
    // gone
  }
}

/** Reads one record: a regular file of ours, at most {@link MAX_FILE} bytes, well formed. */
function readRecord(path: string): EndedSession | undefined {
  try {
    const st = lstatSync(path);
    if (!st.isFile() || st.uid !== process.getuid?.() || st.size > MAX_FILE) return undefined;
    const data = JSON.parse(readFileSync(path, 'utf8')) as Partial<EndedSession>;
    const info = sessionInfoOf(data.info);
    if (!info || typeof data.screen !== 'string' || typeof data.endedAt !== 'number') {
      return undefined;
    }
    const events = Array.isArray(data.events)
      ? data.events.filter((e): e is string => typeof e === 'string')
      : [];
    return { info, screen: data.screen, events, endedAt: data.endedAt };
  } catch {
    return undefined;
  }
}
