/**
 * The checks a manifest file of the person's passes before agentwatch uses it, beyond
 * parsing (manifest-set.ts does the loading and reloading): whether its folder can be trusted
 * ({@link unsafeDir}), its change stamp ({@link statSig}), its own `[[examples]]`
 * ({@link checkExamples}), and the last good copy of each file that passed
 * ({@link LastGoodCopies}), which a process started while the file is broken uses.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ManifestError } from '../detect/errors.ts';
import { runExamples } from '../detect/examples.ts';
import type { Manifest } from '../detect/manifest.ts';
import { loadManifestFile, MANIFEST_MAX_BYTES } from './manifest-sources.ts';
import { readBoundedText } from './read-bounded.ts';

/** A file's identity and change stamp, or null when it cannot be stat-ed (gone). */
export function statSig(path: string): string | null {
  try {
    const st = statSync(path);
    return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? null : `error:${code}`;
  }
}

/**
 * Why folder `dir` must not be trusted, or null: it must belong to us and not be writable by
 * every user, or someone else could put rules in force for our sessions. (Group-writable is
 * allowed: with per-user groups, umask 002 makes every folder so.)
 */
export function unsafeDir(dir: string): string | null {
  try {
    const st = statSync(dir);
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) {
      return `${dir}: belongs to uid ${st.uid}, not to us (${uid}): its manifests are ignored`;
    }
    if ((st.mode & 0o002) !== 0 && (st.mode & 0o1000) === 0) {
      return `${dir}: writable by every user (mode ${
        (st.mode & 0o777).toString(8)
      }): its manifests are ignored (chmod o-w)`;
    }
    return null;
  } catch {
    return null; // gone: nothing to read anyway
  }
}

/**
 * Checks a manifest beyond parsing: every `[[examples]]` entry must give its state.
 * @throws ManifestError naming the first failing example.
 */
export function checkExamples(m: Manifest): void {
  const report = runExamples(m);
  const f = report.failed[0];
  if (f) {
    throw new ManifestError(
      m.source,
      null,
      `examples[${f.index}]`,
      `expected ${f.expected}, got ${f.got} (${f.reason}); ${report.failed.length} of ${report.results.length} examples fail`,
    );
  }
}

/**
 * The last good copies of the person's manifest files, one per file name in folder `dir`
 * (created 0700 on the first copy; files 0600).
 */
export class LastGoodCopies {
  constructor(readonly dir: string) {}

  /** Where the copy of `file` is kept. */
  pathOf(file: string): string {
    return join(this.dir, basename(file));
  }

  /**
   * Keeps `file`, which has just passed every check with stamp `sig` ({@link statSig}), as its
   * last good copy: written to a temporary file and renamed over the copy (atomic); skipped
   * when the file changed since (the next read keeps it) or the copy already holds it.
   * Returns the error to report, or null.
   */
  keep(file: string, sig: string | null): string | null {
    const copy = this.pathOf(file);
    try {
      const text = readBoundedText(file, MANIFEST_MAX_BYTES);
      if (statSig(file) !== sig) return null;
      try {
        if (readFileSync(copy, 'utf8') === text) return null;
      } catch {
        // no copy yet
      }
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const tmp = `${copy}.${process.pid}.tmp`;
      writeFileSync(tmp, text, { mode: 0o600 });
      renameSync(tmp, copy);
      return null;
    } catch (e) {
      return `cannot keep a copy of ${file}: ${(e as Error).message}`;
    }
  }

  /**
   * The manifest of `file`'s last good copy, or null when none is kept, the folder is not
   * ours ({@link unsafeDir}) or the copy no longer passes (an older agentwatch wrote it).
   */
  read(file: string): Manifest | null {
    const copy = this.pathOf(file);
    if (statSig(copy) === null || unsafeDir(this.dir)) return null;
    try {
      const m = loadManifestFile(copy);
      checkExamples(m);
      return m;
    } catch {
      return null;
    }
  }
}
