/**
 * Evaluation that costs what changed, for one pane followed over time: the same result as
 * {@link evaluate} on every screen, with three shortcuts. The line-local patterns of a rule
 * (most of them) are answered from the bits of its region's lines ({@link LineFacts}: each
 * distinct line is tested once, so a spinner frame tests one new line); a rule's other
 * patterns run on its region's text only when the bits did not already reject it, and again
 * only when that text differs from the text they last ran on (told by its lines, without
 * joining them); the matched text is extracted again only when the deciding rule or its text
 * changed. Pure: no I/O.
 */
import type { Manifest, Rule } from './manifest.ts';
import { activityIn, activityText, evaluationOf, NO_MATCH } from './evaluate.ts';
import { type Bits, hasBit, type LineFacts, lineFactsOf, maskOfBits } from './line-facts.ts';
import { findMatch, hasLiterals, type Pattern, testPattern } from './patterns.ts';
import { RegionTexts, widestBottom } from './regions.ts';
import type { Evaluation, Region, ScreenInput } from './types.ts';

/**
 * A rule's tests in the order that rejects a text soonest for the least work: the required
 * literals of its `all` patterns (substring searches), then its line-local `all` and `none`
 * patterns (RE2 on the few lines that hold their literals), its `any` patterns in order, and
 * last the patterns RE2 must run on the whole text. The answer does not depend on the order.
 */
interface Plan {
  literalsOf: Pattern[];
  cheap: { pattern: Pattern; matches: boolean }[];
  costly: { pattern: Pattern; matches: boolean }[];
}

const plans = new WeakMap<Rule, Plan>();

/** The {@link Plan} of `rule` (made once per rule object). */
function planOf(rule: Rule): Plan {
  let plan = plans.get(rule);
  if (!plan) {
    const tests = [
      ...rule.all.map((pattern) => ({ pattern, matches: true })),
      ...rule.none.map((pattern) => ({ pattern, matches: false })),
    ];
    const cheap = (t: { pattern: Pattern }) => t.pattern.lineLocal && t.pattern.literals.length > 0;
    plan = {
      literalsOf: rule.all.filter((p) => p.literals.length > 0),
      cheap: tests.filter(cheap),
      costly: tests.filter((t) => !cheap(t)),
    };
    plans.set(rule, plan);
  }
  return plan;
}

/**
 * What {@link matchRule} gives (the deciding pattern or null), with the tests in the order of
 * the rule's {@link Plan}.
 */
export function matchCheapestFirst(rule: Rule, text: string): Pattern | null {
  const plan = planOf(rule);
  for (const p of plan.literalsOf) if (!hasLiterals(p, text)) return null;
  for (const t of plan.cheap) if (testPattern(t.pattern, text) !== t.matches) return null;
  let decisive: Pattern | null = rule.all[0] ?? null;
  if (rule.any.length) {
    decisive = null;
    for (const p of rule.any) {
      if (testPattern(p, text)) {
        decisive = p;
        break;
      }
    }
    if (!decisive) return null;
  }
  for (const t of plan.costly) if (testPattern(t.pattern, text) !== t.matches) return null;
  return decisive;
}

/**
 * A rule split for {@link LineFacts}: the bits its region's lines must have (its line-local
 * `all`), must not have (its line-local `none`), its `any` in order with their bits (-1: not
 * line-local), and what must run on the region's text.
 */
interface BitPlan {
  all: Bits;
  none: Bits;
  any: { pattern: Pattern; bit: number }[];
  /** Line-local `any` patterns as bits (when every `any` is line-local), else null. */
  anyBits: Bits | null;
  /** The `all` and `none` patterns that are not line-local (tested on the text). */
  textAll: Pattern[];
  textNone: Pattern[];
  /** True when some pattern runs on the text. */
  needsText: boolean;
}

/** The {@link BitPlan} of `rule` under `facts`. */
function bitPlan(rule: Rule, facts: LineFacts): BitPlan {
  const bits = (patterns: readonly Pattern[]) =>
    maskOfBits(patterns.map((p) => facts.bitOf(p)), facts.words);
  const local = (p: Pattern) => facts.bitOf(p) >= 0;
  const any = rule.any.map((pattern) => ({ pattern, bit: facts.bitOf(pattern) }));
  const textAll = rule.all.filter((p) => !local(p));
  const textNone = rule.none.filter((p) => !local(p));
  return {
    all: bits(rule.all),
    none: bits(rule.none),
    any,
    anyBits: any.every((a) => a.bit >= 0) ? bits(rule.any) : null,
    textAll,
    textNone,
    needsText: textAll.length > 0 || textNone.length > 0 || any.some((a) => a.bit < 0),
  };
}

/** True when the mask at `mask[at ..]` has every bit of `want`. */
function hasAll(mask: Bits, at: number, want: Bits): boolean {
  for (let k = 0; k < want.length; k++) if ((mask[at + k] & want[k]) !== want[k]) return false;
  return true;
}

/** True when the mask at `mask[at ..]` has a bit of `want`. */
function hasAny(mask: Bits, at: number, want: Bits): boolean {
  for (let k = 0; k < want.length; k++) if ((mask[at + k] & want[k]) !== 0) return true;
  return false;
}

/**
 * True when the bits of a region's lines (the mask at `mask[at ..]`) alone show that the rule
 * of `plan` does not match.
 */
function rejectedByBits(plan: BitPlan, mask: Bits, at: number): boolean {
  return !hasAll(mask, at, plan.all) || hasAny(mask, at, plan.none) ||
    (plan.anyBits !== null && plan.any.length > 0 && !hasAny(mask, at, plan.anyBits));
}

/**
 * The deciding pattern of `rule` or null, as {@link matchRule} gives it on the region text
 * whose lines have the bits at `mask[at ..]`; `text` gives that text, for the patterns that
 * are not line-local.
 */
function matchWithBits(
  rule: Rule,
  plan: BitPlan,
  mask: Bits,
  at: number,
  text: () => string,
): Pattern | null {
  if (rejectedByBits(plan, mask, at)) return null;
  if (plan.needsText) {
    const t = text();
    for (const p of plan.textAll) if (!hasLiterals(p, t)) return null;
    for (const p of plan.textAll) if (!testPattern(p, t)) return null;
    for (const p of plan.textNone) if (testPattern(p, t)) return null;
  }
  if (!plan.any.length) return rule.all[0] ?? null;
  for (const a of plan.any) {
    if (a.bit >= 0 ? hasBit(mask, a.bit, at) : testPattern(a.pattern, text())) return a.pattern;
  }
  return null;
}

/**
 * What a region's text is made of, to tell whether it changed without joining it: the region's
 * lines (the text is their join with '\n', and no line holds a '\n': equal lines, equal text),
 * or the text itself for the title and OSC regions. Keeps references to the screen's line
 * strings, not a joined copy of them.
 */
type TextKey = string | readonly string[];

/** The {@link TextKey} of `region`'s text on the screen of `texts`. */
function keyOf(region: Region, texts: RegionTexts): TextKey {
  return region.kind === 'title' || region.kind === 'osc'
    ? texts.text(region)
    : texts.linesOf(region);
}

/** True when the texts of keys `a` and `b` are equal. */
function sameKey(a: TextKey, b: TextKey): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** What one rule gave on the region text it was last tested on. */
interface Tested {
  key: TextKey;
  decisive: Pattern | null;
}

/** What the Evaluator keeps per manifest: its line facts, rule plans and distinct regions. */
interface Layout {
  facts: LineFacts;
  plans: BitPlan[];
  /** The distinct regions of the rules and the activity, and each rule's index in it. */
  regions: Region[];
  ruleRegion: number[];
  activityRegion: number;
  /** The largest `bottom = N` among the regions. */
  widest: number;
}

const layouts = new WeakMap<Manifest, Layout>();

/** The {@link Layout} of `manifest`, made once per manifest object and shared by every pane. */
function layoutOf(manifest: Manifest): Layout {
  let layout = layouts.get(manifest);
  if (!layout) layouts.set(manifest, layout = makeLayout(manifest));
  return layout;
}

/** The {@link Layout} of `manifest`, made afresh. */
function makeLayout(manifest: Manifest): Layout {
  const facts = lineFactsOf(manifest);
  const regions: Region[] = [];
  const keys: string[] = [];
  const indexOf = (r: Region) => {
    const key = JSON.stringify(r);
    let i = keys.indexOf(key);
    if (i < 0) {
      i = keys.push(key) - 1;
      regions.push(r);
    }
    return i;
  };
  const ruleRegion = manifest.rules.map((r) => indexOf(r.region));
  const activityRegion = manifest.activity ? indexOf(manifest.activity.region) : -1;
  return {
    facts,
    plans: manifest.rules.map((r) => bitPlan(r, facts)),
    regions,
    ruleRegion,
    activityRegion,
    widest: widestBottom(regions),
  };
}

/**
 * One pane's evaluator. Its cache is keyed by the manifest: a different manifest object (a
 * reload, another agent in the foreground) starts it afresh. Memory: per rule tested, the
 * lines of its region's text it was tested on (references to the screen's line strings, not
 * a joined copy: {@link TextKey}); the line bits are kept per manifest, shared by every pane
 * ({@link LineFacts}).
 */
export class Evaluator {
  #manifest: Manifest | null = null;
  #layout: Layout | null = null;
  /** The bits of each distinct region's lines (words per region), and the evaluation each is of. */
  #bits: number[] = [];
  #bitsOf: number[] = [];
  /** Evaluations so far: the generation of {@link #bitsOf}. */
  #generation = 0;
  /** The logical lines of the last screen and their bits, and the evaluation they are of. */
  #lines: string[] = [];
  #masks: Bits[] = [];
  #linesOf = -1;
  /** By rule position in `manifest.rules`. */
  #tested: (Tested | undefined)[] = [];
  /** The last evaluation that a rule decided, with the rule's position and text. */
  #last: { position: number; key: TextKey; decisive: Pattern; evaluation: Evaluation } | null =
    null;
  /** The `[activity]` region's text last read, and what the agent said in it (a pattern that is not line-local). */
  #activity: { text: string; said: string | undefined } | null = null;
  /**
   * Rules answered by running patterns on their text (tested) and from cached results, the
   * lines' bits or the text last tested (skipped), so far (for the tests and the benchmark).
   */
  readonly stats = { tested: 0, skipped: 0 };

  /**
   * Classifies `screen` with `manifest`'s rules, in order; the first rule that matches
   * decides, as {@link evaluate} does (which gives the same result).
   */
  evaluate(screen: ScreenInput, manifest: Manifest): Evaluation {
    if (manifest !== this.#manifest || !this.#layout) {
      this.#manifest = manifest;
      this.#layout = layoutOf(manifest);
      this.#bits = new Array<number>(this.#layout.regions.length * this.#layout.facts.words).fill(
        0,
      );
      this.#bitsOf = new Array<number>(this.#layout.regions.length).fill(-1);
      this.#lines = [];
      this.#masks = [];
      this.#tested = [];
      this.#last = null;
      this.#activity = null;
    }
    const layout = this.#layout;
    const texts = new RegionTexts(screen, layout.widest);
    const generation = ++this.#generation;
    const bits = this.#bits;
    const rules = manifest.rules;
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i];
      const plan = layout.plans[i];
      let decisive: Pattern | null;
      const at = this.#regionBits(layout.ruleRegion[i], texts, generation);
      if (!plan.needsText || rejectedByBits(plan, bits, at)) {
        decisive = plan.needsText ? null : matchWithBits(rule, plan, bits, at, noText);
        this.stats.skipped++;
      } else {
        const key = keyOf(rule.region, texts);
        const tested = this.#tested[i];
        if (tested && sameKey(tested.key, key)) {
          decisive = tested.decisive;
          this.stats.skipped++;
        } else {
          const text = texts.text(rule.region);
          decisive = matchWithBits(rule, plan, bits, at, () => text);
          this.#tested[i] = { key, decisive };
          this.stats.tested++;
        }
      }
      if (!decisive) continue;
      const key = keyOf(rule.region, texts);
      const activity = rule.state === 'working'
        ? this.#said(texts, manifest, generation)
        : undefined;
      const last = this.#last;
      if (
        last && last.position === i && last.decisive === decisive && sameKey(last.key, key) &&
        last.evaluation.activity === activity
      ) {
        return last.evaluation;
      }
      const evaluation = evaluationOf(
        rule,
        decisive,
        this.#matchOf(decisive, rule.region, texts),
        activity,
      );
      this.#last = { position: i, key, decisive, evaluation };
      return evaluation;
    }
    return NO_MATCH;
  }

  /**
   * Where the bits of distinct region `r`'s lines start in {@link #bits}, computed once per
   * evaluation (`generation`).
   */
  #regionBits(r: number, texts: RegionTexts, generation: number): number {
    const layout = this.#layout!;
    const facts = layout.facts;
    const words = facts.words;
    const at = r * words;
    if (this.#bitsOf[r] === generation) return at;
    this.#bitsOf[r] = generation;
    const region = layout.regions[r];
    const span = texts.span(region);
    if (!span) {
      facts.maskInto(texts.linesOf(region), this.#bits, at);
      return at;
    }
    const lines = texts.lines();
    const masks = this.#lineMasks(lines, generation);
    const bits = this.#bits;
    for (let k = 0; k < words; k++) bits[at + k] = 0;
    let some = false;
    for (let i = span.from; i < span.to; i++) {
      if (span.skipBlank && lines[i].length === 0) continue;
      some = true;
      const m = masks[i];
      for (let k = 0; k < words; k++) bits[at + k] |= m[k];
    }
    if (!some) { // the region's text is '': one empty line
      const m = facts.lineMask('');
      for (let k = 0; k < words; k++) bits[at + k] = m[k];
    }
    return at;
  }

  /**
   * The bits of each of this screen's logical `lines` (once per evaluation): a line that is
   * the same string at the same place as on the last screen keeps its bits without a lookup.
   */
  #lineMasks(lines: readonly string[], generation: number): Bits[] {
    if (this.#linesOf === generation) return this.#masks;
    this.#linesOf = generation;
    const facts = this.#layout!.facts;
    const prev = this.#lines;
    const masks = this.#masks;
    for (let i = 0; i < lines.length; i++) {
      if (prev[i] !== lines[i]) {
        prev[i] = lines[i];
        masks[i] = facts.lineMask(lines[i]);
      }
    }
    return masks;
  }

  /**
   * The leftmost match of `decisive` in region `region`'s text on the screen of `texts`, as
   * {@link findMatch} gives it: when the pattern's matches lie in one line, the match in the
   * first of the region's lines with its bit (a line's match is kept by {@link LineFacts});
   * else RE2 on the text.
   */
  #matchOf(decisive: Pattern, region: Region, texts: RegionTexts): string | null {
    const facts = this.#layout!.facts;
    const bit = facts.bitOf(decisive);
    if (decisive.matchesInLine && bit >= 0) {
      for (const line of texts.linesOf(region)) {
        if (hasBit(facts.lineMask(line), bit)) return facts.firstMatch(decisive, line);
      }
    }
    return findMatch(decisive, texts.text(region));
  }

  /**
   * What the agent says it does, by `manifest`'s `[activity]`: as {@link activityIn} reads
   * it, from the first line with a pattern's bit when the pattern's matches lie in one line
   * (a line's match is kept by {@link LineFacts}), else from the region's text, read again
   * only when it changed.
   */
  #said(texts: RegionTexts, manifest: Manifest, generation: number): string | undefined {
    const a = manifest.activity;
    const layout = this.#layout;
    if (!a || !layout) return undefined;
    const facts = layout.facts;
    if (!a.any.every((p) => p.matchesInLine && facts.bitOf(p) >= 0)) {
      const text = texts.text(a.region);
      if (this.#activity?.text !== text) this.#activity = { text, said: activityIn(text, a.any) };
      return this.#activity.said;
    }
    const at = this.#regionBits(layout.activityRegion, texts, generation);
    const lines = texts.linesOf(a.region);
    for (const p of a.any) {
      const bit = facts.bitOf(p);
      if (!hasBit(this.#bits, bit, at)) continue;
      const line = lines.find((l) => hasBit(facts.lineMask(l), bit));
      const said = line === undefined ? undefined : activityText(facts.firstMatch(p, line));
      if (said) return said;
    }
    return undefined;
  }
}

/** For a rule that runs nothing on its text. */
const noText = (): string => {
  throw new Error('no pattern of this rule runs on its text');
};
