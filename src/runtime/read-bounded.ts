/**
 * Reads a small text file (a manifest, the config file, a catalog's cached index) in bounded
 * time and memory, whatever the path names: it is opened with O_NONBLOCK (a FIFO with no
 * writer does not hang the open), checked with fstat to be a regular file (a FIFO, /dev/zero,
 * a socket or a directory is refused before one byte is read), its size is capped before the
 * read and again while reading (a file that grows), and the bytes must be UTF-8.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** A file that cannot be used, with why; `message` names the path. */
export class FileReadError extends Error {
  override name = 'FileReadError';
  constructor(readonly path: string, readonly detail: string, readonly line: number | null = null) {
    super(`${line === null ? path : `${path}:${line}`}: ${detail}`);
  }
}

/** What to call a file's type in a refusal: 'a FIFO', 'a character device', ... */
function kindOf(st: import('node:fs').Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The text of `path`, at most `maxBytes` bytes, a leading BOM dropped.
 * @throws FileReadError when the file is missing, unreadable, a symlink loop, not a regular
 *   file (directory, FIFO, device, socket), over `maxBytes` (checked before reading and while
 *   reading), or not UTF-8 (naming the first bad byte's offset and line).
 */
export function readBoundedText(path: string, maxBytes: number): string {
  return decodeUtf8(readBoundedBytes(path, maxBytes), path);
}

/**
 * The bytes of `path`, at most `maxBytes`, with the checks of {@link readBoundedText} but the
 * UTF-8 one.
 * @throws FileReadError as readBoundedText does.
 */
export function readBoundedBytes(path: string, maxBytes: number): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT'
      ? 'no such file'
      : code === 'EACCES'
      ? 'permission denied'
      : code === 'ELOOP'
      ? 'symlink loop (too many levels of symbolic links)'
      : code === 'ENOTDIR'
      ? 'no such file (a folder on the way is a file)'
      : `cannot open (${code ?? (e as Error).message})`;
    throw new FileReadError(
      path,
      code === 'ENOENT' || code === 'EACCES' ? `cannot read: ${why}` : why,
    );
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      throw new FileReadError(
        path,
        st.isDirectory()
          ? 'is a directory, not a file'
          : `is ${kindOf(st)}, not a regular file: refused without reading it`,
      );
    }
    if (st.size > maxBytes) {
      throw new FileReadError(path, `too large: ${st.size} bytes (at most ${maxBytes})`);
    }
    const buf = Buffer.alloc(Math.min(maxBytes + 1, st.size + 4096));
    let len = 0;
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, len, buf.length - len, null);
      } catch (e) {
        throw new FileReadError(
          path,
          `read failed (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        );
      }
      if (n === 0) break;
      len += n;
      if (len > maxBytes) {
        throw new FileReadError(path, `too large: grew past ${maxBytes} bytes while read`);
      }
      if (len === buf.length) break; // full and not over the cap: the next read finds EOF or errs
    }
    return buf.subarray(0, len);
  } finally {
    closeSync(fd);
  }
}

/**
 * Decodes UTF-8 strictly; a leading BOM is dropped.
 * @throws FileReadError naming the first invalid byte, its offset and line (`where` names it).
 */
export function decodeUtf8(bytes: Uint8Array, where: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    const at = firstInvalidUtf8(bytes);
    throw new FileReadError(
      where,
      `not UTF-8 text (invalid byte 0x${
        at.byte.toString(16).padStart(2, '0')
      } at offset ${at.offset})`,
      at.line,
    );
  }
}

/** The first byte where `bytes` stops being UTF-8 (lead and continuation bytes), with its line. */
function firstInvalidUtf8(bytes: Uint8Array): { offset: number; line: number; byte: number } {
  let line = 1;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const len = b < 0x80
      ? 1
      : b >= 0xc2 && b <= 0xdf
      ? 2
      : b >= 0xe0 && b <= 0xef
      ? 3
      : b >= 0xf0 && b <= 0xf4
      ? 4
      : 0;
    let ok = len > 0 && i + len <= bytes.length;
    for (let k = 1; ok && k < len; k++) ok = (bytes[i + k] & 0xc0) === 0x80;
    if (!ok) return { offset: i, line, byte: b };
    if (b === 0x0a) line++;
    i += len;
  }
  // Valid by this check but rejected by the decoder (overlong or surrogate forms): point at the end.
  return { offset: bytes.length, line, byte: 0 };
}
