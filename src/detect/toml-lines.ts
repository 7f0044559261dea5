/**
 * Finds the source line of a value in a TOML document, so that a semantic error (a bad regex,
 * an unknown key) can name the line like a syntax error does. smol-toml gives a line only for
 * syntax errors; this is a small scanner that knows enough TOML to skip strings and comments.
 * Pure; runs only when an error is being reported.
 */

/** One `[table]` or `[[array.of.tables]]` header. */
interface Header {
  /** 1-based line. */
  line: number;
  name: string;
  array: boolean;
}

/** Where a line starts: only lines that start outside strings can hold keys or headers. */
interface Scan {
  lines: string[];
  /** `keyable[i]` is true when line i (0-based) starts outside any string or comment. */
  keyable: boolean[];
  headers: Header[];
}

const HEADER_ARRAY = /^\s*\[\[\s*([^\]]+?)\s*\]\]/;
const HEADER_TABLE = /^\s*\[\s*([^\]]+?)\s*\]/;
const KEY = /^\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*[.=]/;

/** Splits `text` into lines and marks the ones that start outside strings and comments. */
function scan(text: string): Scan {
  const lines = text.split(/\r?\n/);
  const keyable: boolean[] = [];
  type State = 'normal' | 'basic' | 'literal' | 'mlbasic' | 'mlliteral';
  let state: State = 'normal';
  for (const line of lines) {
    keyable.push(state === 'normal');
    let i = 0;
    while (i < line.length) {
      const c = line[i];
      if (state === 'normal') {
        if (c === '#') break;
        if (line.startsWith('"""', i)) (state = 'mlbasic'), (i += 3);
        else if (line.startsWith("'''", i)) (state = 'mlliteral'), (i += 3);
        else if (c === '"') (state = 'basic'), i++;
        else if (c === "'") (state = 'literal'), i++;
        else i++;
      } else if (state === 'basic' || state === 'mlbasic') {
        if (c === '\\') i += 2;
        else if (state === 'basic' && c === '"') (state = 'normal'), i++;
        else if (state === 'mlbasic' && line.startsWith('"""', i)) (state = 'normal'), (i += 3);
        else i++;
      } else {
        if (state === 'literal' && c === "'") (state = 'normal'), i++;
        else if (state === 'mlliteral' && line.startsWith("'''", i)) (state = 'normal'), (i += 3);
        else i++;
      }
    }
    // A single-line string cannot span lines: an unterminated one is a syntax error, which
    // smol-toml reports itself; resume scanning normally.
    if (state === 'basic' || state === 'literal') state = 'normal';
  }
  const headers: Header[] = [];
  lines.forEach((line, i) => {
    if (!keyable[i]) return;
    const a = HEADER_ARRAY.exec(line);
    if (a) return void headers.push({ line: i + 1, name: a[1], array: true });
    const t = HEADER_TABLE.exec(line);
    if (t) headers.push({ line: i + 1, name: t[1], array: false });
  });
  return { lines, keyable, headers };
}

/** The key a line defines (its first dotted segment), or null. */
function keyOf(scan: Scan, index: number): string | null {
  if (!scan.keyable[index]) return null;
  const m = KEY.exec(scan.lines[index]);
  return m ? (m[1] ?? m[2] ?? m[3]) : null;
}

/** How `value` may be spelled in the source: raw (literal strings) or escaped (basic strings). */
function spellings(value: string): string[] {
  const first = value.split('\n')[0];
  const escaped = first.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  return first === escaped ? [first] : [first, escaped];
}

/**
 * The 1-based line of the value at `path` (e.g. `['rules', 0, 'any', 2]`) in `text`, or null.
 * When `needle` (the offending value, e.g. a pattern) is given, the line that spells it is
 * preferred over the line of its key. Best effort: inline tables and unusual layouts fall
 * back to the nearest enclosing key or header.
 */
export function locateLine(
  text: string,
  path: readonly (string | number)[],
  needle?: string,
): number | null {
  const s = scan(text);
  let from = 0; // 0-based first line of the section that holds path's remaining keys
  let to = s.headers.length ? s.headers[0].line - 1 : s.lines.length; // exclusive
  let found: number | null = null;
  let rest = path;
  if (typeof path[0] === 'string' && typeof path[1] === 'number') {
    const tables = s.headers.filter((h) => h.array && h.name === path[0]);
    const header = tables[path[1]];
    if (header) {
      const next = s.headers.find((h) => h.line > header.line);
      from = header.line; // the line after the header, 0-based
      to = next ? next.line - 1 : s.lines.length;
      found = header.line;
      rest = path.slice(2);
    } else {
      // `rules = [{...}]` written inline: fall back to the key's line.
      rest = path.slice(0, 1);
    }
  }
  let keyLine: number | null = null;
  if (typeof rest[0] === 'string') {
    for (let i = from; i < to; i++) {
      if (keyOf(s, i) === rest[0]) {
        keyLine = i;
        break;
      }
    }
  }
  if (keyLine !== null) found = keyLine + 1;
  if (needle) {
    const forms = spellings(needle);
    const start = keyLine ?? from;
    for (let i = start; i < to; i++) {
      if (i > start && keyLine !== null && keyOf(s, i) !== null) break; // the next key
      if (forms.some((f) => f && s.lines[i].includes(f))) return i + 1;
    }
  }
  return found;
}
