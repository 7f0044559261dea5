/**
 * The dispatcher: picks the subcommand, parses its argv once from the command's spec and
 * runs it. Returns the exit code; `main.ts` is the only file that exits.
 */
import { parseArgs } from 'node:util';
import { type Command, type Io, placeholderOf, UsageError, UserError } from './command.ts';
import { commands } from './commands.ts';
import { closest, explainBadArgs } from './argv-errors.ts';
import { ManifestError } from '../detect/errors.ts';
// Error messages quote what sessions said (a refusal's question and options, a session's
// error): each line is made printable, so a hostile socket's `ESC[2J` cannot clear the screen.
import { printableLines as printableMessage } from './printable.ts';

/** The process's own stdout and stderr: where `main` writes unless given another Io. */
const processIo: Io = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
};

/** Where an option's help text starts in `COMMAND --help`, in columns. */
const HELP_COLUMN = 32;

/** The help text for one command, from its spec. */
export function commandHelp(cmd: Command): string {
  const lines = [`usage: agentwatch ${cmd.usage}`, '', cmd.summary];
  const names = Object.keys(cmd.options);
  if (names.length) lines.push('', 'options:');
  for (const name of names) {
    const o = cmd.options[name];
    const arg = placeholderOf(cmd, name);
    const flag = `--${name}${o.type === 'string' ? ' ' + arg : ''}`;
    const left = `  ${(o.short ? `-${o.short}, ` : '    ') + flag}`;
    const text = cmd.help?.[name] ?? '';
    // A flag too long for its column gets its text on the next line, never glued to it.
    lines.push(
      left.length <= HELP_COLUMN - 2
        ? left.padEnd(HELP_COLUMN) + text
        : `${left}\n${' '.repeat(HELP_COLUMN)}${text}`,
    );
  }
  if (cmd.notes) lines.push('', cmd.notes);
  return lines.join('\n') + '\n';
}

/** The top-level help: every visible command with its summary. */
export function mainHelp(): string {
  const rows = commands.filter((c) => !c.hidden).map((c) => `  ${c.name.padEnd(10)} ${c.summary}`);
  return [
    'agentwatch: tells you which of your AI coding agents needs you',
    '',
    'usage: agentwatch COMMAND [OPTIONS] [ARGS]',
    '',
    'commands:',
    ...rows,
    '',
    "Run 'agentwatch COMMAND --help' for a command's options.",
    '',
  ].join('\n');
}

/**
 * Runs agentwatch with `argv` (without node and script); returns the exit code. Writes to
 * `io` (tests pass their own, to run a command in-process).
 */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === 'help' && rest[0]) {
    const cmd = commands.find((c) => c.name === rest[0]);
    if (cmd) {
      io.stdout(commandHelp(cmd));
      return 0;
    }
    io.stderr(`agentwatch help: ${unknownCommand(rest[0])}\n`);
    return 2;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(mainHelp());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-V' || name === '-v') {
    io.stdout(`agentwatch ${VERSION} (Node ${process.version})\n`);
    return 0;
  }
  const cmd = commands.find((c) => c.name === name);
  if (!cmd) {
    io.stderr(`agentwatch: ${unknownCommand(name)}\n\n${mainHelp()}`);
    return 2;
  }
  try {
    let own = rest;
    let passthrough: string[] = [];
    const dd = rest.indexOf('--');
    if (cmd.passthrough && dd >= 0) {
      own = rest.slice(0, dd);
      passthrough = rest.slice(dd); // keeps the '--' so the command can split several commands
    }
    if (own.includes('--help') || own.includes('-h')) {
      io.stdout(commandHelp(cmd));
      return 0;
    }
    let parsed;
    try {
      parsed = parseArgs({ args: own, options: cmd.options, allowPositionals: true, strict: true });
    } catch (e) {
      throw new UsageError(explainBadArgs(cmd, own) ?? (e as Error).message);
    }
    const max = cmd.maxArgs;
    if (max !== undefined && parsed.positionals.length > max) {
      const extra = JSON.stringify(parsed.positionals[max]).slice(1, -1);
      throw new UsageError(
        `unexpected argument '${extra}' (${cmd.name} takes ${
          max === 0 ? 'no arguments' : `at most ${max}`
        })`,
      );
    }
    return await cmd.run(parsed.values, [...parsed.positionals, ...passthrough], io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`agentwatch ${cmd.name}: ${printableMessage(e.message)}\n\n${commandHelp(cmd)}`);
      return 2;
    }
    if (e instanceof UserError || e instanceof ManifestError) {
      io.stderr(`agentwatch ${cmd.name}: ${printableMessage(e.message)}\n`);
      return e instanceof UserError ? e.exitCode : 1;
    }
    io.stderr(
      `agentwatch ${cmd.name}: internal error: ${
        printableMessage(String((e as Error)?.stack ?? e))
      }\n`,
    );
    return 70;
  }
}

/** "unknown command 'lss' (did you mean 'ls'?)": the name quoted as data, never as escapes. */
function unknownCommand(name: string): string {
  const shown = JSON.stringify(name).slice(1, -1);
  const guess = closest(name, commands.filter((c) => !c.hidden).map((c) => c.name));
  return `unknown command '${shown}'` + (guess ? ` (did you mean '${guess}'?)` : '');
}

/** Replaced by the build (esbuild define); 'dev' when run from source. */
declare const AGENTWATCH_VERSION: string | undefined;
const VERSION = typeof AGENTWATCH_VERSION === 'string' ? AGENTWATCH_VERSION : 'dev';
