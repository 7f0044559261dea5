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
 */

/** The agent's true state, as the truth file records it. */
export type TrueState = 'idle' | 'working' | 'blocked' | 'exited';

/** A small seeded PRNG (mulberry32): uniform numbers in [0, 1). */
export class Rng {
  #a: number;

  constructor(seed: number) {
    this.#a = (Math.floor(seed) ^ 0x9e3779b9) >>> 0;
  }

  next(): number {
    this.#a = (this.#a + 0x6d2b79f5) >>> 0;
    let t = this.#a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A uniform number in [lo, hi). */
  between(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
}

/** Probability that a task's command needs a permission prompt (25 of 30 in the seed's run). */
export const PROMPT_PROBABILITY = 0.83;
/** Probability that a reply ends with the agent's own question ("Would you like me to ...?"). */
export const QUESTION_PROBABILITY = 0.35;
/** Silent tool calls last this long, ms (DESIGN.md section 1). */
export const SILENT_TOOL_MS: readonly [number, number] = [500, 6000];
/** Spinner frame period, ms (10 Hz). */
export const SPINNER_MS = 100;
/** The working directory the prompt names. */
export const PROJECT_DIR = '/home/dev/proj';

/** Spinner glyphs, in Claude Code's order; the animation runs forth and back. */
export const SPINNER_GLYPHS = ['·', '✢', '✳', '✶', '✻', '✽'] as const;
const GLYPH_CYCLE = [...SPINNER_GLYPHS, ...[...SPINNER_GLYPHS].reverse().slice(1, -1)];

const VERBS = ['Churning', 'Doing', 'Calculating', 'Frosting', 'Brewing', 'Cogitating', 'Baking'];
const PAST: Record<string, string> = {
  Churning: 'Churned',
  Doing: 'Did',
  Calculating: 'Calculated',
  Frosting: 'Frosted',
  Brewing: 'Brewed',
  Cogitating: 'Cogitated',
  Baking: 'Baked',
};
const TIPS = [
  'Tip: Use Plan Mode to prepare for a complex request before making changes.',
  'Tip: Press shift+tab to cycle permission modes.',
  'Tip: Run /init to create a CLAUDE.md file with instructions for Claude.',
];

/** A shell command the agent wants to run, and what it says around it. */
export interface Tool {
  cmd: string;
  /** The grey line under the command in the prompt. */
  description: string;
  intro: string;
  result: string;
  done: string;
}

const TOOLS: readonly Tool[] = [
  {
    cmd: 'touch hello.txt',
    description: 'Create empty hello.txt file',
    intro: "I'll create the file.",
    result: '(No content)',
    done: 'Created hello.txt in the project directory.',
  },
  {
    cmd: 'mkdir -p build/out',
    description: 'Create the build output directory',
    intro: "I'll set up the build directory first.",
    result: '(No content)',
    done: 'The build directory is ready at build/out.',
  },
  {
    cmd: 'rm -f build.log',
    description: 'Remove the stale build log',
    intro: 'The old build log is stale; I will remove it.',
    result: '(No content)',
    done: 'Removed build.log.',
  },
  {
    cmd: 'npm test',
    description: 'Run the test suite',
    intro: 'Let me run the tests.',
    result: '12 passing (340ms)',
    done: 'All 12 tests pass.',
  },
  {
    cmd: 'git add greet.py',
    description: 'Stage the change to greet.py',
    intro: "I'll stage the change.",
    result: '(No content)',
    done: 'Staged greet.py.',
  },
  {
    cmd: 'sed -i s/hello/hi/ greet.py',
    description: 'Update the greeting in greet.py',
    intro: "I'll update the greeting.",
    result: '(No content)',
    done: 'I fixed the off-by-one error in the loop bounds, so the last element is now processed.',
  },
];

/** Read-only calls run unasked (as `ls`/`cat` do in manual mode): silent, then a summary. */
const READS = [
  { label: 'Read(greet.py)', result: 'Read 24 lines' },
  { label: 'Bash(ls src)', result: 'greet.py  util.py' },
  { label: 'Search(pattern: "TODO")', result: 'Found 2 files' },
];

const QUESTIONS = [
  'Would you like me to add a regression test?',
  'Would you like me to run the full test suite as well?',
  'Would you like me to update the README too?',
];

// 24-bit SGR colours as Claude Code's dark theme writes them.
const ORANGE = '38;2;215;119;87';
const GREY = '38;2;153;153;153';
const WHITE = '38;2;255;255;255';
const ACCENT = '38;2;177;185;249';
const GREEN = '38;2;78;186;101';
const RED = '38;2;255;107;128';
const BOLD = '1';

/** Everything random about one task, drawn up front (so a seed's runs can be inspected). */
export interface TaskPlan {
  verb: string;
  tip: string;
  /** Spinner time before the first words, ms. */
  thinkMs: number;
  tool: Tool;
  /** A read-only call first (runs unasked): silent for `silentMs`, then `thinkMs` spinner. */
  read: { label: string; result: string; silentMs: number; thinkMs: number } | null;
  /** The command needs a permission prompt. */
  asks: boolean;
  /** The command's silent run, ms. */
  toolMs: number;
  /** Spinner time before the reply, ms. */
  afterMs: number;
  /** The agent's own question at the end of the reply, '' for none. */
  question: string;
}

/** Draws the next task's plan from `rng` (a fixed number of draws per task). */
export function planTask(rng: Rng): TaskPlan {
  const verb = rng.pick(VERBS);
  const tip = rng.pick(TIPS);
  const thinkMs = rng.between(800, 3000);
  const tool = rng.pick(TOOLS);
  const hasRead = rng.chance(0.5);
  const read = {
    ...rng.pick(READS),
    silentMs: rng.between(...SILENT_TOOL_MS),
    thinkMs: rng.between(300, 1500),
  };
  const asks = rng.chance(PROMPT_PROBABILITY);
  const toolMs = rng.between(...SILENT_TOOL_MS);
  const afterMs = rng.between(400, 1500);
  const hasQuestion = rng.chance(QUESTION_PROBABILITY);
  const question = rng.pick(QUESTIONS);
  return {
    verb,
    tip,
    thinkMs,
    tool,
    read: hasRead ? read : null,
    asks,
    toolMs,
    afterMs,
    question: hasQuestion ? question : '',
  };
}

/** A run of text in one style (SGR parameters, '' for the default). */
export interface Span {
  text: string;
  style?: string;
}
/** One screen row. */
export type Line = Span[];

const plain = (text: string, style?: string): Line => [{ text, style }];

/**
 * Turns frames into Claude-style cell-diff bytes: only rows that changed are written, each
 * reached from `ESC[H` with `\r` + `ESC[nB`, erased with `ESC[2K` and its words placed with
 * `ESC[nG`. Widths: every character used here is one cell wide (Unicode 11).
 */
export class DiffRenderer {
  /** What each row shows now, as a key ('' = blank). */
  #rows: string[] = [];

  constructor(public rows: number, public cols: number) {}

  /** Forgets what is on screen: the next render writes every row after `ESC[2J`. */
  invalidate(): void {
    this.#rows = [];
  }

  /** Marks rows `from`..end as blank (after the caller erased them with `ESC[J`). */
  blankFrom(from: number): void {
    for (let y = from; y < this.rows; y++) this.#rows[y] = '';
  }

  /** The bytes that turn the last frame into `frame` (length = rows). */
  render(frame: Line[]): string {
    const full = this.#rows.length === 0;
    let out = full ? '\x1b[2J\x1b[H' : '';
    let at = -1; // the row the cursor is on, -1 = unknown (go home first)
    for (let y = 0; y < this.rows; y++) {
      const line = frame[y] ?? [];
      const key = rowKey(line);
      if (!full && this.#rows[y] === key) continue;
      if (full && key === '') {
        this.#rows[y] = key;
        continue;
      }
      if (at < 0) {
        if (!full) out += '\x1b[H';
        at = 0;
      }
      if (y > at) out += `\r\x1b[${y - at}B`;
      else out += '\r';
      at = y;
      out += (this.#rows[y] ? '\x1b[2K' : '') + rowBytes(line, this.cols);
      this.#rows[y] = key;
    }
    return out;
  }
}

function rowKey(line: Line): string {
  let k = '';
  for (const s of line) if (s.text) k += `${s.style ?? ''}\u0001${s.text}\u0002`;
  return k.replace(/ +\u0002$/, '\u0002');
}

/** One row's bytes: SGR per span, each word placed with `ESC[nG`, cut at `cols`. */
function rowBytes(line: Line, cols: number): string {
  let out = '';
  let col = 0;
  let move = false;
  let style = '';
  for (const span of line) {
    for (const ch of span.text) {
      if (col >= cols) break;
      if (ch === ' ') {
        col++;
        move = true;
        continue;
      }
      if ((span.style ?? '') !== style) {
        style = span.style ?? '';
        out += `\x1b[0m${style ? `\x1b[${style}m` : ''}`;
      }
      if (move) out += `\x1b[${col + 1}G`;
      move = false;
      out += ch;
      col++;
    }
  }
  return style ? out + '\x1b[0m' : out;
}

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
      // Stay idle a moment, so the last turn's end can be seen, then exit.
      try {
        await this.#sleep(1500);
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
