/**
 * `agentwatch report working|tool|blocked|done|idle` and `agentwatch notify`: called by an
 * agent's hooks (Claude Code's `--settings` hooks, runtime/integrations/claude-code.ts, which
 * also says what each hook event means). They only forward: they find their session from the
 * environment the session set (`AGENTWATCH_SOCKET`), send one line on its control socket and
 * exit 0 within {@link HOOK_BUDGET_MS} — always 0, even with no session, no socket or garbage
 * input, so that a hook never disturbs the agent. Their help is in hook-commands.ts.
 *
 * Loaded on its own by main.ts (no manifests, no PTY, no regex engine), to start fast.
 * `report tool` (PreToolUse) and `notify` (Notification) read the hook's JSON payload on
 * stdin; `report tool` sends the state {@link reportFromHook} reads from it, `notify` the
 * payload itself (the session reads it, and logs a malformed one).
 */
import { createConnection } from 'node:net';
import { ownSocket } from '../runtime/paths.ts';
import { reportFromHook } from '../runtime/integrations/claude-code.ts';

/**
 * When this hook process started, ms since the epoch: about when the agent fired the hook.
 * Sent with the report, because a process can take a while to report (Node's start-up on a
 * loaded machine) and a late report must not be taken for news.
 */
const FIRED_AT = Math.round(performance.timeOrigin);

/**
 * The whole hook call's budget, ms: stdin, connect, write, answer. Claude Code does not wait
 * for these hooks (they are `async`, integrations/claude-code.ts), so this bounds only how long
 * a process lingers. It was 200 ms while Claude Code waited (80 ms for stdin), and at load
 * 30-40 on 2 cores test/hooks.test.ts saw such hooks read no stdin at all, given at once: an
 * AskUserQuestion's PreToolUse payload went unread and its menu was reported as working.
 */
export const HOOK_BUDGET_MS = 2000;
/** The most a hook waits for its payload on stdin, ms (Claude Code writes it at once). */
const STDIN_WAIT_MS = 1000;
/** The most of the payload read from stdin, bytes. */
const MAX_PAYLOAD = 256 * 1024;
/**
 * The most of a Notification payload passed on, characters (real ones are a few hundred
 * bytes): JSON escaping can make a character 6 bytes (`\u0001`), and the control socket takes
 * lines of at most 1 MB, beyond which the session could not even log the payload as malformed.
 */
const MAX_NOTIFY_PAYLOAD = 64 * 1024;

/** Reads stdin until EOF, `max` bytes or `ms`; '' when stdin is a TTY or absent. */
function readStdin(ms: number, max = MAX_PAYLOAD): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve('');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      process.stdin.removeAllListeners();
      process.stdin.pause();
      process.stdin.unref?.();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(done, ms);
    process.stdin.on('data', (d: Buffer) => {
      chunks.push(d);
      size += d.length;
      if (size >= max) done();
    });
    process.stdin.on('end', done);
    process.stdin.on('error', done);
  });
}

/** Sends one request line and waits (briefly) for the answer line. Never rejects. */
function sendLine(path: string, obj: unknown, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const c = createConnection(path);
    const done = () => {
      clearTimeout(timer);
      c.destroy();
      resolve();
    };
    const timer = setTimeout(done, ms);
    c.on('error', done);
    c.on('connect', () => c.write(JSON.stringify(obj) + '\n'));
    c.on('data', done);
  });
}

const REPORTS = new Set(['working', 'tool', 'blocked', 'done', 'idle']);

/** Runs `report ...` or `notify`; resolves to the exit code, which is always 0. */
export async function hookMain(argv: string[]): Promise<number> {
  const started = Date.now();
  const left = () => Math.max(10, HOOK_BUDGET_MS - 20 - (Date.now() - started));
  try {
    // Only a socket of ours in a private folder of ours hears what the agent does.
    const given = process.env.AGENTWATCH_SOCKET;
    const socket = given && ownSocket(given, true) ? given : undefined;
    const [cmd, what] = argv;
    if (cmd === 'report') {
      if (!what || !REPORTS.has(what)) {
        process.stderr.write(`agentwatch report: expected one of ${[...REPORTS].join(', ')}\n`);
        return 0;
      }
      let state = what === 'done' ? 'idle' : what;
      let source = `report ${what}`;
      if (what === 'tool') {
        const payload = await readStdin(Math.min(STDIN_WAIT_MS, left()));
        const reading = reportFromHook('PreToolUse', payload);
        if (reading?.ok) ({ state, source } = reading);
      }
      if (socket) {
        await sendLine(socket, { op: 'report', state, detail: source, firedAt: FIRED_AT }, left());
      }
    } else if (cmd === 'notify') {
      const payload = await readStdin(Math.min(STDIN_WAIT_MS, left()));
      if (socket) {
        await sendLine(
          socket,
          { op: 'notify', payload: payload.slice(0, MAX_NOTIFY_PAYLOAD), firedAt: FIRED_AT },
          left(),
        );
      }
    }
  } catch {
    // a hook never fails
  }
  return 0;
}
