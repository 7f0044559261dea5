/**
 * Reads a manifest (schema.ts says what one holds): parse (smol-toml), validate (every error
 * names file, line, path and value; unknown keys are errors everywhere, so that a typo cannot
 * silently disable a rule) and compile (patterns with re2js, regions into the `Region`
 * union), within the limits of schema.ts. Pure: the caller reads the text and passes a source
 * label. The schema's names are re-exported here, so that a manifest's readers import one
 * module.
 */
import { parse, TomlError } from 'smol-toml';
import { ManifestError } from './errors.ts';
import { compilePattern, type Pattern, PatternSyntaxError } from './patterns.ts';
import { parseRegion, regionLabel } from './regions.ts';
import { locateLine } from './toml-lines.ts';
import type { RuleState } from './types.ts';

import {
  ACTIVITY_KEYS,
  ANSWER_KEYS,
  ANSWER_TABLE_KEYS,
  ENGINE_VERSION,
  type Example,
  EXAMPLE_KEYS,
  HOOK_SETS,
  INPUT_KEYS,
  INTEGRATION_KEYS,
  type Manifest,
  MANIFEST_KEYS,
  MAX_EXAMPLES,
  MAX_PATTERN_CHARS,
  MAX_RULES,
  type Rule,
  RULE_KEYS,
  RULE_STATES,
  SCHEMA_VERSION,
} from './schema.ts';
export type { Pattern } from './patterns.ts';
export * from './schema.ts';

/** The most characters of a pattern an error message quotes. */
export const QUOTE_MAX = 200;

/** `text` cut to {@link QUOTE_MAX} characters, with '…' and the full length when cut. */
export function quote(text: string, max = QUOTE_MAX): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** What an `id` may look like. */
const ID = /^[a-z0-9-]+$/;

type Path = readonly (string | number)[];

/** 'rules[0].any[2]' from ['rules', 0, 'any', 2]. */
export function formatPath(path: Path): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

/** A TOML type name for messages: 'string', 'integer', 'array', 'table', ... */
function typeName(v: unknown): string {
  if (typeof v === 'string') return 'a string';
  if (typeof v === 'boolean') return 'a boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a float';
  if (typeof v === 'bigint') return 'an integer';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Date) return 'a date';
  return 'a table';
}

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** Validation state for one document: knows how to point at a line. */
class Checker {
  constructor(
    readonly text: string,
    readonly source: string,
    readonly compile: (source: string) => Pattern = compilePattern,
  ) {}

  /** Throws a ManifestError for the value at `path`; `needle` helps find its line. */
  fail(path: Path, detail: string, needle?: string): never {
    throw new ManifestError(
      this.source,
      locateLine(this.text, path, needle),
      formatPath(path),
      detail,
    );
  }

  knownKeys(table: Record<string, unknown>, allowed: readonly string[], path: Path): void {
    for (const key of Object.keys(table)) {
      if (!allowed.includes(key)) {
        this.fail(
          [...path, key],
          `unknown key '${quote(key)}' (expected one of ${allowed.join(', ')})`,
        );
      }
    }
  }

  string(
    table: Record<string, unknown>,
    key: string,
    path: Path,
    required: boolean,
  ): string | null {
    const v = table[key];
    if (v === undefined) {
      if (required) this.fail(path, `missing required key '${key}'`);
      return null;
    }
    if (typeof v !== 'string') this.fail([...path, key], `expected a string, got ${typeName(v)}`);
    return v;
  }

  state(table: Record<string, unknown>, path: Path): RuleState {
    const v = this.string(table, 'state', path, true)!;
    if (!(RULE_STATES as readonly string[]).includes(v)) {
      this.fail(
        [...path, 'state'],
        `invalid state '${quote(v)}' (expected one of ${RULE_STATES.join(', ')})`,
        v,
      );
    }
    return v as RuleState;
  }

  patterns(table: Record<string, unknown>, key: string, path: Path): Pattern[] {
    const v = table[key];
    if (v === undefined) return [];
    const at = [...path, key];
    if (!Array.isArray(v)) this.fail(at, `expected an array of patterns, got ${typeName(v)}`);
    if (v.length === 0) {
      this.fail(at, `empty pattern list (remove '${key}' or give at least one pattern)`);
    }
    return v.map((p, i) => {
      if (typeof p !== 'string') {
        this.fail([...at, i], `expected a pattern string, got ${typeName(p)}`);
      }
      if (p.length === 0) this.fail([...at, i], 'empty pattern (it would match every screen)');
      if (p.length > MAX_PATTERN_CHARS) {
        this.fail(
          [...at, i],
          `pattern too long: ${p.length} characters (at most ${MAX_PATTERN_CHARS}): '${quote(p)}'`,
          p.slice(0, QUOTE_MAX),
        );
      }
      try {
        return this.compile(p);
      } catch (e) {
        if (e instanceof PatternSyntaxError) {
          this.fail([...at, i], `invalid regex '${quote(p)}': ${quote(e.reason)}`, p);
        }
        throw e;
      }
    });
  }
}

function parseRule(c: Checker, value: unknown, index: number): Rule {
  const path = ['rules', index];
  if (!isTable(value)) c.fail(path, `expected a table, got ${typeName(value)}`);
  c.knownKeys(value, RULE_KEYS, path);
  const state = c.state(value, path);
  const name = c.string(value, 'name', path, false);
  const parsed = parseRegion(value.region);
  if ('error' in parsed) c.fail([...path, 'region'], parsed.error);
  const any = c.patterns(value, 'any', path);
  const all = c.patterns(value, 'all', path);
  const none = c.patterns(value, 'none', path);
  if (!any.length && !all.length) c.fail(path, "a rule needs 'any' or 'all' (or both)");
  const region = parsed.region;
  return { index, name, state, region, regionLabel: regionLabel(region), any, all, none };
}

function parseExample(c: Checker, value: unknown, index: number): Example {
  const path = ['examples', index];
  if (!isTable(value)) c.fail(path, `expected a table, got ${typeName(value)}`);
  c.knownKeys(value, EXAMPLE_KEYS, path);
  const state = c.state(value, path);
  const name = c.string(value, 'name', path, false);
  const screen = c.string(value, 'screen', path, true)!;
  const title = c.string(value, 'title', path, false) ?? '';
  const osc = new Map<number, string>();
  if (value.osc !== undefined) {
    if (!isTable(value.osc)) {
      c.fail(
        [...path, 'osc'],
        `expected a table like { 7501 = "state=idle" }, got ${typeName(value.osc)}`,
      );
    }
    for (const [k, v] of Object.entries(value.osc)) {
      const n = Number(k);
      if (!/^\d{1,5}$/.test(k) || n > 65535) {
        c.fail([...path, 'osc', k], `OSC number must be an integer from 0 to 65535, got '${k}'`);
      }
      if (typeof v !== 'string') {
        c.fail([...path, 'osc', k], `expected a string payload, got ${typeName(v)}`);
      }
      osc.set(n, v);
    }
  }
  return { index, name, state, screen, title, osc };
}

/**
 * Parses, validates and compiles a schema-1 manifest.
 * @param text the TOML document
 * @param source what to call it in errors (file name, path or URL)
 * @param compile compiles one pattern (default {@link compilePattern}; a caller that compiled
 *   the patterns beforehand, a few at a time, passes a lookup)
 * @throws ManifestError on a TOML syntax error (with smol-toml's line), an unknown key, a
 *   missing or mistyped value, a bad state or region, an empty pattern list or an invalid regex.
 */
export function parseManifest(
  text: string,
  source: string,
  compile: (pattern: string) => Pattern = compilePattern,
): Manifest {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof TomlError) {
      const first = e.message.split('\n')[0].replace(/^Invalid TOML document: /, '');
      throw new ManifestError(source, e.line || null, '', `TOML syntax error: ${first}`);
    }
    throw e;
  }
  const c: Checker = new Checker(text, source, compile);
  c.knownKeys(doc, MANIFEST_KEYS, []);
  if (doc.schema === undefined) {
    c.fail([], `missing required key 'schema' (this agentwatch reads schema = ${SCHEMA_VERSION})`);
  }
  if (doc.schema !== SCHEMA_VERSION) {
    c.fail(
      ['schema'],
      `unsupported schema ${
        JSON.stringify(doc.schema)
      } (this agentwatch reads schema = ${SCHEMA_VERSION})`,
    );
  }
  const id = c.string(doc, 'id', [], true)!;
  if (!ID.test(id)) {
    c.fail(['id'], `invalid id '${quote(id)}' (lowercase letters, digits and '-')`, id);
  }
  const name = c.string(doc, 'name', [], true)!;
  const version = c.string(doc, 'version', [], true)!;
  let minEngine = 1;
  if (doc.min_engine !== undefined) {
    const v = doc.min_engine;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
      c.fail(['min_engine'], `expected a positive integer, got ${JSON.stringify(v)}`);
    }
    if (v > ENGINE_VERSION) {
      c.fail(
        ['min_engine'],
        `needs rule engine ${v}; this agentwatch has engine ${ENGINE_VERSION} (update agentwatch)`,
      );
    }
    minEngine = v;
  }
  const process = doc.process;
  if (process === undefined) {
    c.fail([], 'missing required key \'process\' (foreground process names, e.g. ["claude"])');
  }
  if (!Array.isArray(process)) {
    c.fail(['process'], `expected an array of process names, got ${typeName(process)}`);
  }
  if (process.length === 0) {
    c.fail(['process'], 'empty process list (name at least one foreground process)');
  }
  process.forEach((p, i) => {
    if (typeof p !== 'string' || p.length === 0) {
      c.fail(
        ['process', i],
        `expected a process name, got ${typeof p === 'string' ? 'an empty string' : typeName(p)}`,
      );
    }
  });
  if (doc.rules === undefined) {
    c.fail([], "missing required key 'rules' (at least one [[rules]] table)");
  }
  if (!Array.isArray(doc.rules)) {
    c.fail(['rules'], `expected an array of [[rules]] tables, got ${typeName(doc.rules)}`);
  }
  if (doc.rules.length === 0) c.fail(['rules'], 'no rules (give at least one [[rules]] table)');
  if (doc.rules.length > MAX_RULES) {
    c.fail(['rules'], `too many rules: ${doc.rules.length} (at most ${MAX_RULES})`);
  }
  const rules = doc.rules.map((r, i) => parseRule(c, r, i));
  const rawExamples = doc.examples ?? [];
  if (!Array.isArray(rawExamples)) {
    c.fail(['examples'], `expected an array of [[examples]] tables, got ${typeName(rawExamples)}`);
  }
  if (rawExamples.length > MAX_EXAMPLES) {
    c.fail(['examples'], `too many examples: ${rawExamples.length} (at most ${MAX_EXAMPLES})`);
  }
  const examples = rawExamples.map((e, i) => parseExample(c, e, i));
  const integrations = parseIntegrations(c, doc.integrations);
  const input = parseInput(c, doc.input);
  const activity = parseActivity(c, doc.activity);
  const answer = parseAnswer(c, doc.answer);
  return {
    schema: 1,
    id,
    name,
    version,
    minEngine,
    process: process as string[],
    rules,
    examples,
    integrations,
    input,
    activity,
    answer,
    source,
  };
}

function parseAnswer(c: Checker, value: unknown): Manifest['answer'] {
  if (value === undefined) return null;
  if (!isTable(value)) c.fail(['answer'], `expected a table, got ${typeName(value)}`);
  c.knownKeys(value, ANSWER_TABLE_KEYS, ['answer']);
  const keys = value.keys;
  if (typeof keys !== 'string' || !(ANSWER_KEYS as readonly string[]).includes(keys)) {
    c.fail(
      ['answer', 'keys'],
      `expected one of ${ANSWER_KEYS.map((k) => `'${k}'`).join(', ')}, got ${
        typeof keys === 'string' ? `'${quote(keys)}'` : typeName(keys)
      }`,
      typeof keys === 'string' ? keys : undefined,
    );
  }
  return { keys: keys as (typeof ANSWER_KEYS)[number] };
}

function parseActivity(c: Checker, value: unknown): Manifest['activity'] {
  if (value === undefined) return null;
  if (!isTable(value)) c.fail(['activity'], `expected a table, got ${typeName(value)}`);
  c.knownKeys(value, ACTIVITY_KEYS, ['activity']);
  const parsed = parseRegion(value.region);
  if ('error' in parsed) c.fail(['activity', 'region'], parsed.error);
  const any = c.patterns(value, 'any', ['activity']);
  if (!any.length) c.fail(['activity'], "an [activity] table needs 'any' patterns");
  return { region: parsed.region, regionLabel: regionLabel(parsed.region), any };
}

function parseInput(c: Checker, value: unknown): Manifest['input'] {
  if (value === undefined) return null;
  if (!isTable(value)) c.fail(['input'], `expected a table, got ${typeName(value)}`);
  c.knownKeys(value, INPUT_KEYS, ['input']);
  const parsed = parseRegion(value.region);
  if ('error' in parsed) c.fail(['input', 'region'], parsed.error);
  const empty = c.patterns(value, 'empty', ['input']);
  if (!empty.length) c.fail(['input'], "an [input] table needs 'empty' patterns");
  const box = c.patterns(value, 'box', ['input']);
  const menu = c.patterns(value, 'menu', ['input']);
  const pasted = c.patterns(value, 'pasted', ['input']);
  const pending = c.patterns(value, 'pending', ['input']);
  return {
    region: parsed.region,
    regionLabel: regionLabel(parsed.region),
    empty,
    box,
    menu,
    pasted,
    pending,
  };
}

function parseIntegrations(c: Checker, value: unknown): Manifest['integrations'] {
  if (value === undefined) return {};
  if (!value || typeof value !== 'object' || Array.isArray(value) || value instanceof Date) {
    c.fail(['integrations'], `expected a table, got ${typeName(value)}`);
  }
  const table = value as Record<string, unknown>;
  c.knownKeys(table, INTEGRATION_KEYS, ['integrations']);
  const hooks = c.string(table, 'hooks', ['integrations'], false);
  if (hooks !== null && !(HOOK_SETS as readonly string[]).includes(hooks)) {
    c.fail(
      ['integrations', 'hooks'],
      `unknown hook set '${quote(hooks)}' (known: ${HOOK_SETS.join(', ')})`,
      hooks,
    );
  }
  const acp = c.string(table, 'acp', ['integrations'], false);
  return {
    ...(hooks ? { hooks: hooks as 'claude-code' } : {}),
    ...(acp ? { acp } : {}),
  };
}
