/**
 * `agentwatch acp [--name NAME] [--agent ID] -- AGENT ARGS...` and `agentwatch acp ID`: talks
 * to an agent over the Agent Client Protocol in a line-mode chat, while its state (from the
 * protocol, not a screen) is published like a PTY session's: board, `ls`, `wait`, `answer`,
 * `explain`, notifications. `acp ID` runs the ACP command of manifest ID's `[integrations] acp`.
 *
 * The chat: a line typed is a prompt; while a permission request waits, a line is its answer
 * (a number, an option's name or kind), typed by the person in their own terminal. Ctrl-C
 * cancels the turn (`session/cancel`; pending permission requests are answered `cancelled`);
 * with no turn, Ctrl-C twice or Ctrl-D (end of input) quits. At the end of input the turn in
 * flight is finished first, so `echo "task" | agentwatch acp -- AGENT` runs one turn.
 */
import { adoptOrphans } from '../runtime/adoption.ts';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { type Command, stringOption, UsageError } from './command.ts';
import {
  notifyOptionHelp,
  notifyOptionSpec,
  notifySettings,
  optionPlaceholders,
} from './sweep-options.ts';
import { createHost } from '../runtime/default-host.ts';
import { createNotifier } from '../runtime/notify.ts';
import { AcpSession, preciseNow } from '../runtime/acp-session.ts';
import { AcpPane } from '../runtime/acp-pane.ts';
import { makeSessionId } from '../runtime/host.ts';
import { socketPath } from '../runtime/paths.ts';
import type { Manifest } from '../detect/manifest.ts';
import { promptOf } from '../runtime/acp-state.ts';
import { choiceIndex } from '../runtime/typing-guard.ts';
import { ChatRenderer } from './acp-chat.ts';

/** A manifest's ACP command line as argv (`[integrations] acp`, words split at spaces). */
export function acpArgv(manifest: Manifest): string[] | null {
  const words = (manifest.integrations.acp ?? '').trim().split(/\s+/).filter(Boolean);
  return words.length ? words : null;
}

/**
 * What to start, from the positionals: `-- AGENT ARGS...`, or `ID [-- EXTRA ARGS...]` for a
 * manifest's ACP command; and the manifest id it is, '' when none is known.
 * @throws UsageError for a missing command, an unknown ID or a manifest with no ACP command.
 */
export function acpTarget(
  positionals: string[],
  manifests: ReadonlyMap<string, Manifest>,
  agent?: string,
): { command: string; args: string[]; agent: string } {
  if (agent !== undefined && !manifests.has(agent)) {
    throw new UsageError(
      `--agent ${agent}: no such agent (known: ${[...manifests.keys()].join(', ')})`,
    );
  }
  const dd = positionals.indexOf('--');
  if (dd === 0) {
    const [command, ...args] = positionals.slice(1);
    if (!command) throw new UsageError("no agent command given after '--'");
    // The agent: --agent, else the manifest whose ACP command or process names this command.
    const name = basename(command);
    const found = [...manifests.values()].find((m) =>
      acpArgv(m)?.[0] === name || m.process.includes(name)
    );
    return { command, args, agent: agent ?? found?.id ?? '' };
  }
  const id = positionals[0];
  if (!id || (dd !== 1 && positionals.length > 1)) {
    throw new UsageError('give an agent ID (gemini, qwen, opencode, claude) or -- AGENT ARGS...');
  }
  const manifest = manifests.get(id);
  if (!manifest) {
    throw new UsageError(`no agent '${id}' (known: ${[...manifests.keys()].join(', ')})`);
  }
  const argv = acpArgv(manifest);
  if (!argv) {
    throw new UsageError(
      `${id}'s manifest declares no ACP command ([integrations] acp); give it after '--'`,
    );
  }
  const extra = dd === 1 ? positionals.slice(2) : [];
  return { command: argv[0], args: [...argv.slice(1), ...extra], agent: id };
}

export const acpCommand: Command = {
  name: 'acp',
  summary: 'talk to an agent over ACP: its permission requests are facts, answered with answer',
  usage:
    'acp [--name NAME] [--agent ID] -- AGENT ARGS...\n       agentwatch acp [--name NAME] ID [-- EXTRA ARGS...]',
  passthrough: true,
  maxArgs: 1,
  options: {
    name: { type: 'string' },
    agent: { type: 'string' },
    ...notifyOptionSpec,
  },
  placeholders: { name: 'NAME', agent: 'ID', ...optionPlaceholders },
  help: {
    name: 'the name the board shows (default: the agent id or command name)',
    agent: 'the agent id the board shows (default: from the command)',
    ...notifyOptionHelp,
  },
  async run(values, positionals, io) {
    // The person's manifests (their folder and the catalog over the bundled ones) say which
    // command speaks ACP for each agent.
    // what its sessions leave running stays under it (adoption.ts: answer refuses it)
    adoptOrphans();
    const host = createHost({}, process.env);
    let target: ReturnType<typeof acpTarget>;
    try {
      target = acpTarget(positionals, host.options.manifests(), stringOption(values, 'agent'));
    } catch (e) {
      await host.close();
      throw e;
    }
    const name = stringOption(values, 'name') ?? (target.agent || basename(target.command));
    const id = makeSessionId(name);
    const session = new AcpSession({
      id,
      name,
      command: target.command,
      args: target.args,
      agent: target.agent,
      socket: socketPath(id, process.env),
    });
    const stdout = process.stdout;
    const tty = process.stdin.isTTY === true && stdout.isTTY === true;
    const chat = new ChatRenderer(id);
    session.onEvent((e) => {
      const text = chat.render(e);
      if (!text) return;
      io.stdout(text);
      session.transcribe(text);
    });
    const notifier = createNotifier(notifySettings(values), {
      terminal: tty ? (s) => stdout.write(s) : undefined,
    });
    notifier.onNotice = (notice) =>
      session.log(`notice sent at ${preciseNow().toFixed(3)}: ${notice.title}`);
    notifier.observe(session.info()); // the baseline: its first state is not news
    host.onPublish((info) => {
      if (info.id === id) notifier.observe(info);
    });
    try {
      await host.serve(new AcpPane(session));
    } catch (e) {
      await session.close();
      throw e;
    }
    io.stdout(`agentwatch acp: ${name} (${id}): ${[target.command, ...target.args].join(' ')}\n`);
    try {
      await session.ready;
    } catch (e) {
      io.stderr(`agentwatch acp: ${(e as Error).message}\n`);
      await host.close();
      return session.exit?.code || 1;
    }
    // In a terminal readline takes the keys raw (the terminal's own echo is off) and echoes
    // them itself, to its output: without one, what the person typed was never shown.
    const rl = createInterface({
      input: process.stdin,
      output: tty ? stdout : undefined,
      terminal: tty,
      prompt: '',
    });
    // once the keys are raw: a key typed as soon as this shows was echoed twice before (by the
    // terminal while still cooked, then by readline: "eecho", CI22)
    io.stdout(
      'type a prompt and Enter; Ctrl-C cancels a turn; Ctrl-D (or Ctrl-C twice when idle) quits\n',
    );
    let turn: Promise<unknown> = Promise.resolve();
    let lastInterrupt = 0;
    let quitting = false;
    const done = new Promise<void>((resolve) => {
      session.exited().then(resolve);
      rl.on('close', () => {
        // End of input: the turn in flight (and its permission requests, answered from
        // outside) finishes first.
        quitting = true;
        turn.finally(resolve);
      });
    });
    const interrupt = () => {
      if (session.exit) return;
      const s = session.info().state;
      if (s === 'working' || s === 'blocked') {
        const n = session.cancel();
        io.stdout(
          `[cancelling the turn${n ? `; ${n} permission request(s) answered cancelled` : ''}]\n`,
        );
        return;
      }
      if (Date.now() - lastInterrupt < 2000) {
        rl.close();
        return;
      }
      lastInterrupt = Date.now();
      io.stdout('(Ctrl-C again or Ctrl-D to quit)\n');
    };
    rl.on('SIGINT', interrupt);
    const onSigint = () => interrupt();
    process.on('SIGINT', onSigint);
    // A rejection nobody awaited (a write to an agent that just died) is shown, not fatal.
    const onRejection = (e: unknown) => {
      session.log(`internal: ${(e as Error)?.message ?? e}`);
      io.stderr(`agentwatch acp: internal: ${(e as Error)?.message ?? e}\n`);
    };
    process.on('unhandledRejection', onRejection);
    const onTerm = () => void host.close().finally(() => process.exit(143));
    process.on('SIGTERM', onTerm);
    process.on('SIGHUP', onTerm);
    rl.on('line', (line) => {
      if (quitting || session.exit) return;
      const pending = session.pending[0];
      if (pending) {
        if (!line.trim()) return;
        const p = promptOf(pending);
        try {
          session.answerIndex(choiceIndex(line, p.options, p.aliases), {
            ...p,
            episode: session.pendingEpisode,
          });
        } catch (e) {
          io.stdout(`! ${(e as Error).message}\n`);
        }
        return;
      }
      if (!line.trim()) return;
      const state = session.info().state;
      if (state !== 'idle') {
        io.stdout(`! ${name} is ${state}: wait for the turn to end, or Ctrl-C to cancel it\n`);
        return;
      }
      session.transcribe(`> ${line}\n`);
      // A failed turn is shown by the session's error event.
      turn = session.promptTurn(line, 'chat').catch(() => {});
    });

    await done;
    rl.close();
    process.off('SIGINT', onSigint);
    process.off('unhandledRejection', onRejection);
    process.off('SIGTERM', onTerm);
    process.off('SIGHUP', onTerm);
    const exit = session.exit as { code: number; signal?: number } | null;
    await host.close();
    if (!exit) return 0; // we ended it
    return exit.signal ? 128 + exit.signal : exit.code;
  },
};
