/**
 * Splitting command lines into commands and words, pure: the `-- CMD ARGS...` part of `run`
 * and `watch` (as main passes it), and a command line typed at the board's `n` key.
 */
import { UsageError } from './command.ts';

/**
 * Splits `-- CMD ARGS...` (as main passes it to `run`) into the command and its arguments.
 * @throws UsageError for arguments before the `--`, or no command after it.
 */
export function splitCommand(positionals: string[]): { command: string; args: string[] } {
  const dd = positionals.indexOf('--');
  if (dd !== 0 && positionals.length) {
    throw new UsageError(`put the command after '--': agentwatch run -- ${positionals.join(' ')}`);
  }
  const rest = positionals.slice(dd + 1);
  if (!rest.length) throw new UsageError("no command given after '--'");
  return { command: rest[0], args: rest.slice(1) };
}

/**
 * Splits the passthrough part of `watch` (`-- CMD ARGS... -- CMD ...`) into commands.
 * Every `--` starts a new command, so a command cannot itself take a `--` argument.
 * @throws UsageError for arguments before the first `--` or an empty group.
 */
export function splitGroups(positionals: string[]): string[][] {
  if (!positionals.length) return [];
  if (positionals[0] !== '--') {
    throw new UsageError(
      `put each command after '--': agentwatch watch -- ${positionals.join(' ')}`,
    );
  }
  const groups: string[][] = [];
  for (const p of positionals) {
    if (p === '--') groups.push([]);
    else groups[groups.length - 1].push(p);
  }
  if (groups.some((g) => !g.length)) throw new UsageError("an empty command after '--'");
  return groups;
}

/**
 * Splits a command line typed at the board into words: blanks separate, '...' and "..."
 * quote, a backslash escapes the next character (inside "..." too; inside '...' it is kept).
 * No variables, globs or pipes.
 * @throws UsageError for an unterminated quote.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let has = false;
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has) words.push(word);
      word = '';
      has = false;
    } else {
      word += c;
      has = true;
    }
  }
  if (quote) throw new UsageError(`unterminated ${quote} quote`);
  if (has) words.push(word);
  return words;
}
