/**
 * A blocked report that arrives late: Claude Code runs the PermissionRequest hook while it
 * draws the dialog, and the hook (a process: `agentwatch report blocked`) can take longer to
 * report than the person takes to answer. Seen end to end in test/agentwatch-claude.test.ts
 * on a loaded 2-core machine: the report came 0.3-0.9 s after the dialog was answered and
 * held the session blocked for the 1.5 s grace while the screen showed working.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  decide,
  initialState,
  type Report,
  REPORT_GRACE_MS,
  type SignalInput,
  type StateRecord,
} from '../src/runtime/signals.ts';
import type { Evaluation, RuleState } from '../src/detect/types.ts';

/** A screen evaluation whose matched rule reads `state`. */
const screen = (state: RuleState): Evaluation => ({
  state,
  rule: 0,
  pattern: null,
  match: null,
  region: null,
  reason: `screen ${state}`,
});

/** The inputs of one evaluation at `now`. */
const at = (now: number, seen: RuleState, report: Report | null): SignalInput => ({
  now,
  evaluation: screen(seen),
  foreground: 'agent',
  foregroundName: 'claude',
  exit: null,
  report,
});

/** Runs a sequence of inputs from the initial state; returns every record. */
function run(inputs: SignalInput[]): StateRecord[] {
  let r = initialState(0);
  return inputs.map((i) => (r = decide(r, i)));
}

test('a blocked report that comes after its dialog was answered does not bring blocked back', () => {
  const pre: Report = { state: 'working', at: 1000, source: 'hook PreToolUse Bash' };
  const late: Report = { state: 'blocked', at: 2600, source: 'report blocked' };
  const seq = run([
    at(1100, 'working', pre),
    at(1400, 'blocked', pre), // the dialog is drawn
    at(2100, 'working', pre), // answered: the tool runs
    at(2600, 'working', late), // the PermissionRequest hook reports only now
    at(2600 + REPORT_GRACE_MS / 2, 'working', late),
  ]);
  assert.equal(seq.map((s) => s.state), ['working', 'blocked', 'working', 'working', 'working']);
  assert.is(seq[3].by, 'screen');
});

test('a blocked report before its dialog still counts early, then the dialog, then working', () => {
  const pre: Report = { state: 'working', at: 1000, source: 'hook PreToolUse Bash' };
  const early: Report = { state: 'blocked', at: 1200, source: 'report blocked' };
  const seq = run([
    at(1100, 'working', pre),
    at(1250, 'working', early), // the dialog is not drawn yet: the report counts
    at(1450, 'blocked', early),
    at(3000, 'working', early), // answered
  ]);
  assert.equal(seq.map((s) => s.state), ['working', 'blocked', 'blocked', 'working']);
  assert.is(seq[1].by, 'report');
});

test('a dialog seen before the previous report does not make a new blocked report agree', () => {
  const seq = run([
    at(1000, 'blocked', null), // an earlier dialog
    at(2000, 'working', { state: 'working', at: 1900, source: 'hook PreToolUse Bash' }),
    at(2100, 'working', { state: 'blocked', at: 2100, source: 'report blocked' }),
  ]);
  assert.equal(seq.map((s) => s.state), ['blocked', 'working', 'blocked']);
  assert.is(seq[2].by, 'report');
});

test('both hooks late: PreToolUse and PermissionRequest reports arrive after the answer, dated by when they fired', () => {
  // Hooks fired at 1000 (PreToolUse) and 1150 (PermissionRequest); the dialog showed at 1300
  // and was answered at 1800; the hook processes reported at 2000 and 2100 (a loaded machine).
  const pre: Report = { state: 'working', at: 1000, source: 'hook PreToolUse Bash' };
  const perm: Report = { state: 'blocked', at: 1150, source: 'report blocked' };
  const seq = run([
    at(1300, 'blocked', null),
    at(1800, 'working', null), // answered: the tool runs
    at(2000, 'working', pre),
    at(2100, 'working', perm), // late, about the dialog already answered: not blocked again
    at(2100 + REPORT_GRACE_MS / 2, 'working', perm),
  ]);
  assert.equal(seq.map((s) => s.state), ['blocked', 'working', 'working', 'working', 'working']);
});

test.run();
