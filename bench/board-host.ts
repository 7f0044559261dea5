/**
 * `node --import tsx bench/board-host.ts [--sessions N] [--seconds S]`: the board's share of a
 * host's time. One SessionHost in this process with N sessions (default 100): bash, run under
 * the name `claude` (a link in a temporary folder) so that the claude manifest applies, 30% of
 * them "working" (an OSC 7501 working report, then a spinner line whose words change every
 * 300 ms and whose glyph and timer change every 100 ms, as Claude Code 2.1.332 draws it), the
 * others idle. A board (`BoardUi` on a fake 50x160 terminal) follows them through a
 * `SessionDirectory` and is asked for a frame at every info the host publishes. Over S seconds
 * (default 20, after 3 s of warm-up) under the V8 CPU profiler: the process's CPU (% of one
 * core) and the board's inclusive share (samples under `BoardUi.render`) of the busy samples,
 * with the functions it spends them in. Needs bash; 100 sessions take about 300 file
 * descriptors.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { Session as Inspector } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '20' },
  },
});
const N = Number(values.sessions);
const S = Number(values.seconds);
const tmp = mkdtempSync(join(tmpdir(), 'aw-board-host-'));
// Removed however the bench ends (a failed start included); the sessions' bash processes end
// with this process (their PTYs close).
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
process.env.AGENTWATCH_DIR = join(tmp, 'sockets');
symlinkSync('/bin/bash', join(tmp, 'claude'));
// Imported after AGENTWATCH_DIR is set.
const { createHost } = await import('../src/runtime/default-host.ts');
const { SessionDirectory } = await import('../src/runtime/session-directory.ts');
const { BoardUi } = await import('../src/cli/board/ui.ts');
const { notifyStatus } = await import('../src/cli/board/render.ts');

const working = 'g=(· ✢ ✳ ✶ ✻ ✽); i=0; printf "\\033]7501;state=working : app=claude-code\\007"; ' +
  'while :; do printf "\\r\\033[K%s Running step %d… (%ds · esc to interrupt)" "${g[i%6]}" ' +
  '$((i/3)) $((i/10)); i=$((i+1)); read -t 0.1 -s -n 1 x; done';
const idle =
  'printf "\\033]7501;state=idle : app=claude-code\\007> "; read -s -n 1 x; sleep 100000';
const host = createHost({ intervalMs: 700, adaptive: true }, process.env, {
  update: false,
  hooks: false,
});
for (let i = 0; i < N; i++) {
  await host.start({
    command: join(tmp, 'claude'),
    args: ['-c', i % 10 < 3 ? working : idle],
    name: `s${i}`,
    agent: 'claude',
    headless: true,
    rows: 32,
    cols: 120,
  });
}
const stdin = Object.assign(new EventEmitter(), {
  setRawMode: () => {},
  resume: () => {},
  pause: () => {},
}) as unknown as NodeJS.ReadStream;
let painted = 0;
const stdout = Object.assign(new EventEmitter(), {
  columns: 160,
  rows: 50,
  write: (s: string) => ((painted += s.length), true),
}) as unknown as NodeJS.WriteStream;
/** The board, once made: the directory's listener asks it for frames. */
const board: { ui?: InstanceType<typeof BoardUi> } = {};
const directory = new SessionDirectory({
  host,
  remote: false,
  onChange: () => board.ui?.requestRender(),
});
for (const id of host.sessions.keys()) directory.addLocal(id);
const ui = new BoardUi({ directory, stdin, stdout, status: (infos) => notifyStatus({}, infos) });
board.ui = ui;
host.onPublish(() => ui.requestRender());
ui.start();
await new Promise((r) => setTimeout(r, 3000));

const inspector = new Inspector();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.start');
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await new Promise((r) => setTimeout(r, S * 1000));
const cpu = process.cpuUsage(cpu0);
const wall = performance.now() - t0;
const { profile } = await inspector.post('Profiler.stop');

interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
const nodes = new Map<number, Node>(profile.nodes.map((n: Node) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes as Node[]) for (const c of n.children ?? []) parent.set(c, n.id);
const boardMemo = new Map<number, boolean>();
const underBoard = (id: number): boolean => {
  const known = boardMemo.get(id);
  if (known !== undefined) return known;
  const n = nodes.get(id)!;
  const r = (n.callFrame.functionName === 'render' && n.callFrame.url.endsWith('/board/ui.ts')) ||
    (parent.has(id) && underBoard(parent.get(id)!));
  boardMemo.set(id, r);
  return r;
};
let busy = 0;
let boardTime = 0;
const self = new Map<string, number>();
(profile.samples as number[]).forEach((s, i) => {
  const n = nodes.get(s)!;
  const dt = profile.timeDeltas?.[i] ?? 0;
  if (n.callFrame.functionName === '(idle)') return;
  busy += dt;
  if (!underBoard(s)) return;
  boardTime += dt;
  const k = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').pop()}`;
  self.set(k, (self.get(k) ?? 0) + dt);
});
const states: Record<string, number> = {};
for (const i of directory.infos()) states[i.state] = (states[i.state] ?? 0) + 1;
console.log(
  `${N} sessions (${JSON.stringify(states)}), ${(wall / 1000).toFixed(0)} s: process ` +
    `${((cpu.user + cpu.system) / 1000 / wall * 100).toFixed(1)}% of a core; board ` +
    `${(boardTime / busy * 100).toFixed(1)}% of the busy samples (` +
    `${(boardTime / 1000 / wall * 100).toFixed(2)}% of a core); ${
      (painted / 1e6).toFixed(1)
    } MB painted`,
);
for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
  console.log(`  ${(t / 1000).toFixed(0).padStart(5)} ms  ${k}`);
}
ui.restore();
directory.close();
await host.close();
process.exit(0);
