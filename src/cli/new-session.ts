/**
 * The command line typed at the board's `n` key: `[--name NAME] [--agent ID] [--cwd DIR]
 * [--] CMD ARGS...`, words split as {@link splitCommandLine} does. Pure but for `home` (for a
 * leading `~` in DIR).
 */
import { isAbsolute, join, resolve } from 'node:path';
import { UsageError } from './command.ts';

/** A session to start, as typed at the board. */
export interface NewSession {
  /** The command and its arguments; empty when only blanks were typed. */
  argv: string[];
  /** The session's name (default: the command's name). */
  name?: string;
  /** The manifest id to use when the process is not recognised. */
  agent?: string;
  /** The folder to start it in, absolute (default: the board's). */
  cwd?: string;
}

const OPTIONS = ['name', 'agent', 'cwd'] as const;

/**
 * Reads `words` (a typed line split into words): leading `--name`, `--agent`, `--cwd` (with
 * their value as the next word or after `=`), then the command (after an optional `--`).
 * A relative or `~` folder is resolved against `base` and `home`.
 * @throws UsageError for an unknown option before the command, a missing value, an option
 *   given twice, or options without a command.
 */
export function parseNewSession(
  words: readonly string[],
  base: string = process.cwd(),
  home: string = process.env.HOME ?? '',
): NewSession {
  const out: NewSession = { argv: [] };
  let i = 0;
  for (; i < words.length && words[i].startsWith('--'); i++) {
    const w = words[i];
    if (w === '--') {
      i++;
      break;
    }
    const eq = w.indexOf('=');
    const key = w.slice(2, eq < 0 ? undefined : eq);
    if (!(OPTIONS as readonly string[]).includes(key)) {
      throw new UsageError(
        `unknown option ${w.slice(0, eq < 0 ? undefined : eq)} (--name, --agent, --cwd)`,
      );
    }
    const value = eq < 0 ? words[++i] : w.slice(eq + 1);
    if (value === undefined || value === '') throw new UsageError(`--${key} needs a value`);
    const k = key as (typeof OPTIONS)[number];
    if (out[k] !== undefined) throw new UsageError(`--${key} given twice`);
    out[k] = value;
  }
  out.argv = words.slice(i);
  if (!out.argv.length && (out.name || out.agent || out.cwd)) {
    throw new UsageError('give the command to run after the options');
  }
  if (out.cwd !== undefined) {
    const dir = out.cwd === '~' || out.cwd.startsWith('~/')
      ? join(home, out.cwd.slice(1))
      : out.cwd;
    out.cwd = isAbsolute(dir) ? dir : resolve(base, dir);
  }
  return out;
}
