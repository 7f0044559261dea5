/** The list of subcommands, in the order the help shows them. One file per subcommand. */
import type { Command } from './command.ts';
import { classifyCommand } from './classify.ts';
import { explainCommand } from './explain.ts';
import { screenCommand } from './screen.ts';
import { manifestsCommand } from './manifests.ts';
import { configCommand } from './config.ts';
import { runCommand } from './run.ts';
import { lsCommand } from './ls.ts';
import { waitCommand } from './wait.ts';
import { sendCommand } from './send.ts';
import { answerCommand } from './answer.ts';
import { notifyCommand, reportCommand } from './hook-commands.ts';
import { simAgentCommand } from './sim-agent.ts';
import { watchCommand } from './watch.ts';
import { demoCommand } from './demo.ts';
import { recordCommand } from './record.ts';
import { markCommand } from './mark.ts';
import { cutCommand } from './cut.ts';
import { evalCommand } from './eval.ts';
import { acpCommand } from './acp.ts';
import { cancelCommand } from './cancel.ts';
import { killCommand } from './kill.ts';
import { hostDaemonCommand } from './host-daemon.ts';

export const commands: Command[] = [
  runCommand,
  acpCommand,
  watchCommand,
  demoCommand,
  evalCommand,
  lsCommand,
  waitCommand,
  sendCommand,
  answerCommand,
  cancelCommand,
  killCommand,
  reportCommand,
  notifyCommand,
  classifyCommand,
  explainCommand,
  screenCommand,
  manifestsCommand,
  configCommand,
  recordCommand,
  markCommand,
  cutCommand,
  simAgentCommand,
  hostDaemonCommand,
];
