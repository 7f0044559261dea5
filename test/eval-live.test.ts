/**
 * `agentwatch eval`, live and short: the simulated agent in a real PTY (seed 3: a permission
 * prompt in each of its first three tasks, the "Would you like me to ...?" trap in the
 * second), the simulated person, every detector logged every 50 ms, at 3x speed. The
 * qualitative result of the source's table must hold: the screen rules (polled, swept,
 * adaptive, all signals) miss no prompt and raise no false alarm; output-quiet timers under
 * 3 s raise a false alarm at every turn end; the stripped tail never sees a prompt drawn the
 * way Claude Code 2.1.332 draws it (no '\n', words placed with CSI n G).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runLive } from '../src/eval/live.ts';
import { DETECTORS } from '../src/eval/detectors.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { parsePsTime, processFigures } from '../src/eval/process-table.ts';

const SPEED = 3; // prompts last 1-2.7 s: longer than one 700 ms sweep, with room for a slow tick
const claude = loadBundledManifests().get('claude')!;

test('live eval, 3 tasks at 3x: screen rules exact, quiet timers fire at turn ends, the tail is blind', async () => {
  const r = await runLive({
    seed: 3,
    tasks: 3,
    speed: SPEED,
    manifest: claude,
    timeoutMs: 120_000,
  });
  assert.is(r.ended, 'done', 'the agent ran its 3 tasks and exited');
  assert.is(r.turns, 3);
  const by = (id: string) => r.figures[DETECTORS.findIndex((d) => d.id === id)];
  const prompts = by('screen-50ms').prompts;
  assert.is(prompts, 3, 'seed 3 asks for permission in each task');
  for (const id of ['screen-50ms', 'sweep-700ms', 'sweep-adaptive', 'signals']) {
    const f = by(id);
    assert.is(f.missed, 0, `${id} missed a prompt`);
    assert.is(
      f.falseAlarms.working.episodes + f.falseAlarms.idle.episodes,
      0,
      `${id}: false alarm`,
    );
    assert.is(f.latenciesMs.length, prompts);
  }
  // The screen forgets an answered prompt at once (a generous bound: a loaded machine can be
  // slow to deliver the erasing bytes; the tail of the source kept it for 77 s).
  for (const p of by('screen-50ms').persistenceMs) assert.ok(p <= 1500, `persistence ${p} ms`);

  // Every turn end is an idle span (the person waits 3-10 s, here / 3, before the next task):
  // each quiet timer under 3 s fires in each one that lasts longer than its threshold.
  const truth = r.log.truth;
  const idleSpans: Array<[number, number]> = [];
  for (let i = 1; i < truth.length; i++) {
    if (truth[i].state === 'idle' && truth[i - 1].state === 'working') {
      idleSpans.push([truth[i].t, truth[i + 1]?.t ?? r.log.end]);
    }
  }
  assert.is(idleSpans.length, 3);
  for (const s of [0.5, 1, 2]) {
    const f = by(`quiet-${s}s`);
    const thresholdMs = (s * 1000) / SPEED;
    for (const [a, b] of idleSpans) {
      if (b - a < thresholdMs + 150) continue; // the last turn's end: the agent exits soon after
      assert.ok(
        f.falseAt.some((e) => e.state === 'idle' && e.t >= a && e.t < b),
        `quiet >= ${s} s stayed silent in the turn end at ${a - r.startedAt} ms`,
      );
    }
    assert.ok(f.falseAlarms.idle.episodes >= 2, `quiet >= ${s} s: ${f.falseAlarms.idle.episodes}`);
  }

  // Claude Code's way of drawing leaves the stripped tail nothing to match.
  assert.is(by('tail-8kb').missed, prompts);
  // The process table: the agent's letter is the same whatever it does.
  const letters = new Set(r.process.flatMap((p) => Object.keys(p.letters)));
  assert.ok(letters.has('S'), [...letters].join());
});

test('process table: ps TIME parsed, samples summed per true state', () => {
  assert.is(parsePsTime('00:00:03'), 3000);
  assert.is(parsePsTime('1-02:03:04'), 93784000);
  assert.is(parsePsTime('01:02'), 62000);
  assert.ok(Number.isNaN(parsePsTime('soon')));
  const samples = [
    { t: 0, stat: 'Ss', cpuMs: 0, wchan: 'do_epoll_wait' },
    { t: 500, stat: 'R+', cpuMs: 10, wchan: '0' },
    { t: 1000, stat: 'S', cpuMs: 10, wchan: 'do_epoll_wait' },
    { t: 1500, stat: 'S', cpuMs: 11, wchan: 'do_epoll_wait' },
  ];
  const truth = [{ t: 0, state: 'working' }, { t: 1000, state: 'blocked' }];
  const [working, idle, blocked] = processFigures(samples, truth);
  assert.equal(working.letters, { S: 0.5, R: 0.5 });
  assert.is(working.cpuPercent, 1); // 10 ms of CPU in 1000 ms
  assert.equal(working.wchan, { do_epoll_wait: 1, '0': 1 });
  assert.is(idle.samples, 0);
  assert.is(blocked.samples, 2);
  assert.is(blocked.cpuPercent, 0.2); // 1 ms in 500 ms (the last sample has no next)
});

test.run();
