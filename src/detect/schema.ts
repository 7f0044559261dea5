/**
 * Manifest schema v1: the keys a manifest may have, its limits, and the compiled
 * {@link Manifest} that manifest.ts makes of one (parse, validate, compile). Pure.
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
import type { Pattern } from './patterns.ts';
import type { Region, RuleState } from './types.ts';

/** The schema version this code reads. */
export const SCHEMA_VERSION = 1;
/**
 * The rule engine's version: a manifest (or a catalog entry) with a higher `min_engine` needs
 * a newer agentwatch and is refused. 1: schema 1 with regions, `[input]` and `[integrations]`;
 * 2: `[input] box` (a screen no rule matches reads starting until the input box was drawn) and
 * `[answer] keys` (how a dialog takes an option); 3: `[input] menu` and `[input] pasted` (a menu
 * over the input box; what the box shows for pasted text); 4: `[input] pending` (a permission
 * dialog may be about to show).
 */
export const ENGINE_VERSION = 4;
/** The most `[[rules]]` a manifest may have. */
export const MAX_RULES = 256;
/** The most `[[examples]]` a manifest may have. */
export const MAX_EXAMPLES = 512;
/** The longest pattern, in characters (UTF-16 code units): 2 KB of ASCII. */
export const MAX_PATTERN_CHARS = 2048;
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
  'answer',
] as const;
/**
 * Keys of the optional `[activity]` table: where a working agent says what it does (Claude
 * Code's spinner line, `✢ Running the tests…`). `region` as in a rule; `any`: patterns whose
 * first match, its leading glyphs dropped, is shown on the board's row.
 */
export const ACTIVITY_KEYS = ['region', 'any'] as const;
/**
 * Keys of the optional `[answer]` table: which keys the agent's dialogs take for an answer.
 * `keys`: one of {@link ANSWER_KEYS}.
 */
export const ANSWER_TABLE_KEYS = ['keys'] as const;
/**
 * How `answer` picks an option ({@link Manifest.answer}): `arrows` (the default) moves the
 * selection with ↑/↓ (←/→ on a row of buttons) and presses Enter; `digit` types the option's
 * number (1-9), which in the agent's dialogs picks that option and confirms it, no Enter
 * (Claude Code 2.1.332's permission, edit, question and plan dialogs). Options drawn without
 * numbers, or numbered past 9, are always answered with arrows and Enter.
 */
export const ANSWER_KEYS = ['arrows', 'digit'] as const;
/**
 * Keys of the optional `[input]` table: where the agent's input box is and what it looks like
 * empty, so that `send` never appends to (and submits) a draft the person left there.
 * `region` as in a rule; `empty`: patterns of which one matches when the box holds no text;
 * `box` (optional): patterns of which one matches when the box is drawn at all, empty or not
 * (none matching: the agent is starting and draws no input box yet, so no draft either);
 * `menu` (optional): patterns of which one matches when a menu or dialog the person opened, not
 * a permission prompt (the pane reads idle), covers the box or takes its keys: Claude Code's
 * `/model` menu, Gemini CLI's `/theme` dialog, a slash command's list of commands. `send`
 * types nothing then (an Enter would pick a menu item), and says a menu is open, not that a
 * draft is there. `pasted` (optional): patterns of which one matches the stand-in the box shows
 * for pasted text instead of the text (Claude Code's `[Pasted text #1 +4 lines]`): `send`
 * presses its Enter only once its text (or a new stand-in) shows in the box. `pending`
 * (optional): patterns of which one matches, anywhere on the screen, while the agent is
 * between a tool call and its decision to ask permission for it (Claude Code runs its
 * PreToolUse hooks): keys typed then may be read by the dialog it draws next, so `send` waits
 * until none has matched for a moment.
 */
export const INPUT_KEYS = ['region', 'empty', 'box', 'menu', 'pasted', 'pending'] as const;
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
    /**
     * One matches when a menu or dialog that is not a permission prompt covers the box or takes
     * its keys (`/model`); none declared: never.
     */
    readonly menu: readonly Pattern[];
    /** One matches the stand-in the box shows for pasted text; none declared: never. */
    readonly pasted: readonly Pattern[];
    /**
     * One matches (on the whole screen) while a permission dialog may be about to show; none
     * declared (or absent): never.
     */
    readonly pending?: readonly Pattern[];
  } | null;
  /** Where a working agent says what it does (`[activity]`); null or absent when not declared. */
  readonly activity?: {
    readonly region: Region;
    readonly regionLabel: string;
    readonly any: readonly Pattern[];
  } | null;
  /**
   * Which keys its dialogs take for an answer (`[answer]`); null or absent when not declared
   * (then `arrows`).
   */
  readonly answer?: { readonly keys: (typeof ANSWER_KEYS)[number] } | null;
  /** What agentwatch adds when it starts the agent itself (`[integrations]`). */
  readonly integrations: { readonly hooks?: 'claude-code'; readonly acp?: string };
  /** The source label given to {@link parseManifest} (file name, path or URL). */
  readonly source: string;
}
