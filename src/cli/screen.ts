/**
 * `agentwatch screen [--size ROWSxCOLS] FILE`: replays raw terminal output (a `.raw`
 * capture, or anything recorded from a PTY) into the emulator and prints the visible screen,
 * trailing blanks trimmed, one line per row. The file is streamed in 64 KB reads, so memory
 * stays at one read plus one pane whatever the file's size.
 */
import { open, stat } from 'node:fs/promises';
import {
  type Command,
  type Io,
  type OptionValues,
  parseSize,
  stringOption,
  UsageError,
  UserError,
} from './command.ts';
import { Terminal } from '../vt/terminal.ts';

/** Bytes per read. */
const CHUNK_BYTES = 64 * 1024;

/** Node's error code of a failed fs call, if any. */
function errCode(e: unknown): string {
  return (e as { code?: string }).code ?? (e as Error).message;
}

/**
 * Streams file `path` into a new rows x cols terminal.
 * @throws UserError when the file is missing, a directory, not a regular file or unreadable.
 */
export async function replayFile(path: string, rows: number, cols: number): Promise<Terminal> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    const code = errCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new UserError(`${path}: no such file`);
    if (code === 'EACCES') throw new UserError(`${path}: permission denied`);
    throw new UserError(`${path}: cannot read (${code})`);
  }
  if (st.isDirectory()) {
    throw new UserError(`${path}: is a directory, expected a file of terminal output`);
  }
  if (!st.isFile()) throw new UserError(`${path}: not a regular file`);
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw new UserError(`${path}: cannot open (${errCode(e)})`);
  }
  const terminal = new Terminal(rows, cols);
  try {
    const buf = new Uint8Array(CHUNK_BYTES);
    for (;;) {
      let bytesRead: number;
      try {
        ({ bytesRead } = await fh.read(buf, 0, CHUNK_BYTES, null));
      } catch (e) {
        throw new UserError(`${path}: read failed (${errCode(e)})`);
      }
      if (bytesRead === 0) break;
      terminal.write(buf.subarray(0, bytesRead));
      terminal.takeReplies(); // nobody reads a replay's answers
    }
  } finally {
    await fh.close();
  }
  return terminal;
}

export const screenCommand: Command = {
  name: 'screen',
  summary: 'print the screen that a file of raw terminal output leaves (emulated)',
  usage: 'screen [--size ROWSxCOLS] FILE',
  options: { size: { type: 'string' } },
  help: { size: "screen size in cells, default 32x120 (the captures' size)" },
  async run(values: OptionValues, positionals: string[], io: Io): Promise<number> {
    if (positionals.length !== 1) {
      throw new UsageError(positionals.length ? 'give exactly one FILE' : 'missing FILE');
    }
    const { rows, cols } = parseSize(stringOption(values, 'size', '32x120')!);
    const terminal = await replayFile(positionals[0], rows, cols);
    io.stdout(terminal.screenText() + '\n');
    return 0;
  },
};
