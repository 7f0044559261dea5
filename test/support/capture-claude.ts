/**
 * Captures real Claude Code 2.1.332 screens with `agentwatch record`, for fixtures/claude-code.
 * Each case starts a fake Anthropic server on 127.0.0.1 (test/support/fake-anthropic.ts) with
 * the case's script, a throwaway HOME (test/support/claude-home.ts) set up for the case, and
 * `agentwatch record --out OUT/marked --name CASE --agent claude --no-hooks -- claude ...`
 * in a real 32x120 PTY. The driver types like a person, waits for each screen, and marks the
 * truth it knows (what it typed, what the server answered) with `agentwatch mark`'s socket
 * request. Then every mark is cut with `agentwatch cut --mark N --out OUT/claude.STATE.CASE[-k].raw`.
 *
 * Run: `node --import tsx test/support/capture-claude.ts --capture-claude OUT [CASE...]`
 * (all cases when none is named). `--explore CASE` prints the screen every second instead.
 * Importing this module (uvu loads every file under test/) runs nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ScriptRule, startFakeAnthropic, type TurnContext } from './fake-anthropic.ts';
import { CLAUDE_BIN, type ClaudeHomeOptions, makeClaudeHome } from './claude-home.ts';
import { type PtyDriver, startPty } from './pty-driver.ts';
import { request } from '../../src/runtime/control-client.ts';
import { findSession } from '../../src/runtime/session-directory.ts';
import { agentwatchArgv } from './agentwatch-e2e.ts';
import { readRecording } from '../../src/runtime/recording.ts';
import { sleep } from './until.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MCP_SERVER = join(ROOT, 'test', 'support', 'tiny-mcp-server.ts');

/** Print each marked screen (the command line sets it; tests stay quiet). */
let verbose = false;

/** What a case's steps can do. */
export interface CaseDriver {
  pty: PtyDriver;
  /** Waits (up to 60 s) for the screen to match, then `settleMs` more (default 800). */
  screen(re: RegExp, opts?: { not?: RegExp; settleMs?: number }): Promise<string>;
  /** Types text one key at a time (`\r` = Enter). */
  type(text: string): Promise<void>;
  /** Sends raw keys at once. */
  keys(data: string): void;
  /** Appends the truth for this moment; `suffix` names its fixture (claude.STATE.CASE.SUFFIX.raw). */
  mark(state: 'blocked' | 'working' | 'idle', why: string, suffix?: string): Promise<void>;
  /** The project folder and the HOME. */
  project: string;
  home: string;
}

/** One capture. */
export interface CaptureCase {
  name: string;
  home?: (root: { mcpConfig: string }) => ClaudeHomeOptions;
  args?: (ctx: { project: string; mcpConfig: string }) => string[];
  rules?: ScriptRule[];
  /** PTY size in cells; default 32x120. */
  size?: { rows: number; cols: number };
  /** Runs on the project folder before Claude Code starts (e.g. `git init`). */
  setup?: (project: string) => void;
  steps(d: CaseDriver): Promise<void>;
}

const text = (t: string) => ({ type: 'text' as const, text: t });
const tool = (name: string, input: Record<string, unknown>) => ({
  type: 'tool_use' as const,
  name,
  input,
});
const isTask = (task: string) => (c: TurnContext) => c.task === task;
const answered = (c: TurnContext) => c.toolResults.length > 0;

/** Rule pair: first a tool call, then a closing text once its result came back. */
function toolTask(
  task: string,
  call: (c: TurnContext) => ReturnType<typeof tool>,
  done = 'Done.',
): ScriptRule[] {
  return [
    {
      name: `${task}/done`,
      match: (c) => isTask(task)(c) && answered(c),
      reply: () => ({ content: [text(done)] }),
    },
    {
      name: `${task}/tool`,
      match: (c) => isTask(task)(c) && !answered(c),
      reply: (c) => ({ content: [text('One moment.'), call(c)] }),
    },
  ];
}

const IDLE = /\? for shortcuts|shift\+tab to cycle/;
const ENTER_ANSWER_DELAY_MS = 600;

/** Submits a prompt and waits until Claude Code works on it. */
async function prompt(d: CaseDriver, words: string): Promise<void> {
  await d.type(words);
  await sleep(200);
  d.keys('\r');
}

const BLOCKED_FOOTER = /Esc to cancel|\(esc\)|Enter to select|Enter to confirm/;

/** Waits for a dialog, marks it blocked, answers it with Enter on the first option. */
async function dialog(d: CaseDriver, re: RegExp, why: string, suffix?: string): Promise<void> {
  await d.screen(re);
  await d.mark('blocked', why, suffix);
  await sleep(ENTER_ANSWER_DELAY_MS);
  d.keys('\r');
}

/** A prompt whose first tool call shows a dialog; marks it, approves it, marks the idle end. */
function dialogCase(
  name: string,
  call: (c: TurnContext) => ReturnType<typeof tool>,
  re: RegExp,
  why: string,
  extra: Partial<CaptureCase> = {},
): CaptureCase {
  return {
    name,
    rules: toolTask(`task-${name}`, call),
    ...extra,
    async steps(d) {
      await d.screen(IDLE);
      await prompt(d, `task-${name} please`);
      await dialog(d, re, why);
      await d.screen(/Done\./, { not: BLOCKED_FOOTER });
      await d.screen(IDLE);
      await d.mark('idle', `${name} approved, turn over`);
    },
  };
}

export const CASES: CaptureCase[] = [
  {
    name: 'trust',
    home: () => ({ projectConfig: { hasTrustDialogAccepted: false } }),
    async steps(d) {
      await d.screen(/trust this folder/i);
      await d.mark('blocked', 'start-up folder trust dialog (fresh project)');
      await sleep(ENTER_ANSWER_DELAY_MS);
      d.keys('\x1b[B'); // down to "Yes, I trust this folder"
      await d.screen(/❯ Yes, I trust this folder/, { settleMs: 300 });
      d.keys('\r');
      await d.screen(IDLE);
      await d.mark('idle', 'trusted; input box');
    },
  },
  dialogCase(
    'webfetch',
    // 127.0.0.1:9 refuses at once; no preflight to api.anthropic.com: nothing leaves the machine
    () => tool('WebFetch', { url: 'http://127.0.0.1:9/docs/api', prompt: 'List the endpoints' }),
    /tell Claude what to do differently/,
    'WebFetch permission',
    { home: () => ({ settings: { skipWebFetchPreflight: true } }) },
  ),
  dialogCase(
    'outside',
    // beside the project, inside the throwaway root: outside the working folder
    (c) => tool('Write', { file_path: `${c.cwd}/../outside-notes.txt`, content: 'notes\n' }),
    /Do you want to|❯ 1\./,
    'Write outside the working folder',
  ),
  dialogCase(
    'mcp',
    () => tool('mcp__tiny__lookup', { term: 'sweep' }),
    /lookup|tiny/i,
    'MCP tool permission (tiny stdio server)',
    {
      args: ({ mcpConfig }) => ['--permission-mode', 'manual', '--mcp-config', mcpConfig],
    },
  ),
  {
    name: 'askmulti',
    rules: toolTask('task-askmulti', () =>
      tool('AskUserQuestion', {
        questions: [
          {
            question: 'Which test framework should I use?',
            header: 'Framework',
            multiSelect: false,
            options: [
              { label: 'pytest', description: 'The common choice' },
              { label: 'unittest', description: 'In the standard library' },
            ],
          },
          {
            question: 'Where should the tests live?',
            header: 'Location',
            multiSelect: false,
            options: [
              { label: 'tests/', description: 'A separate folder' },
              { label: 'next to the code', description: 'test_*.py beside each module' },
            ],
          },
        ],
      })),
    async steps(d) {
      await d.screen(IDLE);
      await prompt(d, 'task-askmulti add tests');
      await dialog(d, /Which test framework/, 'AskUserQuestion, first of two questions', 'q1');
      await dialog(d, /Where should the tests live/, 'AskUserQuestion, second question', 'q2');
      await dialog(d, /Submit answers/, 'AskUserQuestion, review tab', 'review');
      await d.screen(/Done\./, { not: BLOCKED_FOOTER });
      await d.screen(IDLE);
      await d.mark('idle', 'answers submitted, turn over');
    },
  },
  {
    name: 'onboarding',
    home: () => ({
      claudeJson: { hasCompletedOnboarding: false, theme: undefined, numStartups: 0 },
      projectConfig: { hasTrustDialogAccepted: false },
    }),
    async steps(d) {
      await dialog(d, /Choose the text style/, 'first start: theme picker', 'theme');
      await dialog(d, /Press Enter to continue/, 'first start: security notes', 'security');
      await d.screen(/trust this folder/i);
      await sleep(ENTER_ANSWER_DELAY_MS);
      d.keys('\x1b[B');
      await d.screen(/❯ Yes, I trust this folder/, { settleMs: 300 });
      d.keys('\r');
      await d.screen(IDLE);
      await d.mark('idle', 'onboarding done; input box');
    },
  },
  {
    name: 'exitplan',
    args: () => ['--permission-mode', 'plan'],
    rules: toolTask('task-exitplan', () =>
      tool('ExitPlanMode', {
        plan:
          '# Plan: add a greeting\n\n1. Create hello.py with a main() that prints a greeting.\n',
      })),
    async steps(d) {
      await d.screen(IDLE);
      await prompt(d, 'task-exitplan add a greeting');
      await dialog(
        d,
        /Would you like to proceed\?|Exit plan mode\?/,
        'ExitPlanMode: plan approval',
      );
      await d.screen(/Done\./, { not: BLOCKED_FOOTER });
      await d.screen(IDLE);
      await d.mark('idle', 'plan approved, turn over');
    },
  },
  {
    name: 'bashlong',
    rules: toolTask('task-bashlong', () =>
      tool('Bash', {
        command: 'for i in $(seq 1 80); do echo line $i; sleep 0.25; done; touch long.log',
        description: 'Print eighty lines slowly',
      }), 'The long command finished.'),
    async steps(d) {
      await d.screen(IDLE);
      await prompt(d, 'task-bashlong run it');
      await dialog(d, /Do you want to proceed\?/, 'Bash permission (long command)');
      await d.screen(/\d+ lines\)/, { settleMs: 2000 });
      await d.mark('working', 'long Bash command, output hidden behind a line counter');
      await d.screen(/long command finished/, { not: BLOCKED_FOOTER });
      await d.screen(IDLE);
      await d.mark('idle', 'long command over', 'after');
    },
  },
  {
    name: 'subagent',
    rules: [
      {
        name: 'subwork',
        match: (c) => /task-subwork/.test(c.promptText),
        reply: () => ({ delayMs: 30_000, content: [text('Survey finished.')] }),
      },
      ...toolTask('task-subagent', () =>
        tool('Task', {
          description: 'Survey the code',
          prompt: 'task-subwork survey greet.py',
          subagent_type: 'general-purpose',
          run_in_background: true,
        }), 'A background agent is surveying the code.'),
    ],
    async steps(d) {
      await d.screen(IDLE);
      await prompt(d, 'task-subagent survey it');
      await d.screen(/background agent is surveying/, { settleMs: 2500 });
      await d.mark('working', 'background sub-agent running, main prompt empty');
      await sleep(4000);
      await d.mark('working', 'background sub-agent still running', 'later');
    },
  },
  {
    name: 'menus',
    async steps(d) {
      await d.screen(IDLE);
      await d.type('/model');
      await sleep(300);
      d.keys('\r');
      await d.screen(/model/i, { not: IDLE, settleMs: 1500 });
      await d.mark('idle', '/model menu opened by the person', 'model');
      d.keys('\x1b');
      await d.screen(IDLE);
      await d.type('/config');
      await sleep(300);
      d.keys('\r');
      await d.screen(/onfig|Settings/i, { not: IDLE, settleMs: 1500 });
      await d.mark('idle', '/config menu opened by the person', 'config');
      for (let i = 0; i < 4 && !IDLE.test(d.pty.screen()); i++) {
        d.keys('\x1b'); // the first Esc may only leave the search field
        await sleep(700);
      }
      await d.screen(IDLE);
      await d.type('1. Yes  Do you want to proceed?');
      await sleep(800);
      await d.mark(
        'idle',
        'the person typed "1. Yes  Do you want to proceed?" (not sent)',
        'typed',
      );
    },
  },
  {
    name: 'pickers',
    async steps(d) {
      await d.screen(IDLE);
      await d.type('/');
      await d.screen(/❯ \/[a-z]/, { settleMs: 1200 });
      await d.mark('idle', 'slash-command list under the input box', 'slash');
      d.keys('\x7f'); // backspace
      await d.screen(IDLE);
      await prompt(d, 'hello there');
      await d.screen(/OK\./, { settleMs: 300 });
      await d.screen(IDLE);
      await sleep(500);
      d.keys('\x1b');
      await sleep(150);
      d.keys('\x1b');
      await d.screen(/[Rr]ewind|Restore/, { not: IDLE, settleMs: 1200 });
      await d.mark('idle', 'rewind menu (Esc Esc) opened by the person', 'rewind');
      for (let i = 0; i < 4 && !IDLE.test(d.pty.screen()); i++) {
        d.keys('\x1b');
        await sleep(700);
      }
    },
  },
  {
    // No --permission-mode: auto mode, Claude Code 2.1.332's default. Its server-side check of
    // each action is unavailable against a fake server, so a Bash command gets a dialog of its
    // own: "Auto mode can't check actions in this session, so this one needs your approval"
    // (tester, 2026-12-02). Two prompts, so the second dialog of the session is caught too.
    name: 'autocheck',
    args: () => [],
    rules: [
      // a write outside the project: auto mode runs `touch auto.txt` inside it unasked
      ...toolTask(
        'task-autocheck',
        (c) =>
          tool('Bash', {
            command: `echo hi > ${c.cwd}/../auto.txt`,
            description: 'Write auto.txt',
          }),
      ),
      ...toolTask('task-autoagain', (c) =>
        tool('Bash', {
          command: `echo again > ${c.cwd}/../again.txt`,
          description: 'Write again.txt',
        })),
    ],
    async steps(d) {
      // first the notice (Enter stays in auto mode), then the Bash dialog itself, its cursor on
      // "No": ↓ Enter approves
      const approve = async (suffix: string) => {
        await d.screen(/needs your approval[^]*❯ No/);
        await d.mark(
          'blocked',
          'auto mode check unavailable: the Bash dialog (❯ No / Yes)',
          suffix,
        );
        await sleep(ENTER_ANSWER_DELAY_MS);
        d.keys('\x1b[B');
        await d.screen(/❯ Yes/, { settleMs: 300 });
        d.keys('\r');
      };
      await d.screen(IDLE);
      await prompt(d, 'task-autocheck please');
      await dialog(d, /Enter to stay in auto mode/, 'auto mode check unavailable: the notice');
      await approve('approve');
      await d.screen(/Done\./, { not: BLOCKED_FOOTER });
      await d.screen(IDLE);
      await d.mark('idle', 'auto-mode dialog approved, turn over');
      await prompt(d, 'task-autoagain please');
      await d.screen(/Enter to stay in auto mode|needs your approval/);
      if (/Enter to stay in auto mode/.test(d.pty.screen())) {
        await dialog(d, /Enter to stay in auto mode/, 'the notice again (second prompt)', 'again');
        await approve('again-approve');
      } else {
        await approve('again');
      }
      await d.screen(/Done\.[^]*Done\./, { not: BLOCKED_FOOTER });
      await d.screen(IDLE);
    },
  },
  {
    // Ctrl-R in an idle session: the prompt history search, a picker the person opened. An
    // rejected permission dialog leaves "⎿  Interrupted · What should Claude do instead?" in
    // the transcript above it (tester, 2026-12-02: read blocked, "question over options").
    name: 'history',
    async steps(d) {
      await d.screen(IDLE);
      await prompt(d, 'first question about greet.py');
      await d.screen(/OK\./, { settleMs: 300 });
      await d.screen(IDLE);
      await prompt(d, 'task-bash please'); // the default script's Bash `touch hello.txt`
      await d.screen(/Do you want to proceed\?/);
      await sleep(ENTER_ANSWER_DELAY_MS);
      d.keys('\x1b'); // rejected
      await d.screen(/Interrupted/);
      await d.screen(IDLE);
      await prompt(d, 'second question about greet.py');
      await d.screen(/OK\.[^]*OK\./, { settleMs: 300 });
      await d.screen(IDLE);
      await sleep(500);
      d.keys('\x12'); // Ctrl-R
      await d.screen(/search|history/i, { not: IDLE, settleMs: 1200 });
      await d.mark('idle', 'prompt history search (Ctrl-R) opened by the person', 'search');
      await d.type('greet');
      await sleep(1200);
      await d.mark('idle', 'prompt history search, "greet" typed', 'query');
      for (let i = 0; i < 4 && !IDLE.test(d.pty.screen()); i++) {
        d.keys('\x1b');
        await sleep(700);
      }
    },
  },
  {
    name: 'quote',
    rules: [{
      name: 'task-quote',
      match: isTask('task-quote'),
      reply: () => ({
        content: [text(
          'The dialog you saw looks like this:\n\n```\n' +
            '────────────────────────────────────────\n' +
            ' Bash command\n\n   rm -rf build\n\n' +
            ' Do you want to proceed?\n ❯ 1. Yes\n   2. No\n\n' +
            ' Esc to cancel · Tab to amend\n```\n\nPick 1 to let it run.',
        )],
      }),
    }],
    async steps(d) {
      await d.screen(IDLE);
      await prompt(d, 'task-quote what did the dialog look like?');
      await d.screen(/Pick 1 to let it run/);
      await d.screen(IDLE);
      await d.mark('idle', 'a reply quoting a permission dialog in a code block');
    },
  },
];

/** Writes of the sidepanel case before its Bash command. */
const SIDEPANEL_WRITES = 6;

/**
 * The sidepanel case: in a 45x160 pane, in a git repository with no commits, Claude Code 2.1.332
 * opens a diff panel on the right by itself once files are written (tester, real Claude Code).
 * Six Writes are approved one by one, then a Bash command; the 2nd, 6th Write and the Bash dialog
 * are marked beside the panel.
 */
function sidepanelCase(): CaptureCase {
  let issued = 0;
  const writeOf = (n: number) =>
    tool('Write', { file_path: `file_${n}.txt`, content: `file ${n}\n` });
  return {
    name: 'sidepanel',
    size: { rows: 45, cols: 160 },
    setup: (project) => {
      spawnSync('git', ['init', '-q'], { cwd: project });
    },
    rules: [{
      name: 'task-sidepanel',
      match: isTask('task-sidepanel'),
      reply: (c) => {
        if (!answered(c)) issued = 0;
        issued++;
        if (issued <= SIDEPANEL_WRITES) {
          return { content: [text(`Writing file ${issued}.`), writeOf(issued)] };
        }
        if (issued === SIDEPANEL_WRITES + 1) {
          return {
            content: [
              text('Now the command.'),
              tool('Bash', {
                command: 'mkdir -p out && touch out/done.log',
                description: 'Create the output marker',
              }),
            ],
          };
        }
        return { content: [text('All files written.')] };
      },
    }],
    async steps(d) {
      await d.screen(IDLE);
      await prompt(d, 'task-sidepanel write the files');
      for (let n = 1; n <= SIDEPANEL_WRITES; n++) {
        await d.screen(new RegExp(`Do you want to create file_${n}\\.txt`));
        if (n === 2 || n === SIDEPANEL_WRITES) {
          await sleep(2500); // the panel's rows settle
          await d.mark('blocked', `Write file_${n}.txt beside the diff panel`, `write${n}`);
        }
        await sleep(ENTER_ANSWER_DELAY_MS);
        d.keys('\r');
      }
      await d.screen(/Do you want to proceed\?/, { settleMs: 3000 });
      await d.mark('blocked', 'Bash command beside the diff panel', 'bash');
      await sleep(ENTER_ANSWER_DELAY_MS);
      d.keys('\r');
      await d.screen(/All files written\./, { not: BLOCKED_FOOTER });
      await d.screen(IDLE);
      await d.mark('idle', 'turn over, diff panel open', 'after');
    },
  };
}
CASES.push(sidepanelCase());

/** The same cases in a 24x80 pane, named CASE-80 (the dialogs wrap; the rules must not care). */
for (const name of ['trust', 'webfetch', 'askmulti', 'mcp']) {
  const c = CASES.find((x) => x.name === name)!;
  CASES.push({ ...c, name: `${name}-80`, size: { rows: 24, cols: 80 } });
}

/**
 * Runs one case; returns the recording's path (OUT/marked/NAME) and each mark's fixture
 * name (CASE or CASE.SUFFIX).
 */
export async function captureCase(
  c: CaptureCase,
  out: string,
  explore = false,
): Promise<{ rec: string; names: string[] }> {
  const server = await startFakeAnthropic({ rules: c.rules ?? [], slowMs: 8000 });
  const recDir = join(out, 'marked');
  mkdirSync(recDir, { recursive: true });
  for (const ext of ['bytes.jsonl', 'input.jsonl', 'truth.jsonl', 'meta.json']) {
    rmSync(join(recDir, `${c.name}.${ext}`), { force: true }); // this driver's own earlier take
  }
  const sockets = join(out, '.sockets');
  const mcpConfig = join(out, `.mcp-${c.name}.json`);
  writeFileSync(
    mcpConfig,
    JSON.stringify({
      mcpServers: {
        tiny: {
          type: 'stdio',
          command: process.execPath,
          args: [...agentwatchArgv([]).slice(0, 2), MCP_SERVER, '--tiny-mcp-server'],
        },
      },
    }),
  );
  const home = makeClaudeHome({ baseUrl: server.url, ...(c.home?.({ mcpConfig }) ?? {}) });
  c.setup?.(home.project);
  const args = c.args?.({ project: home.project, mcpConfig }) ?? ['--permission-mode', 'manual'];
  const pty = await startPty({
    command: process.execPath,
    args: agentwatchArgv([
      'record',
      '--out',
      recDir,
      '--name',
      c.name,
      '--agent',
      'claude',
      '--no-hooks',
      '--',
      CLAUDE_BIN,
      ...args,
    ]),
    cwd: home.project,
    env: { ...home.env, AGENTWATCH_DIR: sockets, PATH: process.env.PATH ?? '' },
    rows: c.size?.rows,
    cols: c.size?.cols,
  });
  const names: string[] = [];
  const d: CaseDriver = {
    pty,
    project: home.project,
    home: home.home,
    async screen(re, opts = {}) {
      const s = await pty.waitForScreen(re, 60_000, opts.not ? { not: opts.not } : undefined);
      await sleep(opts.settleMs ?? 800);
      return s;
    },
    type: (t) => pty.type(t),
    keys: (k) => pty.send(k),
    async mark(state, why, suffix) {
      names.push(suffix ? `${c.name}.${suffix}` : c.name);
      const info = await findSession(c.name, sockets);
      await request(info.socket, { op: 'mark', state, note: why });
      if (verbose) process.stderr.write(`[${c.name}] ${state}: ${why}\n${pty.screen()}\n\n`);
    },
  };
  try {
    if (explore) {
      const shown = new Set<string>();
      const deadline = Date.now() + 40_000;
      const stepsDone = c.steps(d).catch((e) => process.stderr.write(`steps: ${e.message}\n`));
      while (Date.now() < deadline) {
        const s = pty.screen();
        if (!shown.has(s)) {
          shown.add(s);
          process.stderr.write(`---- ${new Date().toISOString()}\n${s}\n`);
        }
        await sleep(1000);
        if (pty.exit) break;
      }
      await Promise.race([stepsDone, sleep(100)]);
    } else {
      await c.steps(d);
    }
  } finally {
    pty.send('\x03');
    await sleep(300);
    pty.send('\x03');
    await Promise.race([pty.exited, sleep(5000)]);
    await pty.close();
    writeFileSync(join(out, `.server-${c.name}.log`), server.dump(2000) + '\n');
    await server.close();
    home.cleanup();
  }
  return { rec: join(recDir, c.name), names };
}

/**
 * Cuts every truth mark of `rec` into OUT/claude.STATE.NAME.raw with `agentwatch cut`; returns
 * what cut printed.
 */
export function cutMarks(rec: string, out: string, names: string[], states: string[]): string {
  let printed = '';
  states.forEach((state, i) => {
    const file = join(out, `claude.${state}.${names[i]}.raw`);
    const r = spawnSync(
      process.execPath,
      [...agentwatchArgv([]), 'cut', rec, '--mark', String(i + 1), '--out', file, '--force'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    printed += r.stdout + r.stderr;
  });
  return printed;
}

async function main(argv: string[]): Promise<void> {
  const explore = argv.includes('--explore');
  verbose = true;
  const rest = argv.filter((a) => a !== '--capture-claude' && a !== '--explore');
  const out = resolve(rest[0] ?? 'capture-out');
  const names = rest.slice(1);
  for (const c of CASES.filter((x) => !names.length || names.includes(x.name))) {
    const { rec, names } = await captureCase(c, out, explore);
    if (explore) continue;
    process.stdout.write(cutMarks(rec, out, names, readRecording(rec).truth.map((m) => m.state)));
  }
}

if (process.argv.includes('--capture-claude')) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`${e?.stack ?? e}\n`);
      process.exit(1);
    },
  );
}
