/**
 * `agentwatch screen [--size ROWSxCOLS] FILE`: replays raw terminal output (a `.raw`
 * capture, or anything recorded from a PTY) into the emulator and prints the visible screen,
 * trailing blanks trimmed, one line per row. The file is streamed in 64 KB reads
 * (runtime/render-file.ts), so memory stays at one read plus one pane whatever its size.
 */
import {
  type Command,
  type Io,
  type OptionValues,
  parseSize,
  stringOption,
  UsageError,
} from './command.ts';
import { renderFile } from '../runtime/render-file.ts';

export const screenCommand: Command = {
  name: 'screen',
  summary: 'print the screen that a file of raw terminal output leaves (emulated)',
  usage: 'screen [--size ROWSxCOLS] FILE',
  maxArgs: 1,
  options: { size: { type: 'string' } },
  help: { size: "screen size in cells, default 32x120 (the captures' size)" },
  async run(values: OptionValues, positionals: string[], io: Io): Promise<number> {
    if (positionals.length !== 1) {
      throw new UsageError(positionals.length ? 'give exactly one FILE' : 'missing FILE');
    }
    const { rows, cols } = parseSize(stringOption(values, 'size', '32x120')!);
    const { terminal } = await renderFile(positionals[0], rows, cols);
    io.stdout(terminal.screenText() + '\n');
    return 0;
  },
};
