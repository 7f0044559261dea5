/**
 * Evaluation that costs what changed, for one pane followed over time: the same result as
 * {@link evaluate} on every screen, but a rule is tested again only when the text of its
 * region differs from the text it was last tested on (a spinner frame changes the regions
 * that hold the spinner row; rules on the title, an OSC payload or the input box below the
 * last rule keep their answer), and the matched text is extracted again only when the
 * deciding rule or its text changed. Pure: no I/O.
 */
import type { Manifest, Rule } from './manifest.ts';
import { activityIn, NO_MATCH, ruleEvaluation } from './evaluate.ts';
import { hasLiterals, type Pattern, testPattern } from './patterns.ts';
import { RegionTexts, widestBottom } from './regions.ts';
import type { Evaluation, ScreenInput } from './types.ts';

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

/** What one rule gave on the region text it was last tested on. */
interface Tested {
  text: string;
  decisive: Pattern | null;
}

/**
 * One pane's evaluator. Its cache is keyed by the manifest: a different manifest object (a
 * reload, another agent in the foreground) starts it afresh. Memory: one reference per rule
 * to a region text of the last screen (strings the screen's regions share).
 */
export class Evaluator {
  #manifest: Manifest | null = null;
  /** The largest `bottom = N` region of the manifest's rules and activity. */
  #widest = 0;
  /** By rule position in `manifest.rules`. */
  #tested: (Tested | undefined)[] = [];
  /** The last evaluation that a rule decided, with the rule's position and text. */
  #last: { position: number; text: string; decisive: Pattern; evaluation: Evaluation } | null =
    null;
  /** The `[activity]` region's text last read, and what the agent said in it. */
  #activity: { text: string; said: string | undefined } | null = null;
  /** Rule tests run and skipped so far (for the benchmark). */
  readonly stats = { tested: 0, skipped: 0 };

  /**
   * Classifies `screen` with `manifest`'s rules, in order; the first rule that matches
   * decides, as {@link evaluate} does (which gives the same result).
   */
  evaluate(screen: ScreenInput, manifest: Manifest): Evaluation {
    if (manifest !== this.#manifest) {
      this.#manifest = manifest;
      this.#widest = widestBottom([
        ...manifest.rules.map((r) => r.region),
        ...(manifest.activity ? [manifest.activity.region] : []),
      ]);
      this.#tested = [];
      this.#last = null;
      this.#activity = null;
    }
    const texts = new RegionTexts(screen, this.#widest);
    const rules = manifest.rules;
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i];
      const text = texts.text(rule.region);
      let tested = this.#tested[i];
      if (tested && tested.text === text) this.stats.skipped++;
      else {
        tested = { text, decisive: matchCheapestFirst(rule, text) };
        this.#tested[i] = tested;
        this.stats.tested++;
      }
      const decisive = tested.decisive;
      if (!decisive) continue;
      const activity = rule.state === 'working' ? this.#said(texts, manifest) : undefined;
      const last = this.#last;
      if (
        last && last.position === i && last.decisive === decisive && last.text === text &&
        last.evaluation.activity === activity
      ) {
        return last.evaluation;
      }
      const evaluation = ruleEvaluation(rule, decisive, text, activity);
      this.#last = { position: i, text, decisive, evaluation };
      return evaluation;
    }
    return NO_MATCH;
  }

  /** What the agent says it does, by `manifest`'s `[activity]`, read again on a changed text. */
  #said(texts: RegionTexts, manifest: Manifest): string | undefined {
    const a = manifest.activity;
    if (!a) return undefined;
    const text = texts.text(a.region);
    if (this.#activity?.text !== text) this.#activity = { text, said: activityIn(text, a.any) };
    return this.#activity.said;
  }
}
