/**
 * A child program for test/first-blocked-question.test.ts: in a PTY it writes a real agent's
 * recorded output (`recordings/*.bytes.jsonl`, one `{t, b64}` per PTY read) read for read, in
 * order, and stops at the two moments of each blocked spell that a test drives by hand:
 *
 * - `title`: the read that turned the screen blocked while no dialog can be read yet (Qwen Code
 *   0.24.4 sets its `✳` window title before it draws its dialog);
 * - `dialog`: the spell's first read whose screen shows its question;
 * - `ended`: the first read after a blocked spell that reads another state.
 *
 * The state is read as agentwatch reads it (the manifest `--agent ID`'s rules on our VT
 * screen, the prompt reader). At each stop it logs `--log FILE` (write(2), one line each:
 * `title N`, `dialog N` or `ended N`, N counting spells from 1; `done` after the last read) and waits for a
 * Ctrl-N (0x0e) in its input; any other input (a terminal's replies to the agent's queries)
 * is ignored. Between stops it writes one read per event-loop turn, without the recorded
 * pauses. It stays until SIGTERM or SIGHUP.
 *
 * Run as `node --import tsx test/support/replay-pauses.ts --replay-pauses --agent ID --log F
 * RECORDING`; importing this module (uvu loads every file under test/) runs nothing.
 */
import { openSync, readFileSync, writeSync } from 'node:fs';
import { evaluate } from '../../src/detect/evaluate.ts';
import { readPrompt } from '../../src/detect/prompt.ts';
import { loadBundledManifests } from '../../src/runtime/manifest-sources.ts';
import { Terminal } from '../../src/vt/terminal.ts';

/** A stop of the replay: which moment, of which spell (from 1). */
export interface ReplayStop {
  kind: 'title' | 'dialog' | 'ended';
  spell: number;
}

/**
 * Where `recording` (a bytes.jsonl text) stops for agent `id` on a `rows` x `cols` screen: one
 * entry per read that is a stop, by the read's index. Also each spell's question: the first
 * one the prompt reader reads in it.
 */
export function replayStops(
  recording: string,
  id: string,
  rows: number,
  cols: number,
): { chunks: Buffer[]; stops: Map<number, ReplayStop>; questions: string[] } {
  const manifest = loadBundledManifests().get(id);
  if (!manifest) throw new Error(`replay-pauses: no manifest '${id}'`);
  const chunks = recording.trim().split('\n').map((l) => JSON.parse(l) as { b64?: string })
    .filter((c) => c.b64 !== undefined).map((c) => Buffer.from(c.b64!, 'base64'));
  const term = new Terminal(rows, cols);
  const stops = new Map<number, ReplayStop>();
  const questions: string[] = [];
  let blocked = false;
  chunks.forEach((chunk, i) => {
    term.write(chunk);
    const snap = term.snapshot();
    const now = evaluate(snap, manifest).state === 'blocked';
    const question = now ? readPrompt(snap.rows).question : '';
    if (now && !blocked) questions.push('');
    const spell = questions.length;
    if (now && !questions[spell - 1] && question) {
      questions[spell - 1] = question;
      stops.set(i, { kind: 'dialog', spell });
    } else if (now && !blocked) stops.set(i, { kind: 'title', spell });
    else if (!now && blocked) stops.set(i, { kind: 'ended', spell });
    blocked = now;
  });
  return { chunks, stops, questions };
}

function main(argv: string[]): void {
  const opt = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const log = openSync(opt('log') ?? '', 'w');
  const file = argv.at(-1)!;
  const { chunks, stops } = replayStops(
    readFileSync(file, 'utf8'),
    opt('agent') ?? '',
    process.stdout.rows,
    process.stdout.columns,
  );
  process.stdin.setRawMode(true);
  let next = 0;
  let waiting = false;
  const play = () => {
    if (next >= chunks.length) {
      writeSync(log, 'done\n');
      return;
    }
    const i = next++;
    process.stdout.write(chunks[i], () => {
      const stop = stops.get(i);
      if (!stop) return void setImmediate(play);
      writeSync(log, `${stop.kind} ${stop.spell}\n`);
      waiting = true;
    });
  };
  process.stdin.on('data', (d: Buffer) => {
    if (!waiting || !d.includes(0x0e)) return;
    waiting = false;
    play();
  });
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGHUP', () => process.exit(0));
  play();
}

if (process.argv.includes('--replay-pauses')) main(process.argv.slice(2));
