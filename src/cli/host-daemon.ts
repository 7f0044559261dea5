/**
 * `agentwatch __host` (hidden): the per-user background host (runtime/background-host.ts).
 * Started on demand, detached, by `run --detach` and the board (runtime/host-client.ts); it
 * serves the sessions started in it and ends when the last one ends. Its output is the host's
 * log, one line per event with its time.
 */
import type { Command } from './command.ts';
import { createHost } from '../runtime/default-host.ts';
import { loadConfig } from '../runtime/config.ts';
import { BackgroundHost } from '../runtime/background-host.ts';

export const hostDaemonCommand: Command = {
  name: '__host',
  summary: 'the background host of detached sessions (started on demand)',
  usage: '__host',
  maxArgs: 0,
  hidden: true,
  options: {},
  async run(_values, _positionals, io) {
    const log = (line: string) => io.stderr(`${new Date().toISOString()} ${line}\n`);
    const host = createHost({}, process.env, { config: loadConfig().config });
    const bg = new BackgroundHost(host, { log });
    // No terminal to lose (a session of its own); Ctrl-C in the terminal that started it is
    // not for it. SIGTERM ends it with its sessions.
    process.on('SIGHUP', () => {});
    process.on('SIGINT', () => {});
    process.on('SIGTERM', () => void bg.end('SIGTERM'));
    // One session's failure must not take down the others: logged, and the host goes on.
    process.on('uncaughtException', (e) => log(`internal error: ${(e as Error)?.stack ?? e}`));
    process.on('unhandledRejection', (e) => log(`internal error: ${(e as Error)?.stack ?? e}`));
    if (!(await bg.claim())) {
      await host.close();
      return 0; // another host serves this folder
    }
    await bg.ended;
    return 0;
  },
};
