/**
 * `node --import tsx bench/profile.ts FILE.cpuprofile [--top N] [--under NAME,...]`: where a V8
 * CPU profile (bench:sweep's `--profile`) spends its time. Prints the busy share of the window
 * (samples that are not `(idle)`), the N functions with the most self time (default 30) and
 * the inclusive time of the functions named with `--under` (all samples whose stack holds a
 * frame of that name, counted once per sample) and, for the functions named with `--callers`,
 * their self time by their nearest callers; each in ms and as % of the busy samples. The
 * profiler samples wall time while the thread runs or waits to run: on a loaded machine,
 * system calls (where the thread is often descheduled) weigh more than their CPU time.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { values, positionals } = parseArgs({
  options: {
    top: { type: 'string', default: '30' },
    under: { type: 'string', default: '' },
    callers: { type: 'string', default: '' },
  },
  allowPositionals: true,
});
if (positionals.length !== 1) {
  process.stderr.write('usage: node --import tsx bench/profile.ts FILE.cpuprofile [--top N]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as Profile;
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
/** A frame's name as printed: function, file and line. */
const label = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').pop() ?? ''}:${
    n.callFrame.lineNumber + 1
  }`;
const under = values.under!.split(',').filter(Boolean);
const self = new Map<string, number>();
const inclusive = new Map<string, number>(under.map((u) => [u, 0]));
const callersOf = values.callers!.split(',').filter(Boolean);
/** Per function named with `--callers`: its self time by the chain of its 7 nearest callers. */
const callers = new Map<string, Map<string, number>>(callersOf.map((c) => [c, new Map()]));
let busy = 0;
profile.samples.forEach((id, i) => {
  const n = nodes.get(id)!;
  const dt = (profile.timeDeltas[i] ?? 0) / 1000;
  if (n.callFrame.functionName === '(idle)') return;
  busy += dt;
  const k = label(n);
  self.set(k, (self.get(k) ?? 0) + dt);
  const by = callers.get(n.callFrame.functionName);
  if (by) {
    const chain: string[] = [];
    for (let at = parent.get(id); at !== undefined && chain.length < 7; at = parent.get(at)) {
      chain.push(label(nodes.get(at)!));
    }
    const key = chain.join(' < ');
    by.set(key, (by.get(key) ?? 0) + dt);
  }
  if (!under.length) return;
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const name = nodes.get(at)!.callFrame.functionName;
    if (inclusive.has(name) && !seen.has(name)) {
      seen.add(name);
      inclusive.set(name, inclusive.get(name)! + dt);
    }
  }
});
const wall = (profile.endTime - profile.startTime) / 1000;
const pct = (ms: number) => `${(ms / busy * 100).toFixed(1).padStart(5)}%`;
console.log(
  `${(wall / 1000).toFixed(1)} s, busy ${busy.toFixed(0)} ms (${
    (busy / wall * 100).toFixed(1)
  }% of a core)`,
);
for (const [k, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  console.log(`${ms.toFixed(0).padStart(7)} ms ${pct(ms)}  ${k}`);
}
if (under.length) console.log('inclusive:');
for (const [k, ms] of inclusive) console.log(`${ms.toFixed(0).padStart(7)} ms ${pct(ms)}  ${k}`);
for (const [name, by] of callers) {
  console.log(`callers of ${name}:`);
  for (const [k, ms] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
    console.log(`${ms.toFixed(0).padStart(7)} ms ${pct(ms)}  ${k}`);
  }
}
