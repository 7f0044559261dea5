/**
 * `agentwatch run --detach [--name N] [--agent ID] -- CMD ARGS...`: starts the command in the
 * per-user background host (started on demand) instead of this terminal, prints the session's
 * id and exits 0. The session lives on after this terminal closes; `agentwatch kill ID` or
 * the command's own exit ends it.
 */
import { type Io, type OptionValues, stringOption, UsageError } from './command.ts';
import { notifySettings } from './sweep-options.ts';
import { startDetached } from '../runtime/host-client.ts';

/** Options of `run` that a detached session cannot take (they are the host's own). */
const HOST_WIDE = ['manifest', 'no-update', 'interval', 'adaptive', 'no-adaptive'];

/**
 * Starts `-- CMD ARGS...` (already split by the caller) in the background host.
 * @throws UsageError for an option the background host sets for all its sessions;
 *   UserError when the host refuses (no such command, no such agent) or cannot start.
 */
export async function runDetached(
  values: OptionValues,
  command: string,
  args: string[],
  io: Io,
): Promise<number> {
  const given = HOST_WIDE.find((o) => values[o] !== undefined);
  if (given) {
    throw new UsageError(
      `--${given} cannot go with --detach: the background host's sessions share its rules and ` +
        'sweep (your manifest folder and config.toml)',
    );
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const tty = process.stdout.isTTY === true;
  const started = await startDetached({
    command,
    args,
    name: stringOption(values, 'name'),
    agent: stringOption(values, 'agent'),
    cwd: process.cwd(),
    env,
    rows: tty && process.stdout.rows ? process.stdout.rows : 32,
    cols: tty && process.stdout.columns ? process.stdout.columns : 120,
    hooks: values['no-hooks'] !== true,
    notify: notifySettings(values),
  });
  io.stdout(`${started.id}\n`);
  return 0;
}
