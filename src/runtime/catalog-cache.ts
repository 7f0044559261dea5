/**
 * The catalog's cache folder, shared by every agentwatch process of the person: the record of
 * the last pull (`state.json`), atomic writes (temp file, fsync, rename, fsync of the folder),
 * and the lock that lets one process per interval fetch (a file taken with O_EXCL, stale after
 * {@link LOCK_STALE_MS} or when its process is gone). catalog-updater.ts pulls through it.
 */
import {
  closeSync,
  constants,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { join } from 'node:path';

/** A lock older than this is stale (its holder died mid-fetch), ms. */
export const LOCK_STALE_MS = 60_000;
/** The cache folder's record of the last pull (state.json). */
export interface CacheState {
  /** When the next pull is due (any process), ms since the epoch. */
  next?: number;
  /** Failed pulls in a row (for the backoff). */
  failures?: number;
  etag?: string | null;
  lastModified?: string | null;
  lastCheck?: number;
  lastResult?: string;
  lastError?: string | null;
  /**
   * The manifests the last read of the index refused, and why (kept while the index is not
   * modified or cannot be read: a refusal stands until a read finds the entry fixed).
   */
  refused?: RefusedEntry[];
}

/** A catalog manifest refused: its id and version as the index gives them, and why. */
export interface RefusedEntry {
  id: string;
  version: string;
  why: string;
}

/** The cache folder's `state.json`; {} when absent or unreadable. */
export function readState(dir: string): CacheState {
  try {
    const s = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
    return typeof s === 'object' && s ? s : {};
  } catch {
    return {};
  }
}

/**
 * The last pull's time, result, error and refused manifests as recorded in the cache folder
 * (any process's).
 */
export function lastPull(dir: string): {
  lastCheck: number | null;
  lastResult: string | null;
  lastError: string | null;
  refused: RefusedEntry[];
} {
  const s = readState(dir);
  const refused = Array.isArray(s.refused)
    ? s.refused.filter((r): r is RefusedEntry =>
      !!r && typeof r.id === 'string' && typeof r.version === 'string' &&
      typeof r.why === 'string'
    )
    : [];
  return {
    lastCheck: s.lastCheck ?? null,
    lastResult: s.lastResult ?? null,
    lastError: s.lastError ?? null,
    refused,
  };
}

/**
 * Writes `data` to `dir/name` atomically: a temp file, fsync, rename, fsync of the folder.
 * Asynchronous, so that a slow disk's fsync does not hold a running sweep.
 */
export async function writeAtomic(
  dir: string,
  name: string,
  data: string | Uint8Array,
): Promise<void> {
  const tmp = join(dir, `.${name}.tmp-${process.pid}`);
  const fh = await open(tmp, 'w', 0o644);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, join(dir, name));
  try {
    const dh = await open(dir, 'r');
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
  } catch {
    // a folder fsync is not possible everywhere; the rename is atomic anyway
  }
}

/**
 * Takes the cache folder's lock (O_EXCL). A lock older than {@link LOCK_STALE_MS}, or whose
 * process is gone, is removed and taken. @returns a release function, or null when another
 * live process holds it.
 */
export function takeLock(dir: string, now = Date.now()): (() => void) | null {
  const path = join(dir, 'lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      writeSync(fd, `${process.pid} ${now}\n`);
      closeSync(fd);
      return () => {
        try {
          unlinkSync(path);
        } catch {
          // gone already
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let stale = false;
      try {
        const [pid] = readFileSync(path, 'utf8').split(' ').map(Number);
        stale = now - statSync(path).mtimeMs > LOCK_STALE_MS || !alive(pid);
      } catch {
        stale = true;
      }
      if (!stale) return null;
      try {
        unlinkSync(path);
      } catch {
        // another process removed it first
      }
    }
  }
  return null;
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
