/**
 * What agentwatch's Claude Code hooks cost the person's agent: real Claude Code 2.1.332
 * (node_modules/.bin/claude) under the built executable (`dist/agentwatch run -- claude
 * --permission-mode manual`, in a real PTY, a throwaway HOME and AGENTWATCH_DIR) against the
 * fake Anthropic server on 127.0.0.1, with agentwatch's hooks and with `run --no-hooks`,
 * alternated, N rounds of `task-bash` each (a Bash call Claude asks permission for, approved,
 * then a final answer). Per round, ms:
 * - `prompt`: the Enter typed to the model's request arriving (UserPromptSubmit hooks run
 *   between them);
 * - `dialog`: the server starting its tool_use reply to "Do you want to proceed?" on Claude's
 *   screen (PreToolUse and PermissionRequest hooks run between them);
 * - `idle`: the server starting its final answer to Claude's screen reading idle by the claude
 *   manifest's rules, its in-band OSC 7501 state included (Stop hooks run between them:
 *   Claude Code keeps OSC 7501 at working and shows "running Stop hook" meanwhile).
 * Median and max per mode are printed, with the machine's load average. BENCH_BEFORE=EXE adds
 * a third mode, `before`: the same with another build's executable and its hooks (to compare
 * two builds at the same load); BENCH_MODES=hooks,before picks modes.
 *
 * Run: `npm run build && node --import tsx bench/claude-hooks.ts [N]` (N defaults to 5).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate } from '../src/detect/evaluate.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { CLAUDE_BIN, claudeArgs, makeClaudeHome } from '../test/support/claude-home.ts';
import { startFakeAnthropic } from '../test/support/fake-anthropic.ts';
import { startPty } from '../test/support/pty-driver.ts';
import { sleep } from '../test/support/until.ts';

const ROOT = join(import.meta.dirname, '..');
const EXE = join(ROOT, 'dist', 'agentwatch');
const N = Number(process.argv[2] ?? 5);
const BEFORE = process.env.BENCH_BEFORE;
const MODES = (process.env.BENCH_MODES ?? (BEFORE ? 'before,hooks,no-hooks' : 'hooks,no-hooks'))
  .split(',');
const claude = loadBundledManifests().get('claude')!;

if (!existsSync(EXE)) throw new Error(`${EXE} is missing: npm run build`);
if (!existsSync(CLAUDE_BIN)) throw new Error(`${CLAUDE_BIN} is missing: npm ci`);

/** When the server started each reply of a rule (ms since the epoch), by rule name. */
const replied = new Map<string, number>();
const server = await startFakeAnthropic({
  rules: [
    {
      name: 'bench/tool',
      match: (c) => c.task === 'task-bench' && c.toolResults.length === 0,
      reply: () => {
        replied.set('tool', Date.now());
        return {
          content: [{
            type: 'tool_use',
            name: 'Bash',
            input: { command: `touch f${Date.now()}.txt`, description: 'Touch' },
          }],
        };
      },
    },
    {
      name: 'bench/done',
      match: (c) => c.task === 'task-bench' && c.toolResults.length > 0,
      reply: () => {
        replied.set('done', Date.now());
        return { content: [{ type: 'text', text: 'Bench round over.' }] };
      },
    },
  ],
});

/** Polls `ok` every 5 ms; resolves with when it first held (ms since the epoch). */
async function whenTrue(what: string, ok: () => boolean, ms = 60_000): Promise<number> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await sleep(5);
  }
  return Date.now();
}

type Row = { prompt: number; dialog: number; idle: number };
const results: Record<string, Row[]> = Object.fromEntries(MODES.map((m) => [m, []]));

async function session(mode: string, round: number): Promise<Row> {
  const home = makeClaudeHome({ baseUrl: server.url });
  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-hooks-'));
  const term = new Terminal(32, 120);
  const pty = await startPty({
    command: mode === 'before' ? BEFORE! : EXE,
    args: [
      'run',
      ...(mode === 'no-hooks' ? ['--no-hooks'] : []),
      '--',
      CLAUDE_BIN,
      ...claudeArgs(),
    ],
    cwd: home.project,
    env: { ...home.env, AGENTWATCH_DIR: dir },
  });
  let seen = 0;
  const feed = () => {
    for (; seen < pty.output.length; seen++) term.write(pty.output[seen].data);
  };
  const state = () => {
    feed();
    return evaluate(term.snapshot(), claude).state;
  };
  try {
    await whenTrue(
      'the input box',
      () => state() === 'idle' && /manual mode on/.test(term.screenText()),
    );
    const requests = server.messages().length;
    await pty.type(`task-bench ${mode} ${round}`);
    await sleep(300);
    pty.send('\r');
    const entered = Date.now();
    await whenTrue(
      'the request',
      () => server.messages().slice(requests).some((m) => m.rule === 'bench/tool'),
    );
    const askedAt = server.messages().slice(requests).find((m) => m.rule === 'bench/tool')!.epochMs;
    const dialog = await whenTrue('the dialog', () => {
      feed();
      return /Do you want to proceed\?/.test(term.screenText());
    });
    await sleep(500); // Claude Code drops keys typed as its dialog shows
    pty.send('\r'); // Yes (the first option is selected)
    await whenTrue('the final answer', () => replied.has('done') && replied.get('done')! > dialog);
    const idle = await whenTrue(
      'idle',
      () => state() === 'idle' && /Bench round over/.test(term.screenText()),
    );
    const row = {
      prompt: askedAt - entered,
      dialog: dialog - replied.get('tool')!,
      idle: idle - replied.get('done')!,
    };
    return row;
  } catch (e) {
    feed();
    throw new Error(
      `${(e as Error).message} ${
        JSON.stringify(evaluate(term.snapshot(), claude))
      }\n${term.screenText()}`,
    );
  } finally {
    await pty.close();
    home.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

const loads: number[] = [];
for (let round = 1; round <= N; round++) {
  for (const mode of MODES) {
    loads.push(loadavg()[0]);
    const row = await session(mode, round);
    results[mode].push(row);
    console.log(`${mode.padEnd(9)} round ${round}: ${JSON.stringify(row)} load ${loadavg()[0]}`);
  }
}
await server.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `\nload average during the runs: ${Math.min(...loads).toFixed(1)}-${
    Math.max(...loads).toFixed(1)
  }; ms, median (max) of ${N}`,
);
for (const mode of MODES) {
  const rows = results[mode];
  const col = (k: keyof Row) =>
    `${median(rows.map((r) => r[k]))} (${Math.max(...rows.map((r) => r[k]))})`;
  console.log(
    `${mode.padEnd(9)} prompt->request ${col('prompt')}  tool_use->dialog ${col('dialog')}  ` +
      `answer->idle ${col('idle')}`,
  );
}
