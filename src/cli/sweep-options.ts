/**
 * The sweep options shared by run, watch and demo: `--interval MS`, and the adaptive mode,
 * which is the default: bench/sweep.ts measured, for 1, 10 and 100 sim agents, a blocked
 * prompt seen in a median 45-54 ms (max 359 ms) adaptive vs 364-491 ms (max 824 ms) with the
 * 700 ms sweep alone, and an answered one cleared in 4-7 ms vs 279-295 ms, for a few points of
 * one core more at 100 sessions. `--no-adaptive` keeps the periodic sweep only.
 */
import type { ParseArgsConfig } from 'node:util';
import { type OptionValues, stringOption, UsageError } from './command.ts';
import type { SweepChoice } from '../runtime/default-host.ts';
import {
  NotifyConfigError,
  type NotifyOptions,
  readNotifyTable,
  resolveNotify,
} from '../runtime/notify-config.ts';
import { loadConfig } from '../runtime/config.ts';
import { UserError } from '../errors.ts';

/** Where the rules come from, for run and watch: `--manifest FILE` (repeatable), `--no-update`. */
export const sourceOptionSpec: NonNullable<ParseArgsConfig['options']> = {
  manifest: { type: 'string', multiple: true },
  'no-update': { type: 'boolean' },
};

export const sourceOptionHelp: Record<string, string> = {
  manifest: 'use this manifest file for its agent, over every other source (repeatable)',
  'no-update': 'do not pull the rules catalog (config: update = false)',
};

export const sweepOptionSpec: NonNullable<ParseArgsConfig['options']> = {
  interval: { type: 'string' },
  adaptive: { type: 'boolean' },
  'no-adaptive': { type: 'boolean' },
};

export const sweepOptionHelp: Record<string, string> = {
  interval: 'sweep interval in ms (default 700, or [sweep] interval in the config; 50-10000)',
  adaptive: 're-evaluate a changed pane soon after its output, at most every 100 ms (default)',
  'no-adaptive': 'evaluate only on the periodic sweep (every --interval ms)',
};

/** Reads `--interval` and `--adaptive`/`--no-adaptive` (adaptive unless told otherwise). @throws UsageError for an interval outside 50-10000 ms. */
export function sweepChoice(values: OptionValues): SweepChoice {
  const text = stringOption(values, 'interval');
  let intervalMs: number | undefined;
  if (text !== undefined) {
    intervalMs = Number(text);
    if (!Number.isInteger(intervalMs) || intervalMs < 50 || intervalMs > 10000) {
      throw new UsageError(
        `--interval must be a whole number of ms from 50 to 10000, got '${text}'`,
      );
    }
  }
  if (values.adaptive === true && values['no-adaptive'] === true) {
    throw new UsageError('give --adaptive or --no-adaptive, not both');
  }
  // Neither flag: undefined, so that the config file's [sweep] adaptive (else true) applies.
  const adaptive = values['no-adaptive'] === true
    ? false
    : values.adaptive === true
    ? true
    : undefined;
  return { intervalMs, adaptive };
}

/** Notification options shared by run, watch and demo (they override the config's [notify]). */
export const notifyOptionSpec: NonNullable<ParseArgsConfig['options']> = {
  'notify-cmd': { type: 'string' },
  'notify-done': { type: 'boolean' },
  'no-desktop': { type: 'boolean' },
  'notify-url': { type: 'string' },
  'notify-format': { type: 'string' },
  'notify-include-text': { type: 'boolean' },
};

export const notifyOptionHelp: Record<string, string> = {
  'notify-cmd': 'shell command run on every notice, with AGENTWATCH_NOTICE (blocked|done), ' +
    '_SESSION, _NAME, _AGENT, _STATE, _TITLE, _BODY, _QUESTION, _ACTION (Bash: CMD), ' +
    '_OPTIONS (one a line) set',
  'notify-done': 'also notify when a session goes idle after working',
  'no-desktop': 'no desktop notifications (osascript / notify-send)',
  'notify-url':
    'POST every notice to URL: JSON {session, name, agent, state, kind, title, host, time}',
  'notify-format': 'json (default) or text (plain text, for ntfy-style services)',
  'notify-include-text':
    "let the prompt's question, action and options leave the machine in --notify-url pushes",
};

/**
 * The notification settings in force: the config file's `[notify]` table
 * (`$XDG_CONFIG_HOME/agentwatch/config.toml`), overridden by the flags.
 * @throws UserError naming the file and the key for a bad `[notify]` table; UsageError for bad flags.
 */
export function notifySettings(
  values: OptionValues,
  env: NodeJS.ProcessEnv = process.env,
): NotifyOptions {
  const flags = notifyFlags(values);
  const loaded = loadConfig(env);
  try {
    return resolveNotify(readNotifyTable(loaded.config.notify ?? undefined, loaded.path), flags);
  } catch (e) {
    if (e instanceof NotifyConfigError) throw new UserError(e.message);
    throw e;
  }
}

/**
 * The notification settings given on the command line (only those given).
 * @throws UsageError for a --notify-format other than json/text or a --notify-url that is not http(s).
 */
export function notifyFlags(values: OptionValues): Partial<NotifyOptions> {
  const out: Partial<NotifyOptions> = {};
  const cmd = stringOption(values, 'notify-cmd');
  if (cmd !== undefined) out.command = cmd;
  if (values['notify-done'] === true) out.done = true;
  if (values['no-desktop'] === true) out.desktop = false;
  const url = stringOption(values, 'notify-url');
  if (url !== undefined) {
    if (!/^https?:\/\/\S+$/i.test(url)) {
      throw new UsageError(`--notify-url must be an http or https URL, got '${url}'`);
    }
    out.url = url;
  }
  const format = stringOption(values, 'notify-format');
  if (format !== undefined) {
    if (format !== 'json' && format !== 'text') {
      throw new UsageError(`--notify-format must be json or text, got '${format}'`);
    }
    out.format = format;
  }
  if (values['notify-include-text'] === true) out.includeText = true;
  return out;
}

/** How the sweep and notification options name their values in the help. */
export const optionPlaceholders: Record<string, string> = {
  manifest: 'FILE',
  interval: 'MS',
  'notify-cmd': 'SHELL-COMMAND',
  'notify-url': 'URL',
  'notify-format': 'json|text',
};
