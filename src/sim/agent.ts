/**
 * A simulated coding agent that draws like Claude Code 2.1.332 in its terminal, for the demo,
 * the tests and the eval (DESIGN.md section 1 "Idle timers cannot work"; the drawing habits are
 * those listed in fixtures/claude-code/README.md "What this version looks like"):
 *
 * * alternate screen; a full-screen frame whose rows are reached with `ESC[H` then `\r` +
 *   `ESC[nB` (never a `\n`) and whose words are placed with `ESC[nG` (the gaps between words
 *   are cells that are never written);
 * * idle: the input box between two `─` rules and the footer `  ⏸ manual mode on · ? for
 *   shortcuts` (mode `default`: `  ? for shortcuts`);
 * * working (from the Enter that submits a line): a 10 Hz spinner line
 *   `✻ Churning… (3s · esc to interrupt)` in 24-bit colour (glyphs `· ✢ ✳ ✶ ✻ ✽`), the footer
 *   `... esc to interrupt`; silent tool calls of 0.5-6 s write nothing at all (the spinner
 *   freezes);
 * * blocked: sometimes a permission prompt replaces the spinner, the input box and the footer,
 *   with Claude's wording (`Bash command` / `touch hello.txt` / `Do you want to proceed?` /
 *   `❯ 1. Yes` / `2. Yes, and don't ask again for touch commands in /home/dev/proj` / `3. No` /
 *   `Esc to cancel · Tab to amend`); it reads one key (1/2/3, Enter = the selected choice,
 *   ↑/↓ move, Esc or Ctrl-C = No) and is erased Ink-style (cursor up + `ESC[J`);
 * * the reply sometimes ends "Would you like me to add a regression test?": the trap, a
 *   question that stays on screen while the agent is idle.
 *
 * Its true state goes to `onState` (the CLI writes it to the `--truth` file), never to the
 * screen. Every choice comes from a seeded PRNG, so a seed gives the same run (for the same
 * answers from the user). No I/O here: the CLI wires `write`, keys and resizes.
 *
 * Why one file over 400 lines: the class is one state machine (idle, working, prompt, ended)
 * driven by one clock and one seeded PRNG; what a task does is drawn in plan.ts and how frames
 * become bytes is diff-renderer.ts, and what is left (the phases, the keys each reads, the
 * frame each draws) shares the phase and the timers.
 */

import { DiffRenderer, type Line, plain } from './diff-renderer.ts';
import { PAST, planTask, PROJECT_DIR, type Tool } from './plan.ts';
import { Rng } from './rng.ts';

/** The agent's true state, as the truth file records it. */
export type TrueState = 'idle' | 'working' | 'blocked' | 'exited';

/** Spinner frame period, ms (10 Hz). */
export const SPINNER_MS = 100;
/** Spinner glyphs, in Claude Code's order; the animation runs forth and back. */
export const SPINNER_GLYPHS = ['·', '✢', '✳', '✶', '✻', '✽'] as const;
const GLYPH_CYCLE = [...SPINNER_GLYPHS, ...[...SPINNER_GLYPHS].reverse().slice(1, -1)];

// 24-bit SGR colours as Claude Code's dark theme writes them.
const ORANGE = '38;2;215;119;87';
const GREY = '38;2;153;153;153';
const WHITE = '38;2;255;255;255';
const ACCENT = '38;2;177;185;249';
const GREEN = '38;2;78;186;101';
const RED = '38;2;255;107;128';
const BOLD = '1';

/** Thrown inside a task when the person interrupts it (Esc or Ctrl-C while working). */
class Interrupted extends Error {}

/** How the simulated agent is set up. */
export interface SimAgentOptions {
  seed: number;
  /** Tasks after which the agent ends by itself; Infinity for no limit. */
  tasks?: number;
  /** Screen size in cells. */
  rows: number;
  cols: number;
  /** Writes screen bytes (the PTY). */
  write: (bytes: string) => void;
  /**
   * Called on every true state change; `t` in ms since the epoch; `detail.answer` (1-based
   * option number) when a permission prompt was answered.
   */
  onState?: (state: TrueState, t: number, detail?: { answer: number }) => void;
  /** Time factor: 4 makes every delay 4 times shorter (the spinner stays at 10 Hz). Default 1. */
  speed?: number;
  /** Footer wording: 'manual' (2.1.332 with --permission-mode manual, default) or 'default'. */
  mode?: 'manual' | 'default';
  /** Clock, ms since the epoch (tests). */
  now?: () => number;
}

type Phase = 'idle' | 'working' | 'prompt' | 'ended';

/** The simulated agent; see the file comment. */
export class SimAgent {
  readonly rng: Rng;
  readonly tasks: number;
  readonly speed: number;
  /** Tasks finished so far. */
  tasksDone = 0;
  /** Prompts shown so far. */
  promptsShown = 0;
  /** Resolves when the agent has ended (exited state written, alternate screen left). */
  readonly done: Promise<string>;
  #endDone!: (reason: string) => void;

  #phase: Phase = 'idle';
  #state: TrueState | null = null;
  #transcript: Line[] = [];
  #input = '';
  #renderer: DiffRenderer;
  #spinner: { verb: string; start: number; frame: number; tip: string } | null = null;
  #animation?: ReturnType<typeof setInterval>;
  #prompt: { tool: Tool; choice: number; top: number; answer: (choice: number) => void } | null =
    null;
  /** Bumped on interrupt: the running task's awaits throw {@link Interrupted}. */
  #generation = 0;
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #wakers = new Set<() => void>();
  readonly #now: () => number;

  constructor(readonly options: SimAgentOptions) {
    this.rng = new Rng(options.seed);
    this.tasks = options.tasks ?? Infinity;
    this.speed = options.speed && options.speed > 0 ? options.speed : 1;
    this.#now = options.now ?? Date.now;
    this.#renderer = new DiffRenderer(options.rows, options.cols);
    this.done = new Promise((r) => (this.#endDone = r));
    this.#transcript.push(
      [{ text: ' ✻ ', style: ORANGE }, { text: 'Claude Code', style: BOLD }, {
        text: ' v2.1.332 (simulated by agentwatch)',
        style: GREY,
      }],
      plain(`   seed ${options.seed} · ${PROJECT_DIR}`, GREY),
      [],
    );
  }

  /** The true state now (null before start). */
  get state(): TrueState | null {
    return this.#state;
  }

  /** Enters the alternate screen, draws the idle frame and reports idle. */
  start(): void {
    this.options.write('\x1b[?1049h\x1b[?2004h');
    this.#renderer.invalidate();
    this.#paint();
    this.#setState('idle');
  }

  /** Redraws everything for a new size (as Claude Code does on SIGWINCH). */
  resize(rows: number, cols: number): void {
    if (this.#phase === 'ended' || rows < 1 || cols < 2) return;
    this.#renderer = new DiffRenderer(rows, cols);
    this.#paint();
  }

  /** Ends the agent: stops its timers, leaves the alternate screen, reports exited. */
  end(reason: string): void {
    if (this.#phase === 'ended') return;
    this.#phase = 'ended';
    this.#generation++;
    this.#stopAnimation();
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    for (const w of this.#wakers) w();
    this.#wakers.clear();
    try {
      this.options.write('\x1b[0m\x1b[?2004l\x1b[?1049l');
    } catch {
      // the terminal is gone (hangup)
    }
    this.#setState('exited');
    this.#endDone(reason);
  }

  /** Handles input bytes (decoded as UTF-8): keys, escape sequences, pastes. */
  key(data: string): void {
    let i = 0;
    while (i < data.length && this.#phase !== 'ended') {
      const c = data[i];
      if (c === '\x1b') {
        const m = /^\x1b(?:\[[0-?]*[ -/]*[@-~]|O[A-Z])/.exec(data.slice(i));
        if (m) {
          this.#sequence(m[0]);
          i += m[0].length;
        } else {
          this.#escape();
          i++;
        }
        continue;
      }
      this.#char(c);
      i++;
    }
  }

  #sequence(seq: string): void {
    if (this.#phase !== 'prompt' || !this.#prompt) return; // mouse, focus, paste marks: ignored
    const last = seq[seq.length - 1];
    if (last === 'A') this.#prompt.choice = Math.max(0, this.#prompt.choice - 1);
    else if (last === 'B') this.#prompt.choice = Math.min(2, this.#prompt.choice + 1);
    else return;
    this.#paint();
  }

  #escape(): void {
    if (this.#phase === 'prompt') this.#prompt?.answer(2);
    else if (this.#phase === 'working') this.#interrupt();
  }

  #char(c: string): void {
    if (this.#phase === 'prompt') {
      if (c === '1' || c === '2' || c === '3') this.#prompt?.answer(Number(c) - 1);
      else if (c === '\r' || c === '\n') this.#prompt?.answer(this.#prompt.choice);
      else if (c === '\x03') this.#prompt?.answer(2);
      return;
    }
    if (c === '\x03') {
      if (this.#phase === 'working') this.#interrupt();
      else if (this.#input) {
        this.#input = '';
        this.#paint();
      } else this.end('ctrl-c');
      return;
    }
    if (c === '\x04') {
      if (this.#phase === 'idle' && !this.#input) this.end('ctrl-d');
      return;
    }
    if (c === '\r' || c === '\n') {
      if (this.#phase === 'idle' && this.#input.trim() && this.tasksDone < this.tasks) {
        const text = this.#input.trim();
        this.#input = '';
        void this.#runTask(text);
      }
      return;
    }
    if (c === '\x7f' || c === '\b') this.#input = [...this.#input].slice(0, -1).join('');
    else if (c === '\x15') this.#input = '';
    else if (c >= ' ') this.#input += c;
    else return;
    this.#paint();
  }

  #interrupt(): void {
    this.#generation++;
    for (const w of this.#wakers) w();
    this.#wakers.clear();
  }

  #setState(state: TrueState, detail?: { answer: number }): void {
    if (state === this.#state) return;
    this.#state = state;
    this.options.onState?.(state, this.#now(), detail);
  }

  /** Waits `ms` of simulated time (divided by the speed); throws Interrupted on interrupt. */
  async #sleep(ms: number): Promise<void> {
    const gen = this.#generation;
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(t);
        this.#timers.delete(t);
        this.#wakers.delete(wake);
        resolve();
      };
      const t = setTimeout(wake, ms / this.speed);
      this.#timers.add(t);
      this.#wakers.add(wake);
    });
    if (gen !== this.#generation) throw new Interrupted();
  }

  /** Spinner running for `ms`. */
  async #think(ms: number): Promise<void> {
    this.#startAnimation();
    await this.#sleep(ms);
  }

  /** A silent tool call: no output at all for `ms` (the spinner freezes). */
  async #silent(ms: number): Promise<void> {
    this.#stopAnimation();
    await this.#sleep(ms);
    this.#startAnimation();
  }

  #say(...lines: Line[]): void {
    this.#transcript.push(...lines);
    this.#paint();
  }

  async #runTask(text: string): Promise<void> {
    const gen = this.#generation;
    const start = this.#now();
    const plan = planTask(this.rng);
    this.#phase = 'working';
    this.#transcript.push([{ text: '❯ ', style: GREY }, { text, style: WHITE }], []);
    this.#spinner = { verb: plan.verb, start, frame: 0, tip: plan.tip };
    this.#setState('working');
    this.#startAnimation();
    this.#paint();
    try {
      await this.#think(plan.thinkMs);
      const tool = plan.tool;
      this.#say([{ text: '● ', style: WHITE }, { text: tool.intro }], []);
      if (plan.read) {
        this.#say([{ text: '● ', style: GREEN }, { text: plan.read.label, style: BOLD }]);
        await this.#silent(plan.read.silentMs);
        this.#say(plain(`  ⎿  ${plan.read.result}`, GREY), []);
        await this.#think(plan.read.thinkMs);
      }
      this.#say([{ text: '● ', style: GREEN }, { text: `Bash(${tool.cmd})`, style: BOLD }]);
      let choice = 0;
      if (plan.asks) choice = await this.#ask(tool);
      if (gen !== this.#generation) throw new Interrupted();
      if (choice === 2) {
        this.#say(plain('  ⎿  User rejected the command', RED), []);
        await this.#think(plan.afterMs);
        this.#say([{ text: '● ', style: WHITE }, {
          text: "Okay, I won't run it. The project is unchanged.",
        }], []);
      } else {
        await this.#silent(plan.toolMs);
        this.#say(plain(`  ⎿  ${tool.result}`, GREY), []);
        await this.#think(plan.afterMs);
        this.#say([{ text: '● ', style: WHITE }, { text: tool.done }], []);
      }
      if (plan.question) this.#say(plain(`  ${plan.question}`), []);
      const verb = PAST[plan.verb] ?? 'Worked';
      this.#finishTurn(plain(`✻ ${verb} for ${Math.round((this.#now() - start) / 1000)}s`, GREY));
    } catch (e) {
      if (!(e instanceof Interrupted) || (this.#phase as Phase) === 'ended') return;
      this.#finishTurn(plain('  ⎿  Interrupted · What should Claude do instead?', RED));
    }
    if (this.tasksDone >= this.tasks) {
      // Stay idle 1.5 s of real time, whatever the speed, so the last turn's end can be seen
      // (a watcher confirms idle only after a quiet spell, later on a loaded machine), then exit.
      try {
        await this.#sleep(1500 * this.speed);
      } catch {
        // interrupted while idle: end anyway
      }
      this.end('tasks done');
    }
  }

  #finishTurn(last: Line): void {
    this.#stopAnimation();
    this.#spinner = null;
    this.#phase = 'idle';
    this.#transcript.push(last, []);
    this.tasksDone++;
    this.#paint();
    this.#setState('idle');
  }

  /** Shows the permission prompt; resolves with the choice (0 yes, 1 yes always, 2 no). */
  #ask(tool: Tool): Promise<number> {
    this.#stopAnimation();
    this.promptsShown++;
    return new Promise<number>((resolve) => {
      this.#phase = 'prompt';
      this.#prompt = {
        tool,
        choice: 0,
        top: 0,
        answer: (choice) => {
          const p = this.#prompt;
          if (!p || this.#phase !== 'prompt') return;
          this.#prompt = null;
          this.#phase = 'working';
          this.#setState('working', { answer: choice + 1 });
          // Ink erases the dialog: cursor up to its first row, then erase to the end of screen.
          const up = this.#renderer.rows - 1 - p.top;
          this.options.write(`\r${up > 0 ? `\x1b[${up}A` : ''}\x1b[J`);
          this.#renderer.blankFrom(p.top);
          this.#startAnimation();
          this.#paint();
          resolve(choice);
        },
      };
      this.#paint();
      this.#setState('blocked');
    });
  }

  #startAnimation(): void {
    if (this.#animation || this.#phase !== 'working') return;
    this.#animation = setInterval(() => {
      if (this.#spinner) this.#spinner.frame++;
      this.#paint();
    }, SPINNER_MS);
  }

  #stopAnimation(): void {
    if (this.#animation) clearInterval(this.#animation);
    this.#animation = undefined;
  }

  /** Builds the frame for the current phase and writes the diff, then parks the cursor. */
  #paint(): void {
    if (this.#phase === 'ended') return;
    const { rows, cols } = this.#renderer;
    const bottom = this.#phase === 'prompt' && this.#prompt
      ? this.#promptLines(this.#prompt, cols)
      : this.#boxLines(cols);
    const top = [...this.#transcript];
    if (this.#phase === 'working' && this.#spinner) {
      const s = this.#spinner;
      const secs = Math.floor((this.#now() - s.start) / 1000);
      const glyph = GLYPH_CYCLE[s.frame % GLYPH_CYCLE.length];
      top.push(
        [{ text: glyph, style: ORANGE }, { text: ` ${s.verb}… `, style: ORANGE }, {
          text: `(${secs}s · esc to interrupt)`,
          style: GREY,
        }],
        plain(`  ⎿  ${s.tip}`, GREY),
        [],
      );
    }
    const height = Math.max(0, rows - bottom.length);
    const shown = top.slice(Math.max(0, top.length - height));
    while (shown.length < height) shown.push([]);
    const frame = [...shown, ...bottom].slice(-rows);
    let out = this.#renderer.render(frame);
    if (this.#prompt && this.#phase === 'prompt') {
      this.#prompt.top = Math.max(0, rows - bottom.length);
      out += `\x1b[${rows};1H`;
    } else {
      out += `\x1b[${rows};1H\x1b[${Math.max(1, rows - 2)};${
        Math.min(cols, 3 + [...this.#input].length)
      }H`;
    }
    if (out) this.options.write(out);
  }

  /** The input box and its footer (idle and working). */
  #boxLines(cols: number): Line[] {
    const rule = plain('─'.repeat(cols), GREY);
    const working = this.#phase === 'working';
    const hint = working ? 'esc to interrupt' : '? for shortcuts';
    const footer = this.options.mode === 'default' ? `  ${hint}` : `  ⏸ manual mode on · ${hint}`;
    return [rule, [{ text: '❯ ' }, { text: this.#input }], rule, plain(footer, GREY)];
  }

  /** The permission dialog, Claude Code's wording for a Bash command. */
  #promptLines(p: { tool: Tool; choice: number }, cols: number): Line[] {
    const first = p.tool.cmd.split(' ')[0];
    const options = [
      'Yes',
      `Yes, and don't ask again for ${first} commands in ${PROJECT_DIR}`,
      'No',
    ];
    return [
      plain('─'.repeat(cols), ACCENT),
      plain(' Bash command', BOLD),
      [],
      plain(`   ${p.tool.cmd}`),
      plain(`   ${p.tool.description}`, GREY),
      [],
      plain(' Do you want to proceed?'),
      ...options.map((o, i): Line =>
        i === p.choice
          ? [{ text: ' ❯ ', style: ACCENT }, { text: `${i + 1}. ${o}`, style: ACCENT }]
          : [{ text: '   ' }, { text: `${i + 1}. `, style: GREY }, { text: o }]
      ),
      [],
      plain(' Esc to cancel · Tab to amend', GREY),
    ];
  }
}
