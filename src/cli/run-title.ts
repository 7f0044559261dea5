/**
 * The terminal title of a `run` session: the agent's own title (OSC 0/2) with the state put
 * before it (`[blocked] ✳ Claude Code`), so that a tab or a tmux window list shows which one
 * needs the person. The title in force before is saved with XTWINOPS `CSI 22 ; 0 t` (push
 * icon and window title, xterm ctlseqs) and put back with `CSI 23 ; 0 t` (pop) on exit;
 * terminals without a title stack ignore both.
 */
import type { SessionState } from '../detect/types.ts';

/** The title shown: `[STATE] agent's title`, control characters removed, at most 200 characters. */
export function runTitle(state: SessionState, agentTitle: string): string {
  const own = agentTitle.replace(/[\x00-\x1f\x7f-\x9f]/g, ' ').trim();
  return `[${state}]${own ? ` ${own}` : ''}`.slice(0, 200);
}

/** True when `data` (PTY output) sets the window title: OSC 0 or OSC 2. */
export function setsTitle(data: Uint8Array): boolean {
  const s = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
  return s.includes('\x1b]0;') || s.includes('\x1b]2;');
}

/** Writes the title when the state or the agent's title changes. */
export class RunTitle {
  #last = '';
  #started = false;

  constructor(readonly write: (bytes: string) => void) {}

  /** Saves the title in force (CSI 22;0t). */
  start(): void {
    this.#started = true;
    this.write('\x1b[22;0t');
  }

  /**
   * Sets the title for `state` and the agent's own title, when it changed, or always with
   * `force` (the agent has just written its own title over ours).
   */
  update(state: SessionState, agentTitle: string, force = false): void {
    if (!this.#started) return;
    const t = runTitle(state, agentTitle);
    if (t === this.#last && !force) return;
    this.#last = t;
    this.write(`\x1b]2;${t}\x07`);
  }

  /** Puts the saved title back (CSI 23;0t). */
  restore(): void {
    if (!this.#started) return;
    this.#started = false;
    this.write('\x1b[23;0t');
  }
}
