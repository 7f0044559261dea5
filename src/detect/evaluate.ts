/**
 * Evaluation: one screen against one manifest, first matching rule wins. Pure and cheap: it
 * runs in the sweep for every changed pane (100 panes every 700 ms). Each region's text is
 * computed at most once per call and only when a rule needs it; patterns are tested on RE2's
 * DFA and only the deciding pattern is re-run to extract the matched text.
 */
import type { Manifest, Rule } from './manifest.ts';
import { findMatch, type Pattern, testPattern } from './patterns.ts';
import { RegionTexts } from './regions.ts';
import type { Evaluation, ScreenInput } from './types.ts';
import { withoutSidePanel } from './side-panel.ts';

/** The reason given when no rule matches (the screen is then `idle`, never `blocked`). */
export const NO_RULE_MATCHED = 'no rule matched';

/**
 * Whether `rule` matches `text`: every `all` pattern matches, no `none` pattern matches and,
 * when `any` is given, at least one of it matches. Returns the deciding pattern (the first
 * matching `any`, else the first `all`) or null.
 */
export function matchRule(rule: Rule, text: string): Pattern | null {
  for (const p of rule.all) if (!testPattern(p, text)) return null;
  for (const p of rule.none) if (testPattern(p, text)) return null;
  if (rule.any.length === 0) return rule.all[0];
  for (const p of rule.any) if (testPattern(p, text)) return p;
  return null;
}

/** Names a rule in reasons: `rule 2 'permission prompt' (blocked)`. */
export function describeRule(rule: Pick<Rule, 'index' | 'name' | 'state'>): string {
  return `rule ${rule.index}${rule.name ? ` '${rule.name}'` : ''} (${rule.state})`;
}

/** Why `rule` matched, in words (`any[1] matched, all 2 matched, none of 3 matched`). */
function matchedBecause(rule: Rule, decisive: Pattern): string {
  const parts: string[] = [];
  if (rule.any.length) parts.push(`any[${rule.any.indexOf(decisive)}] matched`);
  if (rule.all.length) parts.push(`all ${rule.all.length} matched`);
  if (rule.none.length) parts.push(`none of ${rule.none.length} matched`);
  return parts.join(', ');
}

/** Longest activity text kept, in characters. */
const ACTIVITY_MAX = 80;

/**
 * What an agent says it does in `text` (its `[activity]` region's text): the first match of
 * `patterns`, leading glyphs (a spinner frame) and trailing blanks dropped, at most
 * {@link ACTIVITY_MAX} characters; undefined when none matches.
 */
export function activityIn(text: string, patterns: readonly Pattern[]): string | undefined {
  for (const p of patterns) {
    const said = activityText(findMatch(p, text));
    if (said) return said;
  }
  return undefined;
}

/**
 * What an `[activity]` pattern's match says: leading glyphs (a spinner frame) and trailing
 * blanks dropped, at most {@link ACTIVITY_MAX} characters; undefined for none or nothing.
 */
export function activityText(match: string | null): string | undefined {
  return match?.replace(/^[^\p{L}\p{N}]+/u, '').trim().slice(0, ACTIVITY_MAX) || undefined;
}

/** What the agent says it does on the screen of `texts`, by `manifest`'s `[activity]`. */
function activityOf(texts: RegionTexts, manifest: Manifest): string | undefined {
  const a = manifest.activity;
  return a ? activityIn(texts.text(a.region), a.any) : undefined;
}

/**
 * Classifies `screen` with `manifest`'s rules, in order; the first rule that matches decides.
 * No rule matching gives `idle` with reason {@link NO_RULE_MATCHED}: a false "needs you"
 * costs more than a late one. A side panel's column is cut off first ({@link withoutSidePanel}:
 * Claude Code 2.1.332's diff panel in a wide pane).
 */
export function evaluate(whole: ScreenInput, manifest: Manifest): Evaluation {
  const screen = withoutSidePanel(whole);
  const texts = new RegionTexts(screen);
  const rules = manifest.rules;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i];
    const text = texts.text(rule.region);
    const decisive = matchRule(rule, text);
    if (!decisive) continue;
    const activity = rule.state === 'working' ? activityOf(texts, manifest) : undefined;
    const evaluation = ruleEvaluation(rule, decisive, text, activity);
    if (rule.region.kind !== 'osc') return evaluation;
    let beneath: Rule['state'] | null = null;
    for (let j = i + 1; j < rules.length && beneath === null; j++) {
      const below = rules[j];
      if (!isInBand(below) && matchRule(below, texts.text(below.region))) beneath = below.state;
    }
    return withScreenState(evaluation, beneath);
  }
  return NO_MATCH;
}

/** True for a rule on a title or OSC region (what the agent says, not what the screen shows). */
export function isInBand(rule: Rule): boolean {
  return rule.region.kind === 'osc' || rule.region.kind === 'title';
}

/** `evaluation` (decided by an OSC rule) with the state the screen's rules give beneath it. */
export function withScreenState(
  evaluation: Evaluation,
  screenState: Rule['state'] | null,
): Evaluation {
  return { ...evaluation, screenState };
}

/** The evaluation when no rule matches. */
export const NO_MATCH: Evaluation = Object.freeze({
  state: 'idle',
  rule: null,
  pattern: null,
  match: null,
  region: null,
  reason: NO_RULE_MATCHED,
});

/**
 * The evaluation `rule` gives when `decisive` (one of its patterns) decided it on `text`, with
 * what the agent says it does (`activity`, for a working rule) when it says.
 */
export function ruleEvaluation(
  rule: Rule,
  decisive: Pattern,
  text: string,
  activity?: string,
): Evaluation {
  return evaluationOf(rule, decisive, findMatch(decisive, text), activity);
}

/** The reason of each rule by its deciding pattern (the same words every time). */
const reasons = new WeakMap<Rule, Map<Pattern, string>>();

/**
 * {@link ruleEvaluation} with the matched text already found (`match`: the leftmost match of
 * `decisive` in the rule's region text, as {@link findMatch} gives it).
 */
export function evaluationOf(
  rule: Rule,
  decisive: Pattern,
  match: string | null,
  activity?: string,
): Evaluation {
  let byPattern = reasons.get(rule);
  if (!byPattern) reasons.set(rule, byPattern = new Map());
  let reason = byPattern.get(decisive);
  if (reason === undefined) {
    reason = `${describeRule(rule)}: ${matchedBecause(rule, decisive)} in ${rule.regionLabel}`;
    byPattern.set(decisive, reason);
  }
  // two literals rather than a spread: the same keys in the same order, without the copy
  return activity
    ? {
      activity,
      state: rule.state,
      rule: rule.index,
      pattern: decisive.source,
      match,
      region: rule.regionLabel,
      reason,
    }
    : {
      state: rule.state,
      rule: rule.index,
      pattern: decisive.source,
      match,
      region: rule.regionLabel,
      reason,
    };
}

/**
 * True when one of the manifest's `[input] pending` patterns matches `screen`'s whole text (a
 * side panel cut off): the agent is between a tool call and its decision to ask permission for
 * it, and a dialog may be about to show (Claude Code 2.1.332 while its PreToolUse hooks run:
 * `✢ Accomplishing… (running PreToolUse hooks… 0/2 · 1s · ↓ 2 tokens)`). Pure.
 */
export function toolPending(screen: ScreenInput, manifest: Manifest): boolean {
  const pending = manifest.input?.pending;
  if (!pending?.length) return false;
  const text = withoutSidePanel(screen).rows.join('\n');
  return pending.some((p) => testPattern(p, text));
}

/**
 * What the agent's input box shows, by the manifest's `[input]` table: `menu` when one of its
 * `menu` patterns matches in its region (a menu or dialog the person opened covers the box or
 * takes its keys, though the pane reads idle: Claude Code 2.1.332's `/model` menu, Gemini CLI
 * 0.61.0's `/theme` dialog, a slash command's list), `empty` when one of its `empty` patterns
 * matches, `absent` when it declares `box` patterns and none matches (no input box drawn: Qwen
 * Code 0.24.4 while `Initializing...`, Claude Code 2.1.332 under a menu its patterns do not
 * know), `text` otherwise (a draft the person left); null when the manifest declares no input
 * box. Pure; for the typing guard.
 */
export function inputBox(
  screen: ScreenInput,
  manifest: Manifest,
): 'empty' | 'text' | 'absent' | 'menu' | null {
  if (!manifest.input) return null;
  const text = new RegionTexts(withoutSidePanel(screen)).text(manifest.input.region);
  if (manifest.input.menu.some((p) => testPattern(p, text))) return 'menu';
  if (manifest.input.empty.some((p) => testPattern(p, text))) return 'empty';
  const { box } = manifest.input;
  if (box.length && !box.some((p) => testPattern(p, text))) return 'absent';
  return 'text';
}

/**
 * Whether the agent's input box holds text (a draft the person left): see {@link inputBox};
 * false when it is empty, not drawn or covered by a menu, null when the manifest declares no
 * input box.
 */
export function inputHoldsText(screen: ScreenInput, manifest: Manifest): boolean | null {
  const box = inputBox(screen, manifest);
  return box === null ? null : box === 'text';
}

/** How many characters of the end of a sent text {@link inputShows} looks for. */
export const SENT_TAIL_CHARS = 20;

/**
 * `text` as {@link inputShows} compares it: without blanks (a box wraps a text at blanks, or
 * inside a word, and indents its next row) and without box-drawing and block characters
 * (U+2500-U+259F: the border an agent draws beside each row of its box, opencode's `┃`).
 */
export function boxComparable(text: string): string {
  return text.replace(/[\s\u00a0\u200b\u2500-\u259f]+/gu, '');
}

/** How many times `want` occurs in `text`, overlapping ones too ('aa' in 'aaa': 2). */
function occurrences(text: string, want: string): number {
  let n = 0;
  for (let i = text.indexOf(want); i >= 0; i = text.indexOf(want, i + 1)) n++;
  return n;
}

/**
 * Every match of `pattern` in `text`, line by line and left to right (for stand-ins such as
 * `[Pasted text #2]`, which lie in one line).
 */
function matchesIn(pattern: Pattern, text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    let rest = line;
    for (let m = findMatch(pattern, rest); m; m = findMatch(pattern, rest)) {
      out.push(m);
      rest = rest.slice(rest.indexOf(m) + m.length);
    }
  }
  return out;
}

/**
 * Whether the text `sent` shows in the agent's input box on `screen`, by the manifest's
 * `[input]` table: `text` when its region holds the last {@link SENT_TAIL_CHARS} characters of
 * `sent` more often than the region of `before` (the screen before `sent` was typed; none:
 * never) did (both compared by {@link boxComparable}: the box may wrap the text over rows, or
 * scroll it so that only its end shows; a short text such as `x` is in many a menu's words
 * already); `pasted` when it holds a stand-in for pasted text (one of the
 * `pasted` patterns: Claude Code 2.1.332 shows `[Pasted text #1 +4 lines]` for a paste of more
 * than 2 lines, and `[Pasted text #2]` for 1,213 characters typed on one line; Gemini CLI 0.61.0
 * `[Pasted Text: 30 lines]`; Qwen Code 0.24.4 `[Pasted Content 445 chars]`) that `before` did
 * not hold; `none` otherwise (a menu or dialog took the
 * text, or the agent has not drawn it yet); null when the manifest declares no input box. A
 * `sent` of blanks only shows nothing: `text`. Pure; for the typing guard.
 *
 * Limits: a menu that shows what is typed into it (a filter field) shows the text as a box
 * would; only its `[input] menu` pattern tells it. Text whose end was in the region before, on a
 * row that the growing box pushed out of it, is not counted as shown (the Enter is withheld).
 */
export function inputShows(
  screen: ScreenInput,
  manifest: Manifest,
  sent: string,
  before?: ScreenInput,
): 'text' | 'pasted' | 'none' | null {
  const input = manifest.input;
  if (!input) return null;
  const want = [...boxComparable(sent)].slice(-SENT_TAIL_CHARS).join('');
  if (!want) return 'text';
  const text = new RegionTexts(withoutSidePanel(screen)).text(input.region);
  const old = before ? new RegionTexts(withoutSidePanel(before)).text(input.region) : '';
  if (occurrences(boxComparable(text), want) > occurrences(boxComparable(old), want)) return 'text';
  if (input.pasted.length) {
    const had = new Map<string, number>();
    for (const p of input.pasted) {
      for (const m of matchesIn(p, old)) had.set(m, (had.get(m) ?? 0) + 1);
    }
    for (const p of input.pasted) {
      for (const m of matchesIn(p, text)) {
        const n = had.get(m) ?? 0;
        if (n === 0) return 'pasted';
        had.set(m, n - 1);
      }
    }
  }
  return 'none';
}
