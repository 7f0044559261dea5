/**
 * `agentwatch sim-agent [--seed N] [--tasks N] [--truth FILE] [--speed X] [--mode M]` (hidden):
 * the simulated agent of `src/sim/agent.ts` on this process's terminal. The demo, the
 * eval and the tests start it in a PTY through {@link selfCommand}.
 *
 * `--truth FILE` receives one JSON line `{"t": ms since the epoch, "state": "idle" | "working"
 * | "blocked" | "exited"}` per true state change (the file is truncated at start), with
 * `"answer": N` (the option number chosen) on the line that ends a permission prompt; nothing
 * of it reaches the screen. The agent ends after `--tasks` tasks, on end of input, on SIGHUP or
 * SIGTERM, or on Ctrl-C / Ctrl-D at an empty idle prompt.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { type Command, stringOption, UsageError, UserError } from './command.ts';
import { SimAgent, type TrueState } from '../sim/agent.ts';
export { selfCommand } from '../runtime/self-command.ts';

function positiveNumber(values: Record<string, unknown>, name: string, fallback: number): number {
  const text = stringOption(values as never, name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) {
    throw new UsageError(`--${name} must be a positive number, got '${text}'`);
  }
  return n;
}

export const simAgentCommand: Command = {
  name: 'sim-agent',
  summary: 'a simulated agent that draws like Claude Code 2.1.332 (for demo, eval and tests)',
  usage: 'sim-agent [--seed N] [--tasks N] [--truth FILE] [--speed X] [--mode manual|default]',
  maxArgs: 0,
  hidden: true,
  options: {
    seed: { type: 'string' },
    tasks: { type: 'string' },
    truth: { type: 'string' },
    speed: { type: 'string' },
    mode: { type: 'string' },
  },
  help: {
    seed: 'PRNG seed (default 7)',
    tasks: 'end after this many tasks (default: no limit)',
    truth: 'append the true state here as JSON lines {t, state}',
    speed: 'time factor: 4 makes every delay 4 times shorter (default 1)',
    mode: "footer wording: 'manual' (default, '⏸ manual mode on · ...') or 'default'",
  },
  async run(values, positionals) {
    if (positionals.length) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const seed = Math.floor(positiveNumber(values, 'seed', 7));
    const tasksText = stringOption(values, 'tasks');
    const tasks = tasksText === undefined
      ? Infinity
      : Math.floor(positiveNumber(values, 'tasks', 1));
    const speed = positiveNumber(values, 'speed', 1);
    const mode = stringOption(values, 'mode', 'manual');
    if (mode !== 'manual' && mode !== 'default') {
      throw new UsageError(`--mode must be manual or default, got '${mode}'`);
    }
    const truth = stringOption(values, 'truth');
    if (truth) {
      try {
        writeFileSync(truth, '');
      } catch (e) {
        throw new UserError(
          `${truth}: cannot write the truth file (${(e as NodeJS.ErrnoException).code})`,
        );
      }
    }
    const stdin = process.stdin;
    const stdout = process.stdout;
    stdout.on('error', () => {}); // EIO once the PTY is gone: the agent ends on the hangup
    const agent = new SimAgent({
      seed,
      tasks,
      speed,
      mode,
      rows: stdout.rows || 32,
      cols: stdout.columns || 120,
      write: (s) => void stdout.write(s),
      onState: (state: TrueState, t: number, detail?: { answer: number }) => {
        if (!truth) return;
        try {
          appendFileSync(truth, JSON.stringify({ t, state, ...detail }) + '\n');
        } catch {
          // the reader removed the file: the screen goes on
        }
      },
    });
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    stdin.on('data', (d: string) => agent.key(d));
    stdin.on('end', () => agent.end('end of input'));
    stdin.on('error', () => agent.end('input error'));
    const onSignal = (sig: string) => () => agent.end(sig);
    process.on('SIGHUP', onSignal('SIGHUP'));
    process.on('SIGTERM', onSignal('SIGTERM'));
    stdout.on('resize', () => agent.resize(stdout.rows, stdout.columns));
    agent.start();
    await agent.done;
    if (stdin.isTTY) {
      try {
        stdin.setRawMode(false);
      } catch {
        // the terminal is gone
      }
    }
    stdin.pause();
    return 0;
  },
};
