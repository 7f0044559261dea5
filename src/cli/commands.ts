/** The list of subcommands, in the order the help shows them. One file per subcommand. */
import type { Command } from './command.ts';
import { manifestsCommand } from './manifests.ts';

export const commands: Command[] = [
  manifestsCommand,
];
