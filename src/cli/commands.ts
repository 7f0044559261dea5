/** The list of subcommands, in the order the help shows them. One file per subcommand. */
import type { Command } from './command.ts';

export const commands: Command[] = [];
