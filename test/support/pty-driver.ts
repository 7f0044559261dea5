/**
 * Runs a command in a real PTY (node-pty), renders its output in a terminal emulator, answers
 * the terminal queries the program sends (DSR `ESC[6n`, DA, ...), and lets a test wait for
 * screen text and type keys like a person.
 *
 * Emulator: our own `src/vt/terminal.ts` (the product's emulator), which also answers the
 * queries. `@xterm/headless` (dev dependency, Unicode 11 widths) can be chosen instead for
 * differential checks: option `emulator: 'xterm'` or env `AGENTWATCH_TEST_EMULATOR=xterm`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type IPty, spawn } from 'node-pty';
import { Terminal } from '../../src/vt/terminal.ts';
import { sleep } from './until.ts';

// Both xterm packages are CommonJS bundles; require() loads them the same way under ESM and
// under uvu's `-r tsx` (which compiles tests to CommonJS, where a default import is undefined).
const require = createRequire(import.meta.url);
const { Terminal: XTerm } = require('@xterm/headless') as typeof import('@xterm/headless');
const { Unicode11Addon } = require(
  '@xterm/addon-unicode11',
) as typeof import('@xterm/addon-unicode11');

/** The little the driver needs of an emulator. */
export interface Emulator {
  /** `vt` (src/vt/terminal.ts) or `xterm` (@xterm/headless). */
  readonly name: 'vt' | 'xterm';
  /** Feeds output bytes; resolves once they are on the screen. */
  write(data: Uint8Array): Promise<void>;
  /** Visible rows, trailing blanks of each row trimmed, joined with `\n`. */
  screenText(): string;
  /** Bytes the terminal must send back to the program (query answers), or null. */
  takeReplies(): Uint8Array | null;
  resize(cols: number, rows: number): void;
  /** kitty keyboard flags the program pushed (0 = legacy keys). */
  keyboardFlags(): number;
}

class XtermEmulator implements Emulator {
  readonly name = 'xterm' as const;
  private term: InstanceType<typeof XTerm>;
  private replies: string[] = [];

  constructor(rows: number, cols: number) {
    this.term = new XTerm({
      rows,
      cols,
      allowProposedApi: true,
      scrollback: 1000,
    });
    this.term.loadAddon(new Unicode11Addon());
    this.term.unicode.activeVersion = '11';
    // xterm answers DSR (ESC[6n), DA and DA2 through onData.
    this.term.onData((d) => this.replies.push(d));
  }

  write(data: Uint8Array): Promise<void> {
    return new Promise((done) => this.term.write(data, done));
  }

  screenText(): string {
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y++) {
      lines.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '');
    }
    return lines.join('\n');
  }

  takeReplies(): Uint8Array | null {
    if (this.replies.length === 0) return null;
    const out = Buffer.from(this.replies.join(''), 'utf8');
    this.replies = [];
    return out;
  }

  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
  }

  keyboardFlags(): number {
    return 0; // xterm.js does not speak the kitty keyboard protocol
  }
}

class VtEmulator implements Emulator {
  readonly name = 'vt' as const;
  private term: Terminal;
  constructor(rows: number, cols: number) {
    this.term = new Terminal(rows, cols);
  }
  write(data: Uint8Array): Promise<void> {
    this.term.write(data);
    return Promise.resolve();
  }
  screenText(): string {
    return this.term.screenText();
  }
  takeReplies(): Uint8Array | null {
    return this.term.takeReplies();
  }
  resize(cols: number, rows: number): void {
    this.term.resize(rows, cols);
  }
  keyboardFlags(): number {
    return this.term.keyboardFlags;
  }
}

/**
 * Makes an emulator of `rows` x `cols`: `vt` (default; our src/vt/terminal.ts) or `xterm`
 * (@xterm/headless, for differential checks). `auto` reads env AGENTWATCH_TEST_EMULATOR
 * (`vt` or `xterm`) and defaults to `vt`.
 */
export function createEmulator(
  rows: number,
  cols: number,
  kind: 'auto' | 'vt' | 'xterm' = 'auto',
): Emulator {
  const want = kind !== 'auto' ? kind : (process.env.AGENTWATCH_TEST_EMULATOR ?? 'vt');
  return want === 'xterm' ? new XtermEmulator(rows, cols) : new VtEmulator(rows, cols);
}

/** Options of {@link startPty}. */
export interface PtyDriverOptions {
  command: string;
  args?: string[];
  cwd: string;
  /** The child's whole environment (not merged with process.env). */
  env: Record<string, string>;
  /** Default 32. */
  rows?: number;
  /** Default 120. */
  cols?: number;
  /** Which emulator; see {@link createEmulator}. */
  emulator?: 'auto' | 'vt' | 'xterm';
  /**
   * Extra answers: called with every output chunk; what it returns is written to the program
   * before the emulator's own replies for that chunk (e.g. to answer a query the emulator
   * does not know).
   */
  answer?: (data: Uint8Array) => string | Uint8Array | undefined;
  /** Delay between typed keys, ms, picked uniformly from [min, max]. Default [35, 75]. */
  keyDelayMs?: [number, number];
}

/** One chunk of PTY output. */
export interface OutputChunk {
  /** ms since spawn. */
  t: number;
  data: Uint8Array;
}

/** Options of {@link PtyDriver.waitForScreen}. */
export interface WaitOptions {
  /** Also require that this does not match. */
  not?: RegExp;
  /** Poll period, ms. Default 50. */
  pollMs?: number;
}

/** A program running in a PTY; see {@link startPty}. */
export interface PtyDriver {
  readonly pid: number;
  /** Which emulator renders the screen. */
  readonly emulator: 'vt' | 'xterm';
  /** ms since the epoch at spawn. */
  readonly startedAt: number;
  /** Every output chunk so far (live array). */
  readonly output: OutputChunk[];
  /** Everything written to the program so far: keys and query replies (live array). */
  readonly input: Array<OutputChunk & { why: 'key' | 'reply' }>;
  /** Set once the process exited. */
  readonly exit: { exitCode: number; signal?: number } | undefined;
  /** Resolves when the process exits. */
  readonly exited: Promise<{ exitCode: number; signal?: number }>;
  /** The current screen text (rows joined with `\n`, trailing blanks trimmed per row). */
  screen(): string;
  /**
   * kitty keyboard flags the program pushed (0 = legacy keys). Plain characters, Enter (`\r`)
   * and Tab are the same either way; Esc is `ESC[27u` when flags are set.
   */
  keyboardFlags(): number;
  /**
   * Resolves with the screen once `pattern` matches it (and `opts.not` does not), polling every
   * 50 ms. Rejects after `timeoutMs` ms, or when the process exits first, with an Error whose
   * message holds the pattern, the elapsed time and the last screen.
   */
  waitForScreen(pattern: RegExp, timeoutMs: number, opts?: WaitOptions): Promise<string>;
  /** Types `text` one key (code point) at a time with the key delay; `\r` is Enter. */
  type(text: string): Promise<void>;
  /** Writes raw bytes or a string at once (e.g. `\x1b[Z` for shift+tab). */
  send(data: string | Uint8Array): void;
  resize(cols: number, rows: number): void;
  /**
   * Closes the PTY's master, as a terminal window that closes does: the program reads and
   * writes EIO and its session gets SIGHUP (node-pty's `destroy`). The exit is awaited with
   * {@link exited}.
   */
  hangUp(): void;
  /**
   * Kills the process and all its descendants (SIGTERM, then SIGKILL after `graceMs`,
   * default 500 ms) and waits for the exit. Safe to call twice; never rejects.
   */
  close(graceMs?: number): Promise<void>;
}

/** Pids of all descendants of `pid` (children first-level first), from /proc or `ps`. */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  const add = (p: number, pp: number) => {
    const list = children.get(pp) ?? [];
    list.push(p);
    children.set(pp, list);
  };
  if (existsSync('/proc/self/stat')) {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        add(Number(name), Number(fields[1]));
      } catch {
        // the process went away while we looked
      }
    }
  } else {
    try {
      const out = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' });
      for (const line of out.split('\n')) {
        const [p, pp] = line.trim().split(/\s+/).map(Number);
        if (p > 0) add(p, pp);
      }
    } catch {
      // no ps: only the process group kill is left
    }
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const c of children.get(queue.shift()!) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

function signalAll(pids: number[], signal: NodeJS.Signals) {
  for (const p of pids) {
    try {
      process.kill(p, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Spawns `command` in a PTY of `rows` x `cols` (default 32 x 120) and starts rendering its
 * output. Query answers from the emulator are written back to the program at once.
 *
 * @throws if the command cannot be spawned.
 */
export function startPty(options: PtyDriverOptions): Promise<PtyDriver> {
  const rows = options.rows ?? 32;
  const cols = options.cols ?? 120;
  const [minDelay, maxDelay] = options.keyDelayMs ?? [35, 75];
  const emu = createEmulator(rows, cols, options.emulator);
  const startedAt = Date.now();
  const proc: IPty = spawn(options.command, options.args ?? [], {
    name: options.env.TERM ?? 'xterm-256color',
    cols,
    rows,
    cwd: options.cwd,
    env: options.env,
    encoding: null,
  });
  const output: OutputChunk[] = [];
  const input: Array<OutputChunk & { why: 'key' | 'reply' }> = [];
  const put = (data: string | Uint8Array, why: 'key' | 'reply') => {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
    input.push({ t: Date.now() - startedAt, data: bytes, why });
    proc.write(bytes);
  };
  let exit: { exitCode: number; signal?: number } | undefined;
  const exited = new Promise<{ exitCode: number; signal?: number }>((res) => {
    proc.onExit((e) => {
      exit = e;
      res(e);
    });
  });

  // Output is fed to the emulator in order; a chain keeps async writes (xterm) ordered.
  // An emulator error is kept and reported by waitForScreen() rather than breaking the chain.
  let chain = Promise.resolve();
  let emuError: Error | undefined;
  proc.onData((d: string | Buffer) => {
    const data = typeof d === 'string' ? Buffer.from(d, 'utf8') : new Uint8Array(d);
    output.push({ t: Date.now() - startedAt, data });
    chain = chain.then(() => emu.write(data)).then(() => {
      const extra = options.answer?.(data);
      if (extra !== undefined && extra.length > 0 && !exit) put(extra, 'reply');
      const reply = emu.takeReplies();
      if (reply && !exit) put(reply, 'reply');
    }).catch((err: Error) => {
      emuError ??= err;
    });
  });

  let closed = false;
  const driver: PtyDriver = {
    pid: proc.pid,
    emulator: emu.name,
    startedAt,
    output,
    input,
    get exit() {
      return exit;
    },
    exited,
    screen: () => emu.screenText(),
    keyboardFlags: () => emu.keyboardFlags(),
    async waitForScreen(pattern, timeoutMs, opts = {}) {
      const t0 = Date.now();
      for (;;) {
        await chain;
        if (emuError) {
          throw new Error(
            `waitForScreen(${pattern}): the ${emu.name} emulator failed: ${emuError.stack}`,
          );
        }
        const s = emu.screenText();
        if (pattern.test(s) && !(opts.not && opts.not.test(s))) return s;
        const waited = Date.now() - t0;
        if (exit || waited > timeoutMs) {
          const why = exit
            ? `the process exited (code ${exit.exitCode}, signal ${exit.signal ?? 0})`
            : `timed out after ${waited} ms`;
          throw new Error(
            `waitForScreen(${pattern}${opts.not ? `, not ${opts.not}` : ''}): ${why}\n` +
              `--- last screen (${emu.name}) ---\n${s}\n--- end of screen ---`,
          );
        }
        await sleep(opts.pollMs ?? 50);
      }
    },
    async type(text) {
      for (const ch of text) {
        if (exit) throw new Error(`type(): the process exited (code ${exit.exitCode})`);
        put(ch, 'key');
        await sleep(minDelay + Math.random() * (maxDelay - minDelay));
      }
    },
    send(data) {
      put(data, 'key');
    },
    resize(c, r) {
      proc.resize(c, r);
      emu.resize(c, r);
    },
    hangUp() {
      (proc as unknown as { destroy(): void }).destroy(); // node-pty 1.1 UnixTerminal.destroy, untyped
    },
    async close(graceMs = 500) {
      if (closed) {
        await exited;
        return;
      }
      closed = true;
      if (!exit) {
        const tree = [proc.pid, ...descendantsOf(proc.pid)];
        signalAll(tree, 'SIGTERM');
        await Promise.race([exited, sleep(graceMs)]);
        // Children of the tree that were reparented cannot be found by ppid any more: kill the
        // list taken before, plus anything still under the pid, plus the process group.
        signalAll([...tree, ...descendantsOf(proc.pid)], 'SIGKILL');
        try {
          process.kill(-proc.pid, 'SIGKILL');
        } catch {
          // group already gone
        }
        await Promise.race([exited, sleep(2000)]);
      }
      await chain;
    },
  };
  return Promise.resolve(driver);
}
