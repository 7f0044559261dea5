/**
 * `npm run bench:pty-io`: what the host's PTY path costs per chunk read and per write, alone
 * (no rules, no sweep): N {@link Session}s (real PTYs, node-pty, our screen), each running
 * bench/ticker.c (a spinner line of `--bytes` bytes every `--period` ms, one write(2) each,
 * and its input read and dropped), in this process. Three windows of `--seconds` each:
 *
 * - `read`: output only; CPU per chunk read (µs) = this process's CPU / chunks;
 * - `read+write`: the same, and `--writes` writes a second of one key through
 *   {@link Session.write} (as the bench's simulated person and a board's keys do), spread over
 *   the sessions; CPU per write (µs) = (this window's CPU - the read window's CPU at its chunk
 *   rate) / writes;
 * - `read` again, so a drift of the machine's load shows.
 *
 * CPU is process.cpuUsage (user + system, every thread: node-pty's and libuv's included).
 * Per chunk and per write, these figures hold on a loaded machine better than % of a core
 * (a starved process reads fewer, larger chunks). `--json` prints `{sessions, chunkUs,
 * writeUs, chunksPerS, rssMB, gc}` (rssMB: this process's RSS at the end). Needs a C compiler (cc).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Session } from '../src/runtime/session.ts';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '10' },
    period: { type: 'string', default: '100' },
    bytes: { type: 'string', default: '100' },
    writes: { type: 'string', default: '500' },
    json: { type: 'boolean', default: false },
  },
});
const N = Number(values.sessions);
const WINDOW_MS = Number(values.seconds) * 1000;
const WRITES_PER_S = Number(values.writes);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (s: string) => process.stderr.write(s);

/** Context switches of this process's main thread so far (voluntary and involuntary). */
function contextSwitches(): number {
  const status = readFileSync('/proc/thread-self/status', 'utf8');
  let n = 0;
  for (const m of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)/gm)) n += Number(m[1]);
  return n;
}

/** CPU (ms), chunks and GC of this process over one window of `ms`, with `during` running. */
async function measure(sessions: Session[], ms: number, writesPerS: number) {
  const chunks = () => sessions.reduce((n, s) => n + s.chunksOut, 0);
  const gc = { n: 0, ms: 0 };
  const obs = new PerformanceObserver((l) => {
    for (const e of l.getEntries()) {
      gc.n++;
      gc.ms += e.duration;
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  let writes = 0;
  let next = 0;
  const key = Buffer.from('x');
  // writes in 10 ms steps, to sessions in turn
  const writer = writesPerS > 0
    ? setInterval(() => {
      for (let i = 0; i < writesPerS / 100; i++) {
        sessions[next++ % sessions.length].write(key);
        writes++;
      }
    }, 10)
    : undefined;
  const c0 = chunks();
  const sw0 = contextSwitches();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(ms);
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  const switches = contextSwitches() - sw0;
  if (writer) clearInterval(writer);
  obs.disconnect();
  return {
    cpuMs: (cpu.user + cpu.system) / 1000,
    wall,
    chunks: chunks() - c0,
    writes,
    gc,
    switches,
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-pty-io-'));
  const ticker = join(dir, 'ticker');
  execFileSync('cc', ['-O2', '-o', ticker, join(import.meta.dirname, 'ticker.c')]);
  const sessions: Session[] = [];
  const load0 = loadavg()[0];
  try {
    for (let i = 0; i < N; i++) {
      sessions.push(
        new Session({
          id: `tick${i}`,
          name: `tick${i}`,
          command: ticker,
          args: [String(values.period), String(values.bytes), String(i + 1)],
          rows: 32,
          cols: 120,
          headless: true,
          socket: join(dir, `tick${i}.sock`),
        }),
      );
      if (i % 100 === 99) await sleep(10);
    }
    await sleep(2000); // every ticker draws
    log(`${N} sessions: measuring `);
    const a = await measure(sessions, WINDOW_MS, 0);
    log('. ');
    const b = await measure(sessions, WINDOW_MS, WRITES_PER_S);
    log('. ');
    const c = await measure(sessions, WINDOW_MS, 0);
    log('\n');
    const rssMB = Math.round(process.memoryUsage().rss / 2 ** 20);
    const chunkUs = (a.cpuMs + c.cpuMs) * 1000 / (a.chunks + c.chunks);
    const readMs = chunkUs * b.chunks / 1000; // the read path's share of window b
    const writeUs = b.writes ? (b.cpuMs - readMs) * 1000 / b.writes : NaN;
    const pct = (m: { cpuMs: number; wall: number }) => (m.cpuMs / m.wall * 100).toFixed(1);
    const gcPct = (m: { gc: { ms: number }; wall: number }) => (m.gc.ms / m.wall * 100).toFixed(1);
    if (values.json) {
      console.log(JSON.stringify({
        sessions: N,
        chunkUs: Math.round(chunkUs * 10) / 10,
        writeUs: Math.round(writeUs * 10) / 10,
        chunksPerS: Math.round((a.chunks + c.chunks) / ((a.wall + c.wall) / 1000)),
        rssMB,
        gc: { read: a.gc, write: b.gc, readAgain: c.gc },
      }));
      return;
    }
    for (const [name, m] of [['read', a], ['read+write', b], ['read again', c]] as const) {
      console.log(
        `${name.padEnd(10)}  ${pct(m).padStart(5)}% of a core  ${
          String(Math.round(m.chunks / (m.wall / 1000))).padStart(6)
        } chunks/s  ${String(Math.round(m.writes / (m.wall / 1000))).padStart(4)} writes/s  ` +
          `GC ${m.gc.n} (${gcPct(m)}%)  ${
            Math.round(m.switches / (m.wall / 1000))
          } context switches/s`,
      );
    }
    console.log(
      `per chunk read: ${chunkUs.toFixed(1)} µs CPU; per write: ${writeUs.toFixed(1)} µs CPU ` +
        `(${N} sessions, RSS ${rssMB} MB; Node ${process.version}, ${cpus().length} CPUs, load average ` +
        `${load0.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after)`,
    );
  } finally {
    for (const s of sessions) s.kill('SIGKILL');
    await sleep(500);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
