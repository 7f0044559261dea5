/**
 * `agentwatch watch [--json] [--name NAME]... [--agent ID] [-- CMD ARGS... [-- CMD ...]]`: the
 * live board of every session on this machine.
 *
 * * Sessions of `agentwatch run` in other terminals (and of other watches) are found in the
 *   socket folder, which is read every second, and followed with `subscribe`
 *   (`runtime/session-directory.ts`).
 * * Sessions this watch starts (each `-- CMD ...` group, or the `n` key) run headless in this
 *   process's {@link SessionHost} (`board/hosted.ts`); they end when the watch quits.
 *
 * On a terminal the board (`board/ui.ts`: keys, attach, the answer panel; `board/render.ts`:
 * the frame; `board/tty.ts`: alternate screen, restored on exit, signal and crash).
 *
 * `--json` (and any run without a terminal on stdin and stdout) prints one JSON object per
 * line instead: `{t, id, name, agent, state, prev, since, question}` for every state change,
 * and once for every session when first seen (`prev: null`); `t` and `since` in ms since the
 * epoch, `question` null unless blocked. When a blocked session's question is read after its
 * transition (a hook, or Qwen Code's window title, said blocked before the dialog was drawn) or
 * changes within the spell, one more line with the same fields and `event: "prompt"` says it.
 * It runs until SIGINT, SIGTERM or SIGHUP.
 */
import { adoptOrphans } from '../runtime/adoption.ts';
import { type Command, refuseBlank, stringList, stringOption, UsageError } from './command.ts';
import {
  notifyOptionHelp,
  notifyOptionSpec,
  notifySettings,
  optionPlaceholders,
  sourceOptionHelp,
  sourceOptionSpec,
  sweepChoice,
  sweepOptionHelp,
  sweepOptionSpec,
} from './sweep-options.ts';
import { createHost } from '../runtime/default-host.ts';
import { loadConfig } from '../runtime/config.ts';
import { SessionDirectory } from '../runtime/session-directory.ts';
import { checkSocketDir, socketDir } from '../runtime/paths.ts';
import type { SessionInfo } from '../runtime/protocol.ts';
import type { SessionState } from '../detect/types.ts';
import type { NewSession } from './new-session.ts';
import { splitGroups } from './argv.ts';
import { createNotifier, Notifier } from '../runtime/notify.ts';
import { DEFAULT_INTERVAL_MS } from '../runtime/sweep.ts';
import { BOARD_HELP, missingNotice, notifyStatus } from './board/render.ts';
import { BoardUi } from './board/ui.ts';
import { guardTerminal, onStopSignal } from './board/tty.ts';
import { endSessions, killSessions, startInBackground } from './board/hosted.ts';

/** One JSON line of `watch --json`. */
export interface TransitionEvent {
  /** When it was seen, ms since the epoch. */
  t: number;
  id: string;
  name: string;
  agent: string;
  state: SessionState;
  /** The state before; null the first time a session is seen. */
  prev: SessionState | null;
  /** When the state began, ms since the epoch. */
  since: number;
  question: string | null;
  /** Only on a line that tells a blocked session's question read after its transition. */
  event?: 'prompt';
}

/** The JSON line for a state change. */
export function transitionEvent(
  info: SessionInfo,
  prev: SessionState | null,
  t = Date.now(),
): TransitionEvent {
  return {
    t,
    id: info.id,
    name: info.name,
    agent: info.agent,
    state: info.state,
    prev,
    since: info.since,
    question: info.state === 'blocked' ? info.question ?? null : null,
  };
}

/**
 * The `event: "prompt"` lines of `watch --json`: remembers the question each blocked session's
 * lines said, and returns a line when a later info of the same blocked spell tells another
 * (non-empty) one; null otherwise.
 */
export class PromptEvents {
  readonly #said = new Map<string, string>();

  /** Notes the line printed for a state change. */
  printed(e: TransitionEvent): void {
    if (e.state === 'blocked') this.#said.set(e.id, e.question ?? '');
    else this.#said.delete(e.id);
  }

  /** The line for `info` (any info a session published), or null when it tells nothing new. */
  update(info: SessionInfo, t = Date.now()): TransitionEvent | null {
    const said = this.#said.get(info.id);
    if (said === undefined || info.state !== 'blocked' || !info.question) return null;
    if (info.question === said) return null;
    const e: TransitionEvent = { ...transitionEvent(info, 'blocked', t), event: 'prompt' };
    this.#said.set(info.id, info.question);
    return e;
  }
}

/** What is wrong with config.toml now (its file and line), undefined when it reads well. */
function configProblem(): string | undefined {
  try {
    loadConfig();
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

export const watchCommand: Command = {
  name: 'watch',
  summary: 'the live board of every agent session on this machine (or --json events)',
  usage:
    'watch [--json] [--name NAME]... [--agent ID] [--manifest FILE]... [--interval MS] [-- CMD ARGS... [-- CMD ARGS...]]',
  notes: BOARD_HELP,
  passthrough: true,
  options: {
    json: { type: 'boolean' },
    name: { type: 'string', multiple: true },
    agent: { type: 'string' },
    ...sourceOptionSpec,
    ...sweepOptionSpec,
    ...notifyOptionSpec,
  },
  placeholders: { agent: 'ID', ...optionPlaceholders },
  help: {
    json: 'print one JSON object per state change instead of the board',
    name: "the name of the session each '-- CMD' starts, in order (repeatable)",
    agent: 'manifest id for the sessions started here whose process is not recognised',
    ...sourceOptionHelp,
    ...sweepOptionHelp,
    ...notifyOptionHelp,
  },
  async run(values, positionals, io) {
    checkSocketDir(socketDir()); // refuse a folder we cannot trust before showing anything
    refuseBlank(values, ['name', 'agent']);
    const groups = splitGroups(positionals);
    const agent = stringOption(values, 'agent');
    const names = stringList(values, 'name');
    if (names.length > groups.length) {
      throw new UsageError(
        `${names.length} --name for ${groups.length} command${groups.length === 1 ? '' : 's'}: ` +
          "each --name names the next '-- CMD', in order",
      );
    }
    const hostWide = ['manifest', 'no-update', 'interval', 'adaptive', 'no-adaptive'].find((o) =>
      values[o] !== undefined
    );
    if (groups.length && hostWide) {
      throw new UsageError(
        `--${hostWide} cannot go with '-- CMD': the sessions a board starts run in the ` +
          'background host, with its rules and sweep (your manifest folder and config.toml)',
      );
    }
    const stdin = process.stdin;
    const stdout = process.stdout;
    const json = values.json === true || !(stdin.isTTY && stdout.isTTY);
    // what its sessions leave running stays under it (adoption.ts: answer refuses it)
    adoptOrphans();
    const host = createHost(sweepChoice(values), process.env, {
      files: stringList(values, 'manifest'),
      config: loadConfig().config,
      update: values['no-update'] !== true,
    });
    const notifyOptions = notifySettings(values);
    const terminal = json ? undefined : (s: string) => stdout.write(s);
    // Who announces what (README "Notifications"): the sessions this process hosts, on every
    // channel; those hosted elsewhere (a `run` in another terminal) on this terminal only:
    // their own host sends the desktop notice, the command and the push.
    const notifier = createNotifier(notifyOptions, {
      terminal,
      focused: (id) => host.focused(id, notifyOptions.focusMs),
    });
    const remote = new Notifier({ terminal, desktop: false }, { done: notifyOptions.done });
    host.notifyFailures = () => notifier.failures();
    host.onPublish((info) => notifier.observe(info));
    let ui: BoardUi | null = null;
    const prompts = new PromptEvents();
    const promptLine = (info: SessionInfo) => {
      const e = json ? prompts.update(info) : null;
      if (e) io.stdout(JSON.stringify(e) + '\n');
    };
    host.onPublish(promptLine);
    const directory = new SessionDirectory({
      host,
      alerts: !json,
      onChange: (info, prev) => {
        if (json) {
          const e = transitionEvent(info, prev);
          prompts.printed(e);
          io.stdout(JSON.stringify(e) + '\n');
        }
        ui?.requestRender();
      },
      onUpdate: (info) => {
        if (!directory.isLocal(info.id)) remote.observe(info);
        promptLine(info);
        ui?.requestRender();
      },
    });
    // The sessions started here (`-- CMD`, the n key) live in the background host: they
    // outlive this board, and that host announces them (desktop, command, push; this board
    // shows them in its terminal like any session hosted elsewhere).
    const startSession = async (s: NewSession): Promise<string | undefined> => {
      // config.toml is read again: broken since the board started, the person is told which
      // file and line, and the session starts with the settings the board read then (the
      // background host's own are its last good ones, or the defaults: host-daemon.ts).
      const broken = configProblem();
      await startInBackground(s, agent, stdout, notifyOptions);
      await directory.poll(); // on the board now, not at the next look at the folder
      return broken &&
        `${broken} (until it is fixed, this board keeps the settings it started with)`;
    };
    try {
      for (const [i, g] of groups.entries()) await startSession({ argv: g, name: names[i] });
      directory.start();
      if (json) {
        const keepAlive = setInterval(() => {}, 1 << 30); // signal handlers alone do not keep Node running
        await new Promise<void>((resolve) => {
          const off = onStopSignal(() => {
            off();
            resolve();
          });
        });
        clearInterval(keepAlive);
      } else {
        const rules = host.options.manifestSet;
        let toldMissing = false;
        const ownMissing = notifier.missing(); // this machine's PATH: read once
        ui = new BoardUi({
          directory,
          startSession,
          title: 'agentwatch',
          status: (infos) =>
            [rules?.status(), notifyStatus(notifier.failures(), infos)].filter(Boolean)
              .join(' · ') || undefined,
          // a channel whose program is missing (no notify-send) is said once, not on every
          // frame's status line: it fails the same way for every prompt until it is installed
          tell: (infos) => {
            if (toldMissing) return undefined;
            const said = missingNotice(ownMissing, infos);
            if (said) toldMissing = true;
            return said;
          },
        });
        rules?.onNotice(() => ui?.requestRender());
        // The sweep reloads the manifests at each tick; with no session hosted here there is
        // no tick, and the board still tells about the person's saved files.
        const reload = setInterval(
          () => rules?.refresh(),
          host.options.intervalMs ?? DEFAULT_INTERVAL_MS,
        );
        reload.unref();
        const board = ui;
        const unguard = guardTerminal('watch', io, {
          restore: () => board.restore(),
          crashed: () => killSessions(host),
        });
        const off = onStopSignal(() => ui?.quit());
        ui.start();
        await ui.done;
        off();
        ui.restore();
        unguard();
        clearInterval(reload);
      }
    } finally {
      await endSessions(host); // their exits still reach the board and the JSON lines
      directory.close();
      await host.close();
    }
    return 0;
  },
};
