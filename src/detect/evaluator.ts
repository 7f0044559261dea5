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
import {
  activityIn,
  activityText,
  evaluationOf,
  isInBand,
  NO_MATCH,
  withScreenState,
} from './evaluate.ts';
import { type Bits, hasBit, type LineFacts, lineFactsOf, maskOfBits } from './line-facts.ts';
import { findMatch, hasLiterals, type Pattern, testPattern } from './patterns.ts';
import { isRuleLine, RegionTexts, trimLineEnd, widestBottom } from './regions.ts';
import type { Evaluation, Region, ScreenInput } from './types.ts';
import { SidePanelCut } from './side-panel.ts';

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
 * `all`, and the literal groups of its other `all`), must not have (its line-local `none`),
 * its `any` in order with their bits (-1: not line-local) or their literal groups' bits, and
 * what must run on the region's text.
 */
interface BitPlan {
  all: Bits;
  none: Bits;
  any: { pattern: Pattern; bit: number; literals: Bits }[];
  /** Line-local `any` patterns as bits (when every `any` is line-local), else null. */
  anyBits: Bits | null;
  /** The `all` and `none` patterns that are not line-local (tested on the text). */
  textAll: Pattern[];
  textNone: { pattern: Pattern; literals: Bits }[];
  /** True when some pattern runs on the text. */
  needsText: boolean;
}

/** The {@link BitPlan} of `rule` under `facts`. */
function bitPlan(rule: Rule, facts: LineFacts): BitPlan {
  const words = facts.words;
  const bits = (patterns: readonly Pattern[]) =>
    maskOfBits(patterns.map((p) => facts.bitOf(p)), words);
  const local = (p: Pattern) => facts.bitOf(p) >= 0;
  const literalBits = (p: Pattern) => facts.literalBitsOf(p) ?? maskOfBits([], words);
  const any = rule.any.map((pattern) => ({
    pattern,
    bit: facts.bitOf(pattern),
    literals: literalBits(pattern),
  }));
  const textAll = rule.all.filter((p) => !local(p));
  const textNone = rule.none.filter((p) => !local(p)).map((pattern) => ({
    pattern,
    literals: literalBits(pattern),
  }));
  const all = bits(rule.all);
  for (const p of textAll) {
    const m = literalBits(p);
    for (let k = 0; k < words; k++) all[k] |= m[k];
  }
  return {
    all,
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
 * of `plan` does not match: a line-local `all` or a literal of another `all` missing, a
 * line-local `none` there, or no `any` that could match (a line-local one's bit, or every
 * literal of another).
 */
function rejectedByBits(plan: BitPlan, mask: Bits, at: number): boolean {
  if (!hasAll(mask, at, plan.all) || hasAny(mask, at, plan.none)) return true;
  if (plan.any.length === 0) return false;
  if (plan.anyBits !== null) return !hasAny(mask, at, plan.anyBits);
  for (const a of plan.any) {
    if (a.bit >= 0 ? hasBit(mask, a.bit, at) : hasAll(mask, at, a.literals)) return false;
  }
  return true;
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
  // the literals of the text patterns are known present (or, for `none` and `any`, checked
  // first): the text is joined only for a pattern that could match
  for (const p of plan.textAll) if (!testPattern(p, text())) return null;
  for (const n of plan.textNone) {
    if (hasAll(mask, at, n.literals) && testPattern(n.pattern, text())) return null;
  }
  if (!plan.any.length) return rule.all[0] ?? null;
  for (const a of plan.any) {
    if (
      a.bit >= 0
        ? hasBit(mask, a.bit, at)
        : hasAll(mask, at, a.literals) && testPattern(a.pattern, text())
    ) {
      return a.pattern;
    }
  }
  return null;
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
  /** True when a region is `below_last_rule` (a line's being a rule then matters). */
  readsRules: boolean;
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
    readsRules: regions.some((r) => r.kind === 'below_last_rule'),
  };
}

/**
 * The end of `empty`'s lines from `from` on with the trailing empty ones left out (as
 * `trimmedEnd` of regions.ts gives it for the lines whose emptiness `empty` tells).
 */
function trimmedEnd(empty: readonly boolean[], from: number): number {
  let end = empty.length;
  while (end > from && empty[end - 1]) end--;
  return end;
}

/** True when the mask at `a[at ..]` and the mask `b` have the same bits (`words` words). */
function sameMask(a: Bits, at: number, b: Bits, words: number): boolean {
  for (let k = 0; k < words; k++) if (a[at + k] !== b[k]) return false;
  return true;
}

/**
 * One pane's evaluator: what {@link evaluate} gives, at the cost of what changed since the
 * pane's last evaluation. It keeps the last screen's logical lines, each with its bits
 * ({@link LineFacts}) and the evaluation it last changed in, so a screen read costs one
 * string compare per line and the tests of the lines that changed. While no line's bits,
 * blankness or being a horizontal rule changed, every region spans the same lines and has
 * the same bits, so they are not computed again; a rule whose patterns must run on its text
 * runs them again only when a line it spans (or its title or OSC text) changed since it last
 * ran them; the deciding rule's evaluation is the same object while its text and the
 * activity are the same.
 *
 * Its cache is keyed by the manifest: a different manifest object (a reload, another agent in
 * the foreground) starts it afresh. Memory: the last screen's lines (references to the
 * screen's line strings), a few integers per line, region and rule; the line bits are kept
 * per manifest, shared by every pane ({@link LineFacts}).
 */
export class Evaluator {
  #manifest: Manifest | null = null;
  #layout: Layout | null = null;
  /** The side panel's cut, at the cost of the rows that changed. */
  readonly #sidePanel = new SidePanelCut();
  /** True until the regions' spans and bits were made for the manifest in force. */
  #fresh = true;
  /** Evaluations so far: the generation the `...At` fields below count in. */
  #generation = 0;
  /** The logical lines of the last screen. */
  #lines: string[] = [];
  /**
   * Per line: the screen row it was read from when it is that one row (not wrapped), else
   * undefined. A terminal's unchanged row is the same string from one snapshot to the next,
   * so an unchanged line is told by one reference compare, its string not read.
   */
  #raw: (string | undefined)[] = [];
  /**
   * The bits of every line ({@link LineFacts} masks), `words` per line, in one array: the
   * regions' bits are made from it without reading each line's mask object.
   */
  #masks: number[] = [];
  /** Per line: whether it is a horizontal rule, whether it is empty. */
  #rules: boolean[] = [];
  #empty: boolean[] = [];
  /** Per line: the generation it last changed in. */
  #changedAt: number[] = [];
  /**
   * Per distinct region of a screen: the lines it spans (`from`, `to`, 1 when blank lines are
   * left out), 3 entries each, and the generation that span last changed in.
   */
  #spans: number[] = [];
  #spanAt: number[] = [];
  /** Per distinct title or OSC region: its text when its bits were computed. */
  #regionText: (string | undefined)[] = [];
  /** The bits of each distinct region's lines (`words` per region). */
  #bits: number[] = [];
  /** Per rule: the generation its patterns last ran on its text (-1: never), and what they gave. */
  #testedAt: number[] = [];
  #tested: (Pattern | null)[] = [];
  /** Per rule of a title or OSC region: the text its patterns last ran on. */
  #testedText: (string | undefined)[] = [];
  /** The last evaluation that a rule decided, with the rule's position and its generation. */
  #last: {
    position: number;
    decisive: Pattern;
    at: number;
    text: string | undefined;
    evaluation: Evaluation;
  } | null = null;
  /** The region texts of the evaluation under way (made when a rule needs them), else null. */
  #texts: RegionTexts | null = null;
  /** What the agent said in its `[activity]` region, and the generation (and text) it was read in. */
  #said: { at: number; text: string | undefined; said: string | undefined } | null = null;
  /**
   * Rules answered by running patterns on their text (tested) and from cached results, the
   * lines' bits or the text last tested (skipped), so far (for the tests and the benchmark).
   */
  readonly stats = { tested: 0, skipped: 0 };

  /**
   * Classifies `whole` with `manifest`'s rules, in order; the first rule that matches
   * decides, as {@link evaluate} does (which gives the same result). A side panel's column is
   * cut off first ({@link SidePanelCut}, as `withoutSidePanel` cuts it).
   */
  evaluate(whole: ScreenInput, manifest: Manifest): Evaluation {
    const screen = this.#sidePanel.cut(whole);
    if (manifest !== this.#manifest || !this.#layout) this.#reset(manifest);
    const layout = this.#layout!;
    const generation = ++this.#generation;
    if (this.#readLines(screen, generation) || this.#fresh) {
      this.#fresh = false;
      this.#layoutRegions(screen, generation);
    } else this.#readTitles(screen);
    this.#texts = null;
    const rules = manifest.rules;
    for (let i = 0; i < rules.length; i++) {
      const decisive = this.#test(i, screen, generation);
      if (!decisive) continue;
      const rule = rules[i];
      const r = layout.ruleRegion[i];
      // An OSC rule decided: what the screen's own rules give beneath it (see `screenState`).
      let beneath: Rule['state'] | null | undefined;
      if (rule.region.kind === 'osc') {
        beneath = null;
        for (let j = i + 1; j < rules.length && beneath === null; j++) {
          if (!isInBand(rules[j]) && this.#test(j, screen, generation)) beneath = rules[j].state;
        }
      }
      const activity = rule.state === 'working' ? this.#activity(screen, generation) : undefined;
      const last = this.#last;
      if (
        last && last.position === i && last.decisive === decisive &&
        this.#unchanged(r, screen, last.at, last.text) && last.evaluation.activity === activity &&
        last.evaluation.screenState === beneath
      ) {
        return last.evaluation;
      }
      const texts = this.#textsOf(screen);
      const decided = evaluationOf(rule, decisive, this.#matchOf(decisive, r, texts), activity);
      const evaluation = beneath === undefined ? decided : withScreenState(decided, beneath);
      this.#last = {
        position: i,
        decisive,
        at: generation,
        text: this.#ownText(r, screen),
        evaluation,
      };
      return evaluation;
    }
    return NO_MATCH;
  }

  /** The region texts of the screen being evaluated, made at most once per evaluation. */
  #textsOf(screen: ScreenInput): RegionTexts {
    return this.#texts ??= new RegionTexts(screen, this.#layout!.widest, this.#lines);
  }

  /**
   * Whether rule `i` of the manifest in force matches `screen` (read in evaluation
   * `generation`): its deciding pattern, or null. From the lines' bits when they rule it in or
   * out, from its last result when its region did not change, else by running its patterns.
   */
  #test(i: number, screen: ScreenInput, generation: number): Pattern | null {
    const layout = this.#layout!;
    const rule = this.#manifest!.rules[i];
    const plan = layout.plans[i];
    const r = layout.ruleRegion[i];
    const bits = this.#bits;
    const at = r * layout.facts.words;
    if (!plan.needsText || rejectedByBits(plan, bits, at)) {
      this.stats.skipped++;
      return plan.needsText ? null : matchWithBits(rule, plan, bits, at, noText);
    }
    if (this.#unchanged(r, screen, this.#testedAt[i], this.#testedText[i])) {
      this.stats.skipped++;
      return this.#tested[i];
    }
    const region = rule.region;
    const decisive = matchWithBits(
      rule,
      plan,
      bits,
      at,
      () => this.#textsOf(screen).text(region),
    );
    this.#testedAt[i] = generation;
    this.#tested[i] = decisive;
    this.#testedText[i] = this.#ownText(r, screen);
    this.stats.tested++;
    return decisive;
  }

  /** Forgets what was kept for another manifest. */
  #reset(manifest: Manifest): void {
    const layout = layoutOf(manifest);
    this.#manifest = manifest;
    this.#layout = layout;
    this.#fresh = true;
    this.#lines = [];
    this.#raw = [];
    this.#masks = [];
    this.#rules = [];
    this.#empty = [];
    this.#changedAt = [];
    this.#spans = new Array<number>(layout.regions.length * 3).fill(-1);
    this.#spanAt = new Array<number>(layout.regions.length).fill(0);
    this.#regionText = new Array<string | undefined>(layout.regions.length).fill(undefined);
    this.#bits = new Array<number>(layout.regions.length * layout.facts.words).fill(0);
    this.#testedAt = new Array<number>(manifest.rules.length).fill(-1);
    this.#tested = new Array<Pattern | null>(manifest.rules.length).fill(null);
    this.#testedText = new Array<string | undefined>(manifest.rules.length).fill(undefined);
    this.#last = null;
    this.#said = null;
  }

  /**
   * Reads `screen`'s logical lines (as {@link logicalLines} gives them) into {@link #lines},
   * noting the generation each changed in and its bits; true when a line's bits, blankness or
   * being a rule changed, or the line count did (the regions' spans and bits must be made
   * again).
   */
  #readLines(screen: ScreenInput, generation: number): boolean {
    const facts = this.#layout!.facts;
    const words = facts.words;
    const readsRules = this.#layout!.readsRules;
    const { rows, wrapped } = screen;
    const lines = this.#lines;
    const raw = this.#raw;
    const masks = this.#masks;
    const isRule = this.#rules;
    const empty = this.#empty;
    const changedAt = this.#changedAt;
    let moved = false;
    let n = 0;
    for (let y = 0; y < rows.length; y++, n++) {
      let line = rows[y];
      let one: string | undefined = line;
      if (wrapped[y] && y + 1 < rows.length) {
        one = undefined;
        while (wrapped[y] && y + 1 < rows.length) line += rows[++y];
      } else if (n < lines.length && raw[n] === line) continue;
      line = trimLineEnd(line);
      raw[n] = one;
      if (n < lines.length && lines[n] === line) continue;
      const mask = facts.lineMask(line);
      const rule = readsRules && isRuleLine(line);
      const at = n * words;
      if (
        n >= lines.length || empty[n] !== (line.length === 0) ||
        isRule[n] !== rule || !sameMask(masks, at, mask, words)
      ) {
        moved = true;
      }
      lines[n] = line;
      for (let k = 0; k < words; k++) masks[at + k] = mask[k];
      isRule[n] = rule;
      empty[n] = line.length === 0;
      changedAt[n] = generation;
    }
    if (n !== lines.length) {
      moved = true;
      lines.length =
        raw.length =
        isRule.length =
        empty.length =
        changedAt.length =
          n;
      masks.length = n * words;
    }
    return moved;
  }

  /**
   * Makes every distinct region's span and bits again from {@link #lines} (their facts
   * changed), noting the generation of each span that changed.
   */
  #layoutRegions(screen: ScreenInput, generation: number): void {
    const layout = this.#layout!;
    const facts = layout.facts;
    const words = facts.words;
    const lines = this.#lines;
    const empty = this.#empty;
    const spans = this.#spans;
    const bits = this.#bits;
    const masks = this.#masks;
    for (let r = 0; r < layout.regions.length; r++) {
      const region = layout.regions[r];
      const at = r * words;
      if (region.kind === 'title' || region.kind === 'osc') {
        this.#titleBits(r, region, screen);
        continue;
      }
      let from = 0;
      let to = trimmedEnd(empty, 0);
      let skip = 0;
      if (region.kind === 'below_last_rule') {
        from = to = 0;
        for (let i = lines.length - 1; i >= 0; i--) {
          if (this.#rules[i]) {
            from = i + 1;
            to = trimmedEnd(empty, i + 1);
            break;
          }
        }
      } else if (region.kind === 'bottom') {
        from = to;
        for (let picked = 0; from > 0 && picked < region.lines; from--) {
          if (!empty[from - 1]) picked++;
        }
        skip = 1;
      }
      if (spans[3 * r] !== from || spans[3 * r + 1] !== to || spans[3 * r + 2] !== skip) {
        spans[3 * r] = from;
        spans[3 * r + 1] = to;
        spans[3 * r + 2] = skip;
        this.#spanAt[r] = generation;
      }
      for (let k = 0; k < words; k++) bits[at + k] = 0;
      let some = false;
      for (let i = from; i < to; i++) {
        if (skip && empty[i]) continue;
        some = true;
        for (let k = 0; k < words; k++) bits[at + k] |= masks[i * words + k];
      }
      if (!some) { // the region's text is '': one empty line
        const m = facts.lineMask('');
        for (let k = 0; k < words; k++) bits[at + k] = m[k];
      }
    }
  }

  /** Makes the bits of the title and OSC regions whose text changed. */
  #readTitles(screen: ScreenInput): void {
    const regions = this.#layout!.regions;
    for (let r = 0; r < regions.length; r++) {
      const region = regions[r];
      if (region.kind === 'title' || region.kind === 'osc') this.#titleBits(r, region, screen);
    }
  }

  /** The bits of title or OSC region `r` (index `r` in the layout), made when its text changed. */
  #titleBits(r: number, region: Region, screen: ScreenInput): void {
    const text = textOf(region, screen);
    if (this.#regionText[r] === text) return;
    this.#regionText[r] = text;
    this.#layout!.facts.maskInto(text.split('\n'), this.#bits, r * this.#layout!.facts.words);
  }

  /** For title and OSC region `r`: its text on `screen`; undefined for the others. */
  #ownText(r: number, screen: ScreenInput): string | undefined {
    const region = this.#layout!.regions[r];
    return region.kind === 'title' || region.kind === 'osc' ? textOf(region, screen) : undefined;
  }

  /**
   * True when distinct region `r`'s text on `screen` is the one it had at generation `since`
   * (-1: never; `text`: its text then, for a title or OSC region): it spans the same lines and
   * none of them changed since.
   */
  #unchanged(r: number, screen: ScreenInput, since: number, text: string | undefined): boolean {
    if (since < 0) return false;
    const region = this.#layout!.regions[r];
    if (region.kind === 'title' || region.kind === 'osc') return textOf(region, screen) === text;
    if (this.#spanAt[r] > since) return false;
    const changedAt = this.#changedAt;
    const to = this.#spans[3 * r + 1];
    for (let i = this.#spans[3 * r]; i < to; i++) if (changedAt[i] > since) return false;
    return true;
  }

  /**
   * The leftmost match of `decisive` in distinct region `r`'s text, as {@link findMatch} gives
   * it: when the pattern's matches lie in one line, the match in the first of the region's
   * lines with its bit (a line's match is kept by {@link LineFacts}); else RE2 on the text.
   */
  #matchOf(decisive: Pattern, r: number, texts: RegionTexts): string | null {
    const facts = this.#layout!.facts;
    const bit = facts.bitOf(decisive);
    const region = this.#layout!.regions[r];
    if (decisive.matchesInLine && bit >= 0) {
      const line = this.#firstLineWith(bit, r);
      if (line !== undefined) return facts.firstMatch(decisive, line);
      if (region.kind !== 'title' && region.kind !== 'osc') return null;
    }
    return findMatch(decisive, texts.text(region));
  }

  /**
   * The first line of distinct region `r` (a screen region) whose bits have `bit`, undefined
   * when none has it (or `r` is a title or OSC region).
   */
  #firstLineWith(bit: number, r: number): string | undefined {
    const region = this.#layout!.regions[r];
    if (region.kind === 'title' || region.kind === 'osc') return undefined;
    const from = this.#spans[3 * r];
    const to = this.#spans[3 * r + 1];
    const skip = this.#spans[3 * r + 2] === 1;
    const lines = this.#lines;
    const empty = this.#empty;
    const words = this.#layout!.facts.words;
    let some = false;
    for (let i = from; i < to; i++) {
      if (skip && empty[i]) continue;
      some = true;
      if (hasBit(this.#masks, bit, i * words)) return lines[i];
    }
    // the region's text is '': one empty line
    if (!some && hasBit(this.#layout!.facts.lineMask(''), bit)) return '';
    return undefined;
  }

  /**
   * What the agent says it does, by the manifest's `[activity]`: as {@link activityIn} reads
   * it, from the first line with a pattern's bit when the pattern's matches lie in one line
   * (a line's match is kept by {@link LineFacts}), else from the region's text; read again
   * only when the region's text changed.
   */
  #activity(screen: ScreenInput, generation: number): string | undefined {
    const a = this.#manifest?.activity;
    const layout = this.#layout;
    if (!a || !layout) return undefined;
    const r = layout.activityRegion;
    const last = this.#said;
    if (last && this.#unchanged(r, screen, last.at, last.text)) return last.said;
    const facts = layout.facts;
    let said: string | undefined;
    const region = a.region;
    if (
      region.kind === 'title' || region.kind === 'osc' ||
      !a.any.every((p) => p.matchesInLine && facts.bitOf(p) >= 0)
    ) {
      said = activityIn(new RegionTexts(screen, 0, this.#lines).text(a.region), a.any);
    } else {
      for (const p of a.any) {
        const bit = facts.bitOf(p);
        if (!hasBit(this.#bits, bit, r * facts.words)) continue;
        const line = this.#firstLineWith(bit, r);
        said = line === undefined ? undefined : activityText(facts.firstMatch(p, line));
        if (said) break;
      }
    }
    this.#said = { at: generation, text: this.#ownText(r, screen), said };
    return said;
  }
}

/** The text of a title or OSC `region` on `screen` ('' when there is no such OSC). */
function textOf(region: Region, screen: ScreenInput): string {
  return region.kind === 'title'
    ? screen.title
    : region.kind === 'osc'
    ? screen.osc.get(region.number) ?? ''
    : '';
}

/** For a rule that runs nothing on its text. */
const noText = (): string => {
  throw new Error('no pattern of this rule runs on its text');
};
