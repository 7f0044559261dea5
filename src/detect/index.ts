/**
 * The detection layer's public surface: manifests in, states out. Pure: no I/O, compiled
 * without Node types (`src/tsconfig.pure.json`).
 */
export { ManifestError } from './errors.ts';
export { evaluate, NO_RULE_MATCHED } from './evaluate.ts';
export { exampleScreen, runExamples } from './examples.ts';
export type { ExampleFailure, ExampleResult, ExamplesReport } from './examples.ts';
export { explain, formatExplain } from './explain.ts';
export type { ExplainRecord, PatternCheck } from './explain.ts';
export { parseManifest } from './manifest.ts';
export type { Example, Manifest, Pattern, Rule } from './manifest.ts';
export { logicalLines, regionLabel } from './regions.ts';
export type { Evaluation, Region, RuleState, ScreenInput, SessionState } from './types.ts';
