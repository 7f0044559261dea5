/**
 * Reports that arrive out of the order their hooks fired in. agentwatch's Claude Code hooks
 * are `async: true` (integrations/claude-code.ts): Claude Code 2.1.332 starts each and goes
 * on, so a hook process that starts slowly reports after one that fired later (a Stop report
 * before the PreToolUse report of the turn's last tool call). The session keeps the report
 * whose hook fired last (signals.ts `laterReport`):
 * - `laterReport` itself (pure): later fired wins, earlier fired is stale, a tie goes to the
 *   one that arrived last, 1 ms on;
 * - `decide` (pure): a Stop report that comes after the next prompt made Claude Code's OSC
 *   7501 say working again is older news than it (the session reads working, not idle), while
 *   an in-band state unchanged since a report came is still older news than the report;
 * - on a real control socket of a real session (a host of this process, a `sleep` in a PTY
 *   read with Claude Code's rules, whose blank screen matches no rule, so reports decide):
 *   reports and notices sent in an order other than their `firedAt`, twice; the state, the
 *   report kept (`explain`), the PreToolUse wait of `send` (`toolPendingAt`) and the event log
 *   follow the one that fired last.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from '../src/runtime/control-client.ts';
import { createHost } from '../src/runtime/default-host.ts';
import type { ExplainReply, Request, SessionInfo } from '../src/runtime/protocol.ts';
import {
  decide,
  initialState,
  laterReport,
  type Report,
  type SignalInput,
  type StateRecord,
} from '../src/runtime/signals.ts';
import type { Evaluation, RuleState } from '../src/detect/types.ts';
import { until } from './support/until.ts';

test('laterReport: the one that fired last; a tie to the one that came last, 1 ms on', () => {
  const r = (state: Report['state'], at: number): Report => ({ state, at, source: state });
  assert.equal(laterReport(null, r('working', 5)), r('working', 5));
  assert.equal(laterReport(r('working', 5), r('idle', 6)), r('idle', 6));
  assert.is(laterReport(r('idle', 6), r('working', 5)), null, 'fired before: stale');
  assert.equal(laterReport(r('working', 6), r('blocked', 6)), r('blocked', 7), 'a tie');
});

/** An evaluation read from Claude Code's OSC 7501 saying `state`. */
const osc = (state: RuleState): Evaluation => ({
  state,
  rule: state === 'blocked' ? 0 : state === 'working' ? 9 : 10,
  pattern: null,
  match: null,
  region: 'osc 7501',
  reason: `osc ${state}`,
});

/** The states `decide` reads from `steps` ([now, in-band state, report]), from the start. */
function states(steps: [number, RuleState, Report | null][]): StateRecord[] {
  let r = initialState(0);
  return steps.map(([now, state, report]) => {
    const input: SignalInput = {
      now,
      evaluation: osc(state),
      foreground: 'agent',
      foregroundName: 'claude',
      exit: null,
      report,
    };
    return (r = decide(r, input));
  });
}

test('a late Stop report after the next prompt began: OSC 7501 working is newer news, twice', () => {
  for (const t of [10_000, 20_000]) {
    const ups: Report = { state: 'working', at: t, source: 'report working' };
    const stop: Report = { state: 'idle', at: t + 2000, source: 'report done' };
    const seq = states([
      [t + 100, 'working', ups], // the first prompt
      [t + 2010, 'idle', ups], // its turn ends: OSC 7501 done at once (the Stop hook runs on)
      [t + 2300, 'idle', ups], // (working -> idle is confirmed on a second look)
      [t + 2400, 'working', ups], // the next prompt (its UserPromptSubmit report not here yet)
      [t + 2500, 'working', stop], // the Stop report arrives only now
      [t + 2500 + 300, 'working', stop],
    ]);
    assert.equal(seq.map((s) => s.state), [
      'working',
      'working',
      'idle',
      'working',
      'working',
      'working',
    ]);
    assert.is(seq[4].by, 'osc', seq[4].reason);
  }
  // an in-band state that has not changed since the hook fired is older than its report
  const stop: Report = { state: 'idle', at: 5000, source: 'report done' };
  const seq = states([[4000, 'working', null], [5100, 'working', stop]]);
  assert.is(seq[1].state, 'idle');
  assert.is(seq[1].by, 'report');
});

test('reports and notices out of order on a real socket: the one that fired last is kept, twice', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-report-order-'));
  const host = createHost({ intervalMs: 100 }, { ...process.env, AGENTWATCH_DIR: dir });
  try {
    const session = await host.start({
      command: 'sleep',
      args: ['600'],
      name: 'order',
      agent: 'claude',
      headless: true,
    });
    const pane = host.ptyPane(session.id)!;
    const socket = session.spec.socket;
    const send = (req: Request) => request(socket, req, 5000);
    const info = async () =>
      (await request<{ session: SessionInfo }>(socket, { op: 'info' }, 5000)).session;
    const kept = async () => (await request<ExplainReply>(socket, { op: 'explain' }, 5000)).report;
    /** The session reads `state` decided by the report from `source`. */
    const reads = (state: string, source: string, what: string) =>
      until(
        what,
        async () => {
          const i = await info();
          return i.state === state && i.by === 'report' && i.reason === source;
        },
        10_000,
        20,
      ).catch(async (e: Error) => {
        throw new Error(
          `${e.message}: ${JSON.stringify(await info())}\n${pane.events().join('\n')}`,
        );
      });

    const base = Date.now() - 20_000; // fired in the last 30 s, as the session accepts
    for (const round of [1, 2]) {
      const t = base + round * 1000;
      // Stop's report (fired at t+200) before the PreToolUse report of the tool call before it
      await send({ op: 'report', state: 'idle', detail: 'report done', firedAt: t + 200 });
      await reads('idle', 'report done', `round ${round}: the Stop report`);
      await send({
        op: 'report',
        state: 'working',
        detail: 'hook PreToolUse Read',
        firedAt: t + 100,
      });
      await send({ op: 'notify', payload: '{"notification_type":"idle_prompt"}', firedAt: t });
      assert.equal(await kept(), { state: 'idle', at: t + 200, source: 'report done' });
      assert.is((await info()).state, 'idle', `round ${round}: the late PreToolUse report`);
      assert.is(pane.toolPendingAt, undefined, `round ${round}: send does not wait for it`);
      const events = pane.events().join('\n');
      assert.match(
        events,
        /report working \(hook PreToolUse Read\) ignored: fired 100 ms before the report kept/,
      );
      assert.match(events, /notify idle_prompt ignored: fired 200 ms before the report kept/);

      // the next turn's reports: its PreToolUse (t+400) after its PermissionRequest (t+450)
      await send({ op: 'report', state: 'working', detail: 'report working', firedAt: t + 300 });
      await reads('working', 'report working', `round ${round}: UserPromptSubmit`);
      await send({ op: 'report', state: 'blocked', detail: 'report blocked', firedAt: t + 450 });
      await send({
        op: 'report',
        state: 'working',
        detail: 'hook PreToolUse Bash',
        firedAt: t + 400,
      });
      await reads('blocked', 'report blocked', `round ${round}: PermissionRequest`);
      assert.is(pane.toolPendingAt, undefined);
      // the person answers; the Notification that fired before it comes late and is ignored,
      // while a report fired in the same millisecond as the one kept is taken, 1 ms on
      const ignored = await send({
        op: 'notify',
        payload: '{"notification_type":"permission_prompt"}',
        firedAt: t + 449,
      });
      assert.is(ignored.ignored, 'fired before the report kept');
      await send({
        op: 'report',
        state: 'working',
        detail: 'hook PreToolUse Bash',
        firedAt: t + 450,
      });
      await reads('working', 'hook PreToolUse Bash', `round ${round}: a tie`);
      assert.equal(await kept(), { state: 'working', at: t + 451, source: 'hook PreToolUse Bash' });
      assert.ok(pane.toolPendingAt !== undefined, 'a PreToolUse report kept: send waits after it');
      // and in order, as before: Stop last
      await send({ op: 'report', state: 'idle', detail: 'report done', firedAt: t + 600 });
      await reads('idle', 'report done', `round ${round}: Stop`);
      assert.is(pane.toolPendingAt, undefined);
    }
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
