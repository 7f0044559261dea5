/**
 * Notifications end to end with real Claude Code 2.1.332 and its hooks: `agentwatch run
 * --notify-cmd ... -- claude --permission-mode manual` (from source) in a real PTY, against
 * the fake Anthropic API on 127.0.0.1, with a throwaway HOME and AGENTWATCH_DIR. The
 * `--notify-cmd` appends each notice's AGENTWATCH_* variables to a file; a fake notify-send on
 * PATH logs the desktop notices.
 *
 * 1. Three Bash prompts in one session (`touch one.txt`, `two.txt`, `three.txt`, each answered
 *    like a person a moment after it shows): three notices, each with its command
 *    (`Bash: touch one.txt`) and the dialog's question; none twice.
 * 2. A reply that ends with its own question ("Would you like me to add a regression test?")
 *    followed, in the same turn, by AskUserQuestion: the notice carries the dialog's question
 *    ("Which test framework should I use?"), never the prose.
 *
 * 3. The same prompt again: `task-same` asks `touch same.txt` twice in one turn, and a second
 *    `task-same` (sent with `agentwatch send` right after the first turn ends) twice more; each
 *    prompt is answered with `agentwatch answer --yes` 1.5 s after it shows, and Claude asks
 *    again about a second later: every prompt is announced, though each looks like the last,
 *    on the desktop too (`send` and `answer` come from another terminal: not focus).
 *
 * 4. `--notify-done` and short turns: three `task-question` turns (a reply in under a second),
 *    each sent with `agentwatch send` once the one before was announced: three done notices.
 *
 * 5. A task of several lines (`task-cmd one` / `beta` / `gamma`, sent with `agentwatch send`),
 *    twice: one notice per prompt, and no blocked line without the question or with the
 *    prompt's echoed lines as its options.
 *
 * In 1, the pane is resized 120 -> 100 -> 90 -> 120 columns while the first prompt shows: still
 * one notice for it.
 *
 * Prints, for the report: prompts shown, notices sent, notices with the right question,
 * duplicates. Skipped (with a printed reason) only when node_modules/.bin/claude is missing.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  agentwatchArgv,
  followSession,
  mark,
  runCli,
  type SessionFollower,
} from './support/agentwatch-e2e.ts';
import {
  type FakeAnthropic,
  type ScriptRule,
  startFakeAnthropic,
} from './support/fake-anthropic.ts';
import { CLAUDE_BIN, claudeArgs, type ClaudeHome, makeClaudeHome } from './support/claude-home.ts';
import { type PtyDriver, startPty } from './support/pty-driver.ts';
import { sleep, until } from './support/until.ts';
import { NOTIFY_DEFAULTS } from '../src/runtime/notify-config.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';

/** Claude Code drops keys typed in the first ~100-200 ms after a prompt shows. */
const ANSWER_DELAY_MS = 600;

const WORDS = ['one', 'two', 'three'];
const ASK_QUESTION = 'Which test framework should I use?';
const PROSE_QUESTION = 'Would you like me to add a regression test?';

/** The fake model's rules: `task-cmd WORD` runs `touch WORD.txt`; `task-askq` asks after prose. */
const RULES: ScriptRule[] = [
  {
    name: 'task-cmd/done',
    match: (c) => c.task === 'task-cmd' && c.toolResults.length > 0,
    reply: () => ({ content: [{ type: 'text', text: 'Done.' }] }),
  },
  {
    name: 'task-cmd/tool',
    match: (c) => c.task === 'task-cmd' && c.toolResults.length === 0,
    reply: (c) => {
      const word = /task-cmd (\w+)/.exec(c.promptText)?.[1] ?? 'x';
      return {
        content: [
          { type: 'text', text: `I'll create ${word}.txt.` },
          {
            type: 'tool_use',
            name: 'Bash',
            input: { command: `touch ${word}.txt`, description: `Create ${word}.txt` },
          },
        ],
      };
    },
  },
  {
    name: 'task-askq/done',
    match: (c) => c.task === 'task-askq' && c.toolResults.length > 0,
    reply: () => ({ content: [{ type: 'text', text: 'Thanks, I will use that.' }] }),
  },
  {
    name: 'task-askq/tool',
    match: (c) => c.task === 'task-askq' && c.toolResults.length === 0,
    reply: () => ({
      content: [
        {
          type: 'text',
          text: 'I fixed the off-by-one error in the loop bounds, so the last element is now ' +
            `processed.\n\n${PROSE_QUESTION}`,
        },
        {
          type: 'tool_use',
          name: 'AskUserQuestion',
          input: {
            questions: [{
              question: ASK_QUESTION,
              header: 'Framework',
              multiSelect: false,
              options: [
                { label: 'pytest', description: 'The common choice' },
                { label: 'unittest', description: 'In the standard library' },
              ],
            }],
          },
        },
      ],
    }),
  },
];

interface Logged {
  notice: string;
  question: string;
  action: string;
  body: string;
}

/** How many times one `task-same` turn asks `touch same.txt`. */
const SAME_ASKS = 2;

/**
 * `task-same`: asks `touch same.txt` again after each result, {@link SAME_ASKS} times a turn.
 * The count is the tool results since the turn's prompt (the conversation's last human text).
 */
const SAME_RULE: ScriptRule = {
  name: 'task-same',
  match: (c) => c.task === 'task-same' && c.tools.includes('Bash'),
  reply: (c) => {
    const blocks = (m: { content: string | Array<Record<string, unknown>> }) =>
      typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    const human = (b: Record<string, unknown>) =>
      b.type === 'text' && !String(b.text).trimStart().startsWith('<system-reminder>');
    let results = 0;
    for (const m of [...(c.body.messages ?? [])].reverse()) {
      if (m.role !== 'user') continue;
      if (blocks(m).some(human)) break; // the turn's prompt
      results += blocks(m).filter((b) => b.type === 'tool_result').length;
    }
    if (results >= SAME_ASKS) return { content: [{ type: 'text', text: 'All touched.' }] };
    return {
      content: [{
        type: 'tool_use',
        name: 'Bash',
        input: { command: 'touch same.txt', description: 'Touch same.txt' },
      }],
    };
  },
};

/** The notices the --notify-cmd logged (one JSON object a line). */
function logged(file: string): Logged[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** A `run --notify-cmd ... -- claude` session under a real PTY; see {@link startNotified}. */
interface Notified {
  dir: string;
  /** The --notify-cmd's log (one JSON object a line). */
  log: string;
  /** The fake notify-send's log (one desktop notice a line). */
  desktopLog: string;
  home: ClaudeHome;
  pty: PtyDriver;
  f: SessionFollower;
  /** Stops everything and removes the folders; never rejects. */
  close(): Promise<void>;
}

/**
 * Starts real Claude Code as session `nt` under `agentwatch run --notify-cmd` against the fake
 * API with `rules`, and waits for its input box. The caller must call `close`.
 */
async function startNotified(rules: ScriptRule[], runArgs: string[] = []): Promise<Notified> {
  const dir = mkdtempSync(join(tmpdir(), 'aw-notify-e2e-'));
  const log = join(dir, 'notices.jsonl');
  const bin = join(dir, 'bin');
  const desktopLog = join(dir, 'desktop.log');
  // the --notify-cmd: one JSON line per notice, from the variables (node: safe quoting)
  const script = join(dir, 'log.cjs');
  writeFileSync(
    script,
    `const e = process.env; require('fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify(` +
      `{notice: e.AGENTWATCH_NOTICE, question: e.AGENTWATCH_QUESTION, action: e.AGENTWATCH_ACTION, ` +
      `body: e.AGENTWATCH_BODY}) + '\\n');`,
  );
  mkdirSync(bin);
  writeFileSync(join(bin, 'notify-send'), `#!/bin/sh\necho "$2" >> ${desktopLog}\n`);
  chmodSync(join(bin, 'notify-send'), 0o755);
  let server: FakeAnthropic | undefined;
  let home: ClaudeHome | undefined;
  let pty: PtyDriver | undefined;
  let f: SessionFollower | undefined;
  const close = async () => {
    f?.close();
    await pty?.close();
    home?.cleanup();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    server = await startFakeAnthropic({ rules });
    home = makeClaudeHome({ baseUrl: server.url });
    pty = await startPty({
      command: process.execPath,
      args: agentwatchArgv([
        'run',
        '--name',
        'nt',
        '--notify-cmd',
        `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`,
        ...runArgs,
        '--',
        CLAUDE_BIN,
        ...claudeArgs({ permissionMode: 'manual' }),
      ]),
      cwd: home.project,
      env: {
        ...home.env,
        AGENTWATCH_DIR: dir,
        PATH: `${bin}:${home.env.PATH ?? process.env.PATH}`,
      },
    });
    f = await followSession(dir, 'nt', 30_000);
    await f.waitFor('idle', 30_000);
    await until('the input box', () => /\? for shortcuts/.test(pty!.screen()), 120_000); // Claude's start-up took over 30 s at load 50
    return { dir, log, desktopLog, home, pty, f, close };
  } catch (e) {
    await close();
    throw e;
  }
}

test('real Claude Code under run: one notice per prompt, each with its command or the dialog question', async () => {
  if (!existsSync(CLAUDE_BIN)) {
    console.log(`  skipped: ${CLAUDE_BIN} is missing (npm ci installs Claude Code)`);
    return;
  }
  const s = await startNotified(RULES);
  const { log, desktopLog, home, pty, f } = s;
  try {
    const context = () =>
      `\n--- notices ---\n${readFileSync(log, 'utf8')}\n--- screen ---\n${pty!.screen()}\n` +
      `--- states ---\n${f!.states().join(' -> ')}`;

    // 1. three Bash prompts
    let shown = 0;
    for (const word of WORDS) {
      const from = mark(f);
      await pty.type(`task-cmd ${word}: please create the file`);
      await sleep(250);
      pty.send('\r');
      await until(
        `the prompt for ${word}.txt`,
        () =>
          /Do you want to proceed\?/.test(pty!.screen()) &&
          pty!.screen().includes(`touch ${word}.txt`),
        30_000,
      );
      shown++;
      await f.waitFor('blocked', 30_000, from);
      if (word === WORDS[0]) {
        // the pane resized while the prompt shows (a terminal resized, a board attaching):
        // Claude Code draws the dialog again; the same prompt, no second notice
        await until('the first notice', () => logged(log).length >= 1, 30_000);
        for (const cols of [100, 90, 120]) {
          pty.resize(cols, 32);
          await until(
            `the session resized to ${cols} columns, still blocked`,
            async () => {
              const ls = await runCli(
                ['ls', '--json'],
                { ...process.env, AGENTWATCH_DIR: s.dir },
                20_000,
              );
              return (JSON.parse(ls.stdout || '[]') as SessionInfo[]).some((i) =>
                i.name === 'nt' && i.cols === cols && i.state === 'blocked' &&
                (i.options?.length ?? 0) > 0
              );
            },
            30_000,
            300,
          );
          await until(
            'the dialog drawn',
            () => /Do you want to proceed\?/.test(pty!.screen()),
            10_000,
          );
        }
      }
      await sleep(ANSWER_DELAY_MS);
      pty.send('1');
      await until(
        `${word}.txt created`,
        () => existsSync(join(home!.project, `${word}.txt`)),
        20_000,
      );
      await until(
        'the turn over',
        () => /Done\./.test(pty!.screen()) && /\? for shortcuts/.test(pty!.screen()),
        20_000,
      );
      await f.waitFor('idle', 30_000, from);
    }
    await until('three notices', () => logged(log).length >= 3, 10_000).catch(() => {});
    const bash = logged(log);
    assert.equal(
      bash.map((n) => n.action),
      WORDS.map((w) => `Bash: touch ${w}.txt`),
      context(),
    );
    assert.ok(
      bash.every((n) => n.notice === 'blocked' && n.question === 'Do you want to proceed?'),
    );

    // 2. AskUserQuestion after a reply ending with a question
    const from = mark(f);
    await pty.type('task-askq: fix the loop');
    await sleep(250);
    pty.send('\r');
    await until('the AskUserQuestion dialog', () => pty!.screen().includes(ASK_QUESTION), 30_000);
    shown++;
    await f.waitFor('blocked', 30_000, from);
    await until('the fourth notice', () => logged(log).length >= 4, 30_000);
    await sleep(ANSWER_DELAY_MS);
    pty.send('\r');
    await until('the answer taken', () => /Thanks, I will use that/.test(pty!.screen()), 30_000);
    await f.waitFor('idle', 30_000, from);
    await sleep(1_000); // a late duplicate would come now
    const all = logged(log);
    const ask = all[3];
    assert.is(ask.question, ASK_QUESTION, context());
    assert.not.ok(all.some((n) => n.question === PROSE_QUESTION), 'never the prose');
    // nor what the session publishes (watch --json, the board): the dialog's question or none
    const published = f.received.slice(from).map((r) => r.info.question).filter(Boolean);
    assert.not.ok(published.includes(PROSE_QUESTION), `published: ${published.join(' | ')}`);
    assert.ok(published.includes(ASK_QUESTION));
    assert.is(all.length, 4, `one notice per prompt${context()}`);
    const right = all.filter((n, k) =>
      k < 3 ? n.action === `Bash: touch ${WORDS[k]}.txt` : n.question === ASK_QUESTION
    ).length;
    const desktop = existsSync(desktopLog)
      ? readFileSync(desktopLog, 'utf8').trim().split('\n').filter(Boolean).length
      : 0;
    console.log(
      `  real Claude Code: ${shown} prompts shown, ${all.length} notices (--notify-cmd), ` +
        `${right} with the right question and command, ${all.length - shown} duplicates; ` +
        `${desktop} desktop notices (none while the person types into the session)`,
    );
  } finally {
    await s.close();
  }
});

test('real Claude Code: the same prompt asked again 1.5 s after its answer is announced each time', async () => {
  if (!existsSync(CLAUDE_BIN)) {
    console.log(`  skipped: ${CLAUDE_BIN} is missing (npm ci installs Claude Code)`);
    return;
  }
  const s = await startNotified([SAME_RULE]);
  const { log, pty, f } = s;
  const cliEnv = { ...process.env, AGENTWATCH_DIR: s.dir };
  const context = () =>
    `\n--- notices ---\n${
      existsSync(log) ? readFileSync(log, 'utf8') : ''
    }\n--- screen ---\n${pty.screen()}\n--- states ---\n${f.states().join(' -> ')}`;
  /** Index of the first line at or after `from` that is not blocked: the answer taken. */
  const left = async (from: number) => {
    const at = () => f.received.findIndex((r, k) => k >= from && r.info.state !== 'blocked');
    await until('the prompt answered', () => at() >= 0, 30_000);
    return at();
  };
  let shown = 0;
  let leftAt = 0;
  const gaps: number[] = []; // ms from leaving blocked to the same prompt back
  try {
    // `run` takes what its terminal sends as typing (focus: no desktop notice for 5 s), the
    // test terminal's answers to Claude Code's start-up queries too: let that pass first
    const replied = () =>
      Math.max(0, ...pty.input.filter((i) => i.why === 'reply').map((i) => i.t));
    await until(
      'the focus window of the start-up replies over',
      () => Date.now() - pty.startedAt - replied() > NOTIFY_DEFAULTS.focusMs + 500,
      30_000,
    );
    // a fresh session that did no work yet is ready, not 'done 8 s ago'
    const fresh = await runCli(['ls'], cliEnv, 20_000);
    const freshRow = fresh.stdout.split('\n').find((l) => /\bnt\b/.test(l)) ?? fresh.stdout;
    assert.match(freshRow, /ready, no task yet/, fresh.stdout + fresh.stderr);
    assert.not.match(freshRow, /done/);
    for (const turn of [1, 2]) {
      let from = mark(f);
      const text = `task-same ${turn}: touch same.txt`;
      // each task sent from another terminal, the second right after the first turn ended
      const sent = await runCli(['send', 'nt', text], cliEnv, 20_000);
      assert.is(sent.code, 0, sent.stderr);
      for (let k = 0; k < SAME_ASKS; k++) {
        const b = await f.waitFor('blocked', 30_000, from);
        if (shown > 0) gaps.push(b.t - leftAt);
        shown++;
        await sleep(1_500); // the person reads it, then answers from another terminal
        const answered = mark(f);
        const r = await runCli(['answer', '--yes', 'nt', '1'], cliEnv, 20_000, { tty: true });
        assert.is(r.code, 0, `${r.stdout}${r.stderr}${context()}`);
        from = await left(answered);
        leftAt = f.received[from].t;
      }
      await until('the turn over', () => /All touched\./.test(pty.screen()), 30_000);
      await f.waitFor('idle', 30_000, from);
      from = mark(f);
    }
    await until('every notice', () => logged(log).length >= shown, 10_000).catch(() => {});
    await sleep(1_000); // a late duplicate would come now
    const notices = logged(log);
    const after = await runCli(['ls'], cliEnv, 20_000);
    assert.match(after.stdout, /\bnt\b.*done \d+ s ago/, after.stdout + after.stderr);
    const desktop = existsSync(s.desktopLog)
      ? readFileSync(s.desktopLog, 'utf8').trim().split('\n').filter(Boolean).length
      : 0;
    console.log(
      `  real Claude Code, the same prompt ${shown} times (answered 1.5 s after it showed, back ` +
        `${gaps.map((g) => (g / 1000).toFixed(1)).join(', ')} s after the answer): ` +
        `${notices.length} notices (--notify-cmd), ${desktop} desktop notices`,
    );
    assert.is(notices.length, shown, `every prompt announced${context()}`);
    // `answer` and `send` come from another terminal: no sign the person looks at the pane
    const replies = pty.input.filter((i) => i.why !== 'key').map((i) => i.t);
    const blockedAt = f.received.filter((r) => r.info.state === 'blocked').map((r) =>
      r.t - pty.startedAt
    );
    assert.ok(
      desktop === shown,
      `${desktop} desktop notices; terminal replies at ${replies} ms, blocked at ${blockedAt} ms${context()}`,
    );
  } finally {
    await s.close();
  }
});

test('real Claude Code: a task of several lines, sent twice, gives one notice per prompt', async () => {
  // Claude Code 2.1.332 echoes a prompt of several lines in its transcript as `❯ task-cmd
  // one` / `  beta` / `  gamma`, which read as an option list with its cursor while its
  // PermissionRequest hook said blocked before the dialog was drawn: a blocked line without
  // the question, and a notice whose options were the prompt's lines, then the dialog's own
  // (tester: 3 of 3 such tasks).
  if (!existsSync(CLAUDE_BIN)) {
    console.log(`  skipped: ${CLAUDE_BIN} is missing (npm ci installs Claude Code)`);
    return;
  }
  const s = await startNotified(RULES);
  const { log, pty, f } = s;
  const cliEnv = { ...process.env, AGENTWATCH_DIR: s.dir };
  const context = () =>
    `\n--- notices ---\n${
      existsSync(log) ? readFileSync(log, 'utf8') : ''
    }\n--- screen ---\n${pty.screen()}\n--- blocked lines ---\n${
      f.received.filter((r) => r.info.state === 'blocked').map((r) =>
        JSON.stringify([r.info.question ?? null, r.info.options ?? null])
      ).join('\n')
    }`;
  try {
    const words = ['one', 'two'];
    for (const word of words) {
      let from = mark(f);
      const sent = await runCli(['send', 'nt', `task-cmd ${word}\nbeta\ngamma`], cliEnv, 20_000);
      assert.is(sent.code, 0, sent.stderr);
      await f.waitFor('blocked', 30_000, from);
      await until('the dialog', () => /Do you want to proceed\?/.test(pty.screen()), 30_000);
      await sleep(ANSWER_DELAY_MS);
      from = mark(f);
      const r = await runCli(['answer', '--yes', 'nt', '1'], cliEnv, 20_000, { tty: true });
      assert.is(r.code, 0, `${r.stdout}${r.stderr}${context()}`);
      await f.waitFor('idle', 30_000, from);
      await until('the input box', () => /\? for shortcuts/.test(pty.screen()), 30_000);
    }
    await until('every notice', () => logged(log).length >= words.length, 10_000).catch(() => {});
    await sleep(1_000); // a late duplicate would come now
    const blocked = f.received.filter((r) => r.info.state === 'blocked').map((r) => r.info);
    for (const info of blocked) {
      assert.is(info.question, 'Do you want to proceed?', `a blocked line's question${context()}`);
      assert.not.ok(
        (info.options ?? []).some((o) => /beta|gamma|task-cmd/.test(o)),
        `a blocked line with the prompt's lines as options${context()}`,
      );
    }
    const notices = logged(log).filter((n) => n.notice === 'blocked');
    assert.equal(
      notices.map((n) => [n.question, n.action]),
      words.map((w) => ['Do you want to proceed?', `Bash: touch ${w}.txt`]),
      `one notice per prompt${context()}`,
    );
  } finally {
    await s.close();
  }
});

test('real Claude Code with --notify-done: every short turn is announced when it ends', async () => {
  if (!existsSync(CLAUDE_BIN)) {
    console.log(`  skipped: ${CLAUDE_BIN} is missing (npm ci installs Claude Code)`);
    return;
  }
  const s = await startNotified([], ['--notify-done']);
  const { log, pty, f } = s;
  const cliEnv = { ...process.env, AGENTWATCH_DIR: s.dir };
  const context = () =>
    `\n--- notices ---\n${
      existsSync(log) ? readFileSync(log, 'utf8') : ''
    }\n--- screen ---\n${pty.screen()}\n--- states ---\n${f.states().join(' -> ')}`;
  const done = () => logged(log).filter((n) => n.notice === 'done').length;
  try {
    for (let k = 1; k <= 3; k++) {
      const from = mark(f);
      const sent = await runCli(['send', 'nt', `task-question short turn ${k}`], cliEnv, 20_000);
      assert.is(sent.code, 0, sent.stderr);
      await f.waitFor('idle', 30_000, from + 1).catch(() => {});
      await until(`the done notice of turn ${k}`, () => done() >= k, 30_000).catch((e: Error) => {
        throw new Error(`${e.message}${context()}`);
      });
    }
    assert.is(done(), 3, context());
  } finally {
    await s.close();
  }
});

test.run();
