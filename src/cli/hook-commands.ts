/**
 * The hook commands as the help lists them. main.ts runs them through `hook.ts` directly,
 * without loading the rest of agentwatch; these entries serve the help and `--help`.
 */
import type { Command } from './command.ts';
import { hookMain } from './hook.ts';
import { notifyOptionHelp, notifyOptionSpec, optionPlaceholders } from './sweep-options.ts';

export const reportCommand: Command = {
  name: 'report',
  summary: 'for agent hooks: tell the session (found from AGENTWATCH_SOCKET) what the agent ' +
    'does; `tool` reads a PreToolUse payload (JSON on stdin) (always exits 0)',
  usage: 'report working|tool|blocked|done|idle',
  options: {},
  run: (_values, positionals) => hookMain(['report', ...positionals]),
};

export const notifyCommand: Command = {
  name: 'notify',
  summary: 'for agent hooks: pass a Notification payload (JSON on stdin) to the session ' +
    '(found from AGENTWATCH_SOCKET) ' +
    '(always exits 0); --test: send a test notice on every channel and say which worked',
  usage:
    'notify < payload.json\nnotify --test [--no-desktop] [--notify-cmd CMD] [--notify-url URL]',
  maxArgs: 0,
  options: { test: { type: 'boolean' }, ...notifyOptionSpec },
  placeholders: optionPlaceholders,
  help: {
    test:
      'send a test notice on every channel turned on; print which worked and why others did not (exit 1 if one failed)',
    ...notifyOptionHelp,
  },
  run: async (values, positionals, io) =>
    values.test === true
      ? (await import('./notify-test.ts')).notifyTest(values, io)
      : hookMain(['notify', ...positionals]),
};
