/**
 * A manifest's `[[examples]]`: screens with the state its rules must give them. Run by
 * `agentwatch manifests check` and by the tests, so every bundled rule change is checked
 * against the screens it was written for, adversarial ones included.
 */
import { evaluate } from './evaluate.ts';
import type { Example, Manifest } from './manifest.ts';
import type { RuleState, ScreenInput } from './types.ts';

/** The outcome of one example. */
export interface ExampleResult {
  readonly index: number;
  readonly name: string | null;
  readonly expected: RuleState;
  readonly got: RuleState;
  readonly ok: boolean;
  /** The evaluation's reason (which rule decided, or 'no rule matched'). */
  readonly reason: string;
}

/** Failed examples, as `{index, expected, got, reason}`. */
export interface ExampleFailure {
  readonly index: number;
  readonly expected: RuleState;
  readonly got: RuleState;
  readonly reason: string;
}

/** All examples of one manifest: how many passed, which failed, and every result in order. */
export interface ExamplesReport {
  readonly passed: number;
  readonly failed: readonly ExampleFailure[];
  readonly results: readonly ExampleResult[];
}

/** The screen an example describes: its lines as rows (none soft-wrapped), title and OSC. */
export function exampleScreen(example: Example): ScreenInput {
  const rows = example.screen.split('\n');
  return { rows, wrapped: rows.map(() => false), title: example.title, osc: example.osc };
}

/** Evaluates every example of `manifest` and compares with its expected state. */
export function runExamples(manifest: Manifest): ExamplesReport {
  const results = manifest.examples.map((example): ExampleResult => {
    const e = evaluate(exampleScreen(example), manifest);
    return {
      index: example.index,
      name: example.name,
      expected: example.state,
      got: e.state,
      ok: e.state === example.state,
      reason: e.reason,
    };
  });
  const failed = results.filter((r) => !r.ok).map(({ index, expected, got, reason }) => ({
    index,
    expected,
    got,
    reason,
  }));
  return { passed: results.length - failed.length, failed, results };
}
