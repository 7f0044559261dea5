/**
 * Replays a capture file (raw PTY bytes) into a fresh emulated screen, streamed in 64 KB
 * chunks so that memory stays bounded whatever the file's size (a 1 GB file costs one
 * chunk plus one pane).
 */
import { open, stat } from 'node:fs/promises';
import { Terminal } from '../vt/terminal.ts';
import { UserError } from '../errors.ts';

/** Size of one read, in bytes. */
export const CHUNK_BYTES = 64 * 1024;
/** How much of the stream's end the stripped-tail baseline keeps, in bytes (the seed's 8 KB). */
export const TAIL_BYTES = 8 * 1024;

/** A capture replayed: the screen it leaves, its last {@link TAIL_BYTES} bytes and its size. */
export interface RenderedFile {
  terminal: Terminal;
  /** The last min(size, 8 KB) bytes of the file. */
  tail: Uint8Array;
  /** The file's size in bytes. */
  bytes: number;
}

/**
 * Checks that `path` names a non-empty regular file.
 * @throws UserError naming the file and what is wrong (missing, a directory, not a regular
 *   file, unreadable, empty).
 */
export async function checkCaptureFile(path: string): Promise<number> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new UserError(`${path}: no such file`);
    if (code === 'EACCES') throw new UserError(`${path}: permission denied`);
    throw new UserError(`${path}: cannot read (${code ?? (e as Error).message})`);
  }
  if (st.isDirectory()) {
    throw new UserError(`${path}: is a directory, expected a capture file of raw terminal bytes`);
  }
  if (!st.isFile()) throw new UserError(`${path}: not a regular file`);
  if (st.size === 0) throw new UserError(`${path}: empty file (0 bytes): nothing to render`);
  return st.size;
}

/**
 * Streams `path` into a new `rows` x `cols` {@link Terminal}.
 * @throws UserError for a missing, unreadable, empty or non-regular file.
 */
export async function renderFile(path: string, rows: number, cols: number): Promise<RenderedFile> {
  await checkCaptureFile(path);
  const terminal = new Terminal(rows, cols);
  const tail = new Uint8Array(TAIL_BYTES);
  let tailLen = 0;
  let total = 0;
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw new UserError(
      `${path}: cannot open (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
  try {
    const buf = new Uint8Array(CHUNK_BYTES);
    for (;;) {
      let bytesRead: number;
      try {
        ({ bytesRead } = await fh.read(buf, 0, CHUNK_BYTES, null));
      } catch (e) {
        throw new UserError(
          `${path}: read failed (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        );
      }
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      terminal.write(chunk);
      terminal.takeReplies(); // nobody answers a replay; drop the replies so they do not pile up
      terminal.takeExtensionReplies();
      total += bytesRead;
      if (bytesRead >= TAIL_BYTES) {
        tail.set(chunk.subarray(bytesRead - TAIL_BYTES));
        tailLen = TAIL_BYTES;
      } else {
        const keep = Math.min(tailLen, TAIL_BYTES - bytesRead);
        tail.copyWithin(0, tailLen - keep, tailLen);
        tail.set(chunk, keep);
        tailLen = keep + bytesRead;
      }
    }
  } finally {
    await fh.close();
  }
  return { terminal, tail: tail.slice(0, tailLen), bytes: total };
}
