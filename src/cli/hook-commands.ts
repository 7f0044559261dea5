/**
 * The hook commands as the help lists them. main.ts runs them through `hook.ts` directly,
 * without loading the rest of agentwatch; these entries serve the help and `--help`.
 */
import type { Command } from './command.ts';
import { hookMain } from './hook.ts';

export const reportCommand: Command = {
  name: 'report',
  summary: 'for agent hooks: tell the session what the agent does (always exits 0)',
  usage: 'report working|tool|blocked|done|idle',
  options: {},
  run: (_values, positionals) => hookMain(['report', ...positionals]),
};

export const notifyCommand: Command = {
  name: 'notify',
  summary:
    'for agent hooks: pass a Notification payload (JSON on stdin) to the session (always exits 0)',
  usage: 'notify < payload.json',
  options: {},
  run: (_values, positionals) => hookMain(['notify', ...positionals]),
};
