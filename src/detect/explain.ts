/**
 * Explain: every rule of a manifest evaluated on one screen, each pattern with matched or not
 * and a short evidence preview, and which rule decided (as herdr's `detect/manifest.rs`
 * explain does). For `agentwatch explain`, `manifests check` and humans writing rules; not
 * for the sweep (it runs every pattern and extracts every match).
 */
import { describeRule, matchRule, NO_RULE_MATCHED } from './evaluate.ts';
import type { Manifest, Rule } from './manifest.ts';
import { findMatch, type Pattern } from './patterns.ts';
import { RegionTexts } from './regions.ts';
import type { RuleState, ScreenInput } from './types.ts';
import { withoutSidePanel } from './side-panel.ts';

/** Longest evidence preview, in characters. */
export const EVIDENCE_MAX = 72;

/** One pattern of one rule, checked. */
export interface PatternCheck {
  readonly field: 'any' | 'all' | 'none';
  /** Position in its list. */
  readonly index: number;
  readonly pattern: string;
  readonly matched: boolean;
  /** The matched text (shortened, newlines shown as ⏎), or why it did not match. */
  readonly evidence: string;
}

/** One rule, evaluated. */
export interface ExplainRecord {
  /** 0-based position in `[[rules]]`. */
  readonly index: number;
  readonly name: string | null;
  readonly state: RuleState;
  /** The region as written: 'screen', 'bottom 12', 'osc 7501', ... */
  readonly region: string;
  /** How much text the region held: 'bottom 12: 12 lines, 640 chars' or 'osc 7501: empty'. */
  readonly regionSummary: string;
  /** The rule as a whole matched. */
  readonly matched: boolean;
  /** This is the first matching rule: the one {@link evaluate} reports. */
  readonly decided: boolean;
  /** Every pattern in order: all, then any, then none. */
  readonly patterns: readonly PatternCheck[];
  /** One line: why the rule matched or not. */
  readonly summary: string;
}

/** Shortens text for one line of output. */
export function preview(text: string, max = EVIDENCE_MAX): string {
  const flat = text.replace(/\n/g, '⏎');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function regionSummary(label: string, text: string): string {
  if (text.length === 0) return `${label}: empty`;
  const lines = text.split('\n').length;
  return `${label}: ${lines} line${lines === 1 ? '' : 's'}, ${text.length} chars`;
}

function check(
  field: PatternCheck['field'],
  pattern: Pattern,
  index: number,
  text: string,
  label: string,
): PatternCheck {
  const m = findMatch(pattern, text);
  const matched = m !== null;
  let evidence: string;
  if (matched) evidence = m.length ? `"${preview(m)}"` : '(empty match)';
  else evidence = text.length ? `no match in ${label}` : `${label} is empty`;
  return { field, index, pattern: pattern.source, matched, evidence };
}

function summarize(rule: Rule, checks: readonly PatternCheck[], matched: boolean): string {
  if (matched) return 'matched';
  const missingAll = checks.find((c) => c.field === 'all' && !c.matched);
  if (missingAll) return `all[${missingAll.index}] did not match`;
  const hitNone = checks.find((c) => c.field === 'none' && c.matched);
  if (hitNone) return `none[${hitNone.index}] matched ${hitNone.evidence}`;
  return rule.any.length ? `none of any's ${rule.any.length} matched` : 'did not match';
}

/**
 * Evaluates every rule of `manifest` on `screen` and reports each one. The first record with
 * `decided` is the rule {@link evaluate} picks; when none has it, the screen is `idle`
 * ({@link NO_RULE_MATCHED}).
 */
export function explain(screen: ScreenInput, manifest: Manifest): ExplainRecord[] {
  const texts = new RegionTexts(withoutSidePanel(screen));
  let decided = false;
  return manifest.rules.map((rule) => {
    const text = texts.text(rule.region);
    const label = rule.regionLabel;
    const checks = [
      ...rule.all.map((p, i) => check('all', p, i, text, label)),
      ...rule.any.map((p, i) => check('any', p, i, text, label)),
      ...rule.none.map((p, i) => check('none', p, i, text, label)),
    ];
    const matched = matchRule(rule, text) !== null;
    const decides = matched && !decided;
    if (decides) decided = true;
    return {
      index: rule.index,
      name: rule.name,
      state: rule.state,
      region: label,
      regionSummary: regionSummary(label, text),
      matched,
      decided: decides,
      patterns: checks,
      summary: summarize(rule, checks, matched),
    };
  });
}

/**
 * Renders explain records as text, one block per rule, then the verdict:
 * ```
 * rule 0 'permission prompt' (blocked) in bottom 12 (12 lines, 480 chars): matched  <= decides
 *   all[0]  ✓ '^\s*❯\s*\d+\.\s'  "❯ 1. Yes"
 *   none[0] ✗ 'esc to interrupt'  no match in bottom 12
 * => blocked (rule 0)
 * ```
 */
export function formatExplain(records: readonly ExplainRecord[]): string {
  const out: string[] = [];
  for (const r of records) {
    out.push(
      `${describeRule(r)} ${r.regionSummary}: ${r.summary}${r.decided ? '  <= decides' : ''}`,
    );
    for (const p of r.patterns) {
      const tag = `${p.field}[${p.index}]`.padEnd(8);
      out.push(`  ${tag}${p.matched ? '✓' : '✗'} '${p.pattern}'  ${p.evidence}`);
    }
  }
  const winner = records.find((r) => r.decided);
  out.push(winner ? `=> ${winner.state} (rule ${winner.index})` : `=> idle (${NO_RULE_MATCHED})`);
  return out.join('\n') + '\n';
}
