/**
 * Manifest schema v1: parse (smol-toml), validate (every error names file, line, path and
 * value) and compile (patterns with re2js, regions into the {@link Region} union). Pure: the
 * caller reads the text and passes a source label.
 *
 * ```toml
 * schema = 1
 * id = "claude"                 # [a-z0-9-]+
 * name = "Claude Code"
 * version = "2026.11.30"        # the manifest's own version (dotted numbers; newer wins)
 * min_engine = 1                # optional: the oldest rule engine that reads it (see ENGINE_VERSION)
 * process = ["claude"]          # foreground process names that identify the agent
 *
 * [[rules]]                     # ordered: the first rule that matches decides
 * name = "permission prompt"    # optional label for explain
 * state = "blocked"             # blocked | working | idle
 * region = { bottom = 12 }      # screen (default) | title | below_last_rule | { bottom = N } | { osc = N }
 * all = ['^\s*❯\s*\d+\.\s']     # every one must match
 * any = ['Do you want to']      # at least one must match (a rule needs any or all)
 * none = ['esc to interrupt']   # none may match
 *
 * [[examples]]                  # checked by `agentwatch manifests check`
 * state = "idle"
 * screen = """..."""
 * title = "..."                 # optional
 * osc = { 7501 = "state=idle" } # optional
 * ```
 * Unknown keys are errors everywhere: a typo must not silently disable a rule.
 *
 * Limits (every source, so that a manifest from a URL cannot make the sweep slow or a message
 * huge): at most {@link MAX_RULES} rules, {@link MAX_EXAMPLES} examples, patterns of at most
 * {@link MAX_PATTERN_CHARS} characters; messages quote at most {@link QUOTE_MAX} characters
 * of a pattern.
 */
import { parse, TomlError } from 'smol-toml';
import { ManifestError } from './errors.ts';
import { compilePattern, type Pattern, PatternSyntaxError } from './patterns.ts';
import { parseRegion, regionLabel } from './regions.ts';
import { locateLine } from './toml-lines.ts';
import type { Region, RuleState } from './types.ts';

export type { Pattern } from './patterns.ts';

/** The schema version this code reads. */
export const SCHEMA_VERSION = 1;
/**
 * The rule engine's version: a manifest (or a catalog entry) with a higher `min_engine` needs
 * a newer agentwatch and is refused. 1: schema 1 with regions, `[input]` and `[integrations]`.
 */
export const ENGINE_VERSION = 1;
/** The most `[[rules]]` a manifest may have. */
export const MAX_RULES = 256;
/** The most `[[examples]]` a manifest may have. */
export const MAX_EXAMPLES = 512;
/** The longest pattern, in characters (UTF-16 code units): 2 KB of ASCII. */
export const MAX_PATTERN_CHARS = 2048;
/** The most characters of a pattern an error message quotes. */
export const QUOTE_MAX = 200;

/** `text` cut to {@link QUOTE_MAX} characters, with '…' and the full length when cut. */
export function quote(text: string, max = QUOTE_MAX): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** Top-level keys of schema 1, in the order the docs list them. */
export const MANIFEST_KEYS = [
  'schema',
  'id',
  'name',
  'version',
  'min_engine',
  'process',
  'rules',
  'examples',
  'integrations',
  'input',
  'activity',
] as const;
/**
 * Keys of the optional `[activity]` table: where a working agent says what it does (Claude
 * Code's spinner line, `✢ Running the tests…`). `region` as in a rule; `any`: patterns whose
 * first match, its leading glyphs dropped, is shown on the board's row.
 */
export const ACTIVITY_KEYS = ['region', 'any'] as const;
/**
 * Keys of the optional `[input]` table: where the agent's input box is and what it looks like
 * empty, so that `send` never appends to (and submits) a draft the person left there.
 * `region` as in a rule; `empty`: patterns of which one matches when the box holds no text;
 * `box` (optional): patterns of which one matches when the box is drawn at all, empty or not
 * (none matching: the agent is starting and draws no input box yet, so no draft either).
 */
export const INPUT_KEYS = ['region', 'empty', 'box'] as const;
/**
 * Keys of the optional `[integrations]` table: what agentwatch adds when it starts the agent
 * itself. `hooks`: which hook set to install ('claude-code': `--settings` hooks calling
 * `agentwatch report|notify`); `acp`: the command line that speaks the Agent Client Protocol
 * for this agent, words split at spaces, no quoting (`agentwatch acp ID` runs it; e.g.
 * 'gemini --acp', or the adapter 'claude-agent-acp').
 */
export const INTEGRATION_KEYS = ['hooks', 'acp'] as const;
/** Hook sets agentwatch knows how to install. */
export const HOOK_SETS = ['claude-code'] as const;
/** Keys of one `[[rules]]` table. */
export const RULE_KEYS = ['state', 'name', 'region', 'any', 'all', 'none'] as const;
/** Keys of one `[[examples]]` table. */
export const EXAMPLE_KEYS = ['name', 'state', 'screen', 'title', 'osc'] as const;
/** The states a rule may assign. */
export const RULE_STATES: readonly RuleState[] = ['blocked', 'working', 'idle'];
/** What an `id` may look like. */
const ID = /^[a-z0-9-]+$/;

/** One compiled rule. */
export interface Rule {
  /** 0-based position in `[[rules]]`. */
  readonly index: number;
  /** The optional `name`, null when absent. */
  readonly name: string | null;
  readonly state: RuleState;
  readonly region: Region;
  /** The region as written, e.g. 'bottom 12' (for explain and {@link Evaluation.region}). */
  readonly regionLabel: string;
  /** At least one must match (empty: no such condition). */
  readonly any: readonly Pattern[];
  /** Every one must match (empty: no such condition). */
  readonly all: readonly Pattern[];
  /** None may match. */
  readonly none: readonly Pattern[];
}

/** One `[[examples]]` entry: a screen and the state the rules must give it. */
export interface Example {
  readonly index: number;
  readonly name: string | null;
  readonly state: RuleState;
  /** Screen rows joined with '\n' (no soft wraps). */
  readonly screen: string;
  readonly title: string;
  readonly osc: ReadonlyMap<number, string>;
}

/** A parsed, validated and compiled manifest. Immutable; safe to share between panes. */
export interface Manifest {
  readonly schema: 1;
  readonly id: string;
  readonly name: string;
  readonly version: string;
  /** The oldest rule engine that reads this manifest (`min_engine`, default 1). */
  readonly minEngine: number;
  /** Foreground process names that identify the agent (e.g. 'claude'). */
  readonly process: readonly string[];
  readonly rules: readonly Rule[];
  readonly examples: readonly Example[];
  /** Where the input box is and what it looks like empty (`[input]`); null when not declared. */
  readonly input: {
    readonly region: Region;
    readonly regionLabel: string;
    readonly empty: readonly Pattern[];
    /** One matches when the box is drawn (empty or not); none declared: always taken as drawn. */
    readonly box: readonly Pattern[];
  } | null;
  /** Where a working agent says what it does (`[activity]`); null or absent when not declared. */
  readonly activity?: {
    readonly region: Region;
    readonly regionLabel: string;
    readonly any: readonly Pattern[];
  } | null;
  /** What agentwatch adds when it starts the agent itself (`[integrations]`). */
  readonly integrations: { readonly hooks?: 'claude-code'; readonly acp?: string };
  /** The source label given to {@link parseManifest} (file name, path or URL). */
  readonly source: string;
}

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
    source,
  };
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
  return { region: parsed.region, regionLabel: regionLabel(parsed.region), empty, box };
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
