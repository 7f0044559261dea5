/**
 * A recording (`agentwatch record`: `NAME.bytes.jsonl`, `.input.jsonl`, `.meta.json`) replayed
 * into a {@link ScreenPane} one PTY read at a time, looked at as the sweep looks at a live
 * session: at each resize (it bumps the inputs), every 100 ms while the screen is still, just
 * before each read and after it. The session tells the pane when it was resized, as a PTY
 * session does, unless `hold` is false.
 */
import { readFileSync } from 'node:fs';
import type { Manifest } from '../../src/detect/schema.ts';
import { loadBundledManifests } from '../../src/runtime/manifest-sources.ts';
import { ScreenPane, type SweptSession } from '../../src/runtime/screen-pane.ts';
import { Terminal } from '../../src/vt/terminal.ts';

/** One look of the replay: recording time (s), the pane's state, the screen's size. */
export interface Look {
  t: number;
  state: string;
  rows: number;
  cols: number;
  terminal: Terminal;
}

/**
 * Replays the recording at `base` (its path without the suffixes) for the manifest `agent`
 * (the bundled one unless `manifests` has it), calling `onLook` after every look. `hold: false`
 * leaves the resize times out (the pane then reads a resized screen at once).
 */
export function replayRecording(
  base: string,
  agent: string,
  onLook: (look: Look) => void,
  hold = true,
  manifests: ReadonlyMap<string, Manifest> = loadBundledManifests(),
): void {
  const meta = JSON.parse(readFileSync(`${base}.meta.json`, 'utf8'));
  const term = new Terminal(meta.rows, meta.cols);
  const start = Date.parse(meta.started);
  let clock = start;
  const session: SweptSession & { resizedAt: number; resizedVersion: number } = {
    id: agent,
    spec: { agent, command: agent, args: [] },
    terminal: term,
    inputsVersion: 0,
    exit: null,
    report: null,
    resizedAt: 0,
    resizedVersion: -1,
    onOutput: () => () => {},
    onExit: () => () => {},
  };
  const pane = new ScreenPane(session, {
    manifests: () => manifests,
    foreground: () => null,
    now: () => clock,
  });
  const look = () => {
    pane.classifyNow();
    onLook({
      t: (clock - start) / 1000,
      state: pane.record.state,
      rows: term.rows,
      cols: term.cols,
      terminal: term,
    });
  };
  const ticks = (t: number) => {
    for (let at = clock + 100; at < start + t * 1000; at += 100) {
      clock = at;
      look();
    }
  };
  const resizes: Array<{ t: number; rows: number; cols: number }> = [...meta.resizes];
  for (const line of readFileSync(`${base}.bytes.jsonl`, 'utf8').split('\n')) {
    if (!line) continue;
    const { t, b64 } = JSON.parse(line) as { t: number; b64: string };
    while (resizes.length && resizes[0].t <= t) {
      const r = resizes.shift()!;
      ticks(r.t);
      clock = start + r.t * 1000;
      term.resize(r.rows, r.cols);
      if (hold) session.resizedAt = clock;
      if (hold) session.resizedVersion = term.version;
      session.inputsVersion++;
      look();
    }
    ticks(t);
    clock = start + t * 1000;
    look(); // the screen as it stood just before the read
    term.write(Buffer.from(b64, 'base64'));
    look();
  }
}

/** The times (s) of the recorded keys equal to `keys` (e.g. '\r'), in order. */
export function keyTimes(base: string, keys: string): number[] {
  return readFileSync(`${base}.input.jsonl`, 'utf8').trim().split('\n')
    .map((l) => JSON.parse(l) as { t: number; keys: string })
    .filter((k) => k.keys === keys)
    .map((k) => k.t);
}
