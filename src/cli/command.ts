/**
 * The shape every subcommand file exports. Argv is parsed once, by `main.ts`, from the
 * command's own `options` spec (node:util parseArgs), which also prints its help.
 * Only `main.ts` exits the process; a command returns its exit code.
 */
import type { ParseArgsConfig } from 'node:util';

/** Where a command writes. Injected so tests can capture output without a process. */
export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Values parsed by node:util parseArgs: string/boolean options, possibly repeated. */
export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface Command {
  /** The subcommand word, e.g. 'classify'. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Usage line(s) after `agentwatch `, e.g. 'classify [--json] FILE...'. */
  usage: string;
  /** Option spec for parseArgs; each option's help text is in `help`. */
  options: NonNullable<ParseArgsConfig['options']>;
  /** Help text per option name. */
  help?: Record<string, string>;
  /** Text printed after the options in `COMMAND --help` (the board's keys), lines as given. */
  notes?: string;
  /** The value's name in the help per string option ('LABELS.json'); default: the option's name in capitals. */
  placeholders?: Record<string, string>;
  /**
   * The most positional arguments the command takes (before any `--` of a passthrough
   * command); main refuses more, naming the first one extra (exit 2). Absent: any number
   * (the command checks them itself).
   */
  maxArgs?: number;
  /** True when arguments after `--` are passed through untouched (run, watch). */
  passthrough?: boolean;
  /** Hidden commands (internal helpers) are not listed in the help. */
  hidden?: boolean;
  /** Runs the command; returns the exit code. Throws {@link UsageError} for bad arguments. */
  run(values: OptionValues, positionals: string[], io: Io): Promise<number>;
}

/**
 * The value's name shown for an option in help and errors: the command's own placeholder, else
 * the one every command uses for that option (so `--agent ID` reads the same everywhere), else
 * the option's name in capitals.
 */
export function placeholderOf(cmd: Command, option: string): string {
  return cmd.placeholders?.[option] ?? COMMON_PLACEHOLDERS[option] ?? option.toUpperCase();
}

/** Placeholders of the options several commands share. */
const COMMON_PLACEHOLDERS: Record<string, string> = {
  agent: 'ID',
  manifest: 'FILE',
  size: 'ROWSxCOLS',
  name: 'NAME',
  timeout: 'SECONDS',
  interval: 'MS',
};

/** A bad command line: main prints the message and the command's usage, and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export { UserError } from '../errors.ts';

/** Reads a string option or returns the default. */
export function stringOption(
  values: OptionValues,
  name: string,
  fallback?: string,
): string | undefined {
  const v = values[name];
  if (Array.isArray(v)) return String(v[v.length - 1]);
  return typeof v === 'string' ? v : fallback;
}

/**
 * Refuses a blank value of each option of `names` that was given (`--name=`, `--agent ' '`), as
 * the board's `n` line does: a session named '' can be named by no SESSION argument.
 * @throws UsageError naming the first such option.
 */
export function refuseBlank(values: OptionValues, names: readonly string[]): void {
  for (const name of names) {
    const v = values[name];
    const all = Array.isArray(v) ? v : v === undefined ? [] : [v];
    if (all.some((x) => typeof x === 'string' && !x.trim())) {
      throw new UsageError(`--${name} needs a value`);
    }
  }
}

/**
 * Reads a number option within [min, max], or returns `fallback` when it is absent.
 * @throws UsageError naming the option and the range when it is not such a number.
 */
export function numberOption(
  values: OptionValues,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const text = stringOption(values, name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be a number from ${min} to ${max}, got '${text}'`);
  }
  return n;
}

/** Reads a repeatable string option as a list. */
export function stringList(values: OptionValues, name: string): string[] {
  const v = values[name];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
}

/**
 * Parses `ROWSxCOLS` (e.g. '32x120') into cells.
 * @throws UsageError when the text is not two positive integers (rows 1-1000, cols 2-2000).
 */
export function parseSize(text: string): { rows: number; cols: number } {
  const m = /^(\d{1,4})x(\d{1,4})$/.exec(text);
  const rows = m ? Number(m[1]) : NaN;
  const cols = m ? Number(m[2]) : NaN;
  if (!m || rows < 1 || rows > 1000 || cols < 2 || cols > 2000) {
    throw new UsageError(
      `--size must be ROWSxCOLS like 32x120 (rows 1-1000, cols 2-2000), got '${text}'`,
    );
  }
  return { rows, cols };
}
