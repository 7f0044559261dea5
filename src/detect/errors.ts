/**
 * The one error the manifest loader throws. Pure: no I/O.
 */

/**
 * A manifest that cannot be used, with where and why: the source label (a file name, a
 * path or a URL, whatever the caller passed), the 1-based line when it is known, and the
 * path of the offending value inside the document (`rules[0].any[2]`).
 *
 * The message reads like a compiler's:
 * `claude.toml:14: rules[0].any[2]: invalid regex 'Do (you': missing closing )`.
 */
export class ManifestError extends Error {
  override name = 'ManifestError';
  /** What the caller called the manifest (file name, path or URL). */
  readonly source: string;
  /** 1-based line of the offending key or value, null when it could not be found. */
  readonly line: number | null;
  /** Path of the offending value, e.g. 'rules[0].any[2]'; '' for the document itself. */
  readonly path: string;
  /** The problem alone, without source, line and path. */
  readonly detail: string;

  constructor(source: string, line: number | null, path: string, detail: string) {
    const where = line === null ? source : `${source}:${line}`;
    super(`${where}: ${path ? `${path}: ` : ''}${detail}`);
    this.source = source;
    this.line = line;
    this.path = path;
    this.detail = detail;
  }
}
