/**
 * `agentwatch __host` (hidden): the per-user background host (runtime/background-host.ts).
 * Started on demand, detached, by `run --detach` and the board (runtime/host-client.ts); it
 * serves the sessions started in it and ends when the last one ends. Its output is the host's
 * log, one line per event with its time.
 */
import { adoptOrphans } from '../runtime/adoption.ts';
import type { Command } from './command.ts';
import { createHost } from '../runtime/default-host.ts';
import { loadConfig, parseConfig } from '../runtime/config.ts';
import { BackgroundHost } from '../runtime/background-host.ts';

/**
 * The person's config, or the defaults when it is broken (logged with its file and line): the
 * commands that start a host (`run --detach`) refuse a broken config themselves, and a board
 * started before it broke says so at its `n` (watch.ts); the host's sessions must start anyway.
 */
function configOrDefaults(log: (line: string) => void) {
  try {
    return loadConfig().config;
  } catch (e) {
    log(`${(e as Error).message}; this host uses the defaults`);
    return parseConfig('', '(defaults)', process.env).config;
  }
}

export const hostDaemonCommand: Command = {
  name: '__host',
  summary: 'the background host of detached sessions (started on demand)',
  usage: '__host',
  maxArgs: 0,
  hidden: true,
  options: {},
  async run(_values, _positionals, io) {
    const log = (line: string) => io.stderr(`${new Date().toISOString()} ${line}\n`);
    // what its sessions leave running stays under it (adoption.ts: answer refuses it)
    adoptOrphans();
    const host = createHost({}, process.env, { config: configOrDefaults(log) });
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
