/** The list of subcommands, in the order the help shows them. One file per subcommand. */
import type { Command } from './command.ts';
import { screenCommand } from './screen.ts';
import { manifestsCommand } from './manifests.ts';
import { simAgentCommand } from './sim-agent.ts';
import { watchCommand } from './watch.ts';
import { demoCommand } from './demo.ts';

export const commands: Command[] = [
  watchCommand,
  demoCommand,
  screenCommand,
  manifestsCommand,
  simAgentCommand,
];
