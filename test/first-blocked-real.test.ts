/**
 * Each prompt's first blocked line carries its own question, on real agents: Claude Code
 * 2.1.332 and Qwen Code 0.24.4 (dev dependencies, fake model servers on 127.0.0.1), each in a
 * headless session of a host of this process, followed through its control socket (`subscribe`,
 * what `watch --json` reads). Three prompts in a row in one session, each cancelled with Esc
 * before the next, their questions told apart (Claude Code: an AskUserQuestion dialog, a Bash
 * permission dialog, another AskUserQuestion; Qwen Code: `touch`, `mkdir`, `touch`). For each
 * prompt, the first info pushed with `blocked` after another state must carry the question of
 * the dialog it is about: not none (testers: Qwen 2 of 4, Claude 2 of 40 at a load of 10),
 * never the question of the dialog cancelled just before.
 *
 * And a task of several lines sent to Claude Code three times: every blocked line carries the
 * dialog's question, none the task's echoed lines as options, and a notifier fed what was
 * pushed announces each prompt once.
 *
 * Skipped (with a printed reason) when an agent is missing from node_modules/.bin.
 * test/first-blocked-question.test.ts makes the late dialog happen on any machine.
 */
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { subscribe } from '../src/runtime/control-client.ts';
import { CONTENT_WAIT_MS, NotifyGate } from '../src/runtime/notify-gate.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { makeQwenHome, QWEN_BIN } from './support/agent-homes.ts';
import { CLAUDE_BIN, claudeArgs, makeClaudeHome } from './support/claude-home.ts';
import { type ScriptRule, startFakeAnthropic } from './support/fake-anthropic.ts';
import { startFakeOpenAI } from './support/fake-openai.ts';
import type { ModelRule } from './support/fake-model.ts';
import { type HostedAgent, startHostedAgent } from './support/hosted-agent.ts';
import { until } from './support/until.ts';

const test = suite('first blocked line: its own question (real agents)');

/** One prompt of a round: what to send, and the question its dialog asks. */
interface Ask {
  send: string;
  question: string;
}

/**
 * Sends each prompt of `asks` to the agent of `a` in turn: awaits its dialog on the screen,
 * presses Esc, awaits idle. Returns, per prompt, the first blocked info pushed after another
 * state, every info pushed with when it came (ms since the epoch), and a context for failure
 * messages.
 */
async function rounds(a: HostedAgent, asks: Ask[], dialog: RegExp) {
  const { session: s, pane: w } = a;
  const pushed: SessionInfo[] = [];
  const times: number[] = [];
  let sub: Socket | undefined;
  const context = () =>
    `\npushed: ${
      pushed.map((i) => `${i.state} ${JSON.stringify(i.question ?? null)}`).join(', ')
    }\nscreen:\n${s.terminal.screenText()}`;
  const wait = <T>(what: string, read: () => T, ms = 90_000) =>
    until(what, read, ms, 20).catch((e: Error) => {
      throw new Error(`${e.message}${context()}`);
    });
  try {
    sub = subscribe(s.spec.socket, (i) => {
      pushed.push(i);
      times.push(Date.now());
    }, () => {});
    await wait('idle at start', () => w.classifyNow().state === 'idle');
    await wait('the subscription', () => pushed.length > 0);
    const firsts: (SessionInfo | undefined)[] = [];
    for (const ask of asks) {
      const from = pushed.length;
      await w.send(ask.send, { enter: true, append: false });
      const first = await wait(
        `'${ask.send}': blocked pushed`,
        () =>
          pushed.slice(from).find((i, k) =>
            i.state === 'blocked' && pushed[from + k - 1]?.state !== 'blocked'
          ),
      );
      firsts.push(first);
      await wait(`'${ask.send}': its dialog`, () => dialog.test(s.terminal.screenText()));
      s.write('\x1b'); // the person says no
      await wait(
        `'${ask.send}': idle again`,
        () => w.classifyNow().state === 'idle' && pushed.at(-1)?.state === 'idle',
      );
    }
    return { firsts, context, pushed, times };
  } finally {
    sub?.destroy();
  }
}

const bash = (command: string) => ({
  type: 'tool_use' as const,
  name: 'Bash',
  input: { command, description: `Run ${command}` },
});
const ask = (question: string) => ({
  type: 'tool_use' as const,
  name: 'AskUserQuestion',
  input: {
    questions: [{
      question,
      header: 'Framework',
      multiSelect: false,
      options: [
        { label: 'pytest', description: 'The common choice' },
        { label: 'unittest', description: 'In the standard library' },
      ],
    }],
  },
});

if (!existsSync(CLAUDE_BIN)) {
  console.log(`first-blocked-real: skipped Claude Code: ${CLAUDE_BIN} is missing`);
  test.skip('Claude Code: three prompts in a row, each first blocked line with its question');
} else {
  test('Claude Code: three prompts in a row, each first blocked line with its question', async () => {
    // `task-ask N`: an AskUserQuestion naming N; `task-bash N`: Bash touch N.txt. A call the
    // person refused (Esc) comes back as an error result with the next task, which asks anew.
    const rules: ScriptRule[] = [{
      name: 'first-blocked/tool',
      match: (c) =>
        (c.task === 'task-ask' || c.task === 'task-bash') && c.toolResults.every((t) => t.isError),
      reply: (c) => {
        const n = /task-\w+ (\w+)/.exec(c.promptText)?.[1] ?? 'x';
        return {
          content: [
            c.task === 'task-ask' ? ask(`Which framework for ${n}?`) : bash(`touch ${n}.txt`),
          ],
        };
      },
    }];
    const server = await startFakeAnthropic({ rules });
    const home = makeClaudeHome({ baseUrl: server.url });
    try {
      const a = await startHostedAgent(
        'aw-first-blocked-claude-',
        { command: CLAUDE_BIN, args: claudeArgs(), env: home.env, cwd: home.project },
        30,
        100,
      );
      try {
        const asks = [
          { send: 'task-ask alpha', question: 'Which framework for alpha?' },
          { send: 'task-bash beta', question: 'Do you want to proceed?' },
          { send: 'task-ask gamma', question: 'Which framework for gamma?' },
        ];
        const r = await rounds(a, asks, /Which framework for \w+\?[\s\S]*pytest|proceed\?/);
        assert.equal(
          r.firsts.map((i) => i?.question ?? null),
          asks.map((x) => x.question),
          r.context(),
        );
      } finally {
        await a.close();
      }
    } finally {
      await server.close();
      home.cleanup();
    }
  });
}

if (!existsSync(CLAUDE_BIN)) {
  test.skip('Claude Code: a task of several lines, three times: its question, one notice each');
} else {
  test('Claude Code: a task of several lines, three times: its question, one notice each', async () => {
    // Claude Code 2.1.332 echoes the task as `❯ task-bash alpha` / `  beta` / `  gamma`; with
    // OSC 7501 answered (a headless session: `run --detach`) it says blocked about 0.2 s before
    // it draws the dialog, and the echo read as an option list with its cursor (testers: 3 of
    // 3 such tasks, a blocked line without the question and a notice whose options were the
    // task's lines, then the dialog's own notice).
    const rules: ScriptRule[] = [{
      name: 'first-blocked/multiline',
      match: (c) => c.task === 'task-bash' && c.toolResults.every((t) => t.isError),
      reply: (c) => ({
        content: [bash(`touch ${/task-bash (\w+)/.exec(c.promptText)?.[1] ?? 'x'}.txt`)],
      }),
    }];
    const server = await startFakeAnthropic({ rules });
    const home = makeClaudeHome({ baseUrl: server.url });
    try {
      const a = await startHostedAgent(
        'aw-first-blocked-multi-',
        { command: CLAUDE_BIN, args: claudeArgs(), env: home.env, cwd: home.project },
        30,
        100,
      );
      try {
        const asks = ['one', 'two', 'three'].map((w) => ({
          send: `task-bash ${w}\nbeta\ngamma`,
          question: 'Do you want to proceed?',
        }));
        const r = await rounds(a, asks, /proceed\?[\s\S]*4\. No/);
        const blocked = r.pushed.filter((i) => i.state === 'blocked');
        for (const info of blocked) {
          assert.is(info.question, 'Do you want to proceed?', r.context());
          assert.not.ok(
            (info.options ?? []).some((o) => /beta|gamma|task-bash/.test(o)),
            `the task's lines as options${r.context()}`,
          );
        }
        // what the host's notifier makes of them: one notice per prompt
        const gate = new NotifyGate();
        const notices = r.pushed.flatMap((i, k) => gate.observe(i, r.times[k]) ?? []);
        notices.push(...gate.due(r.times.at(-1)! + CONTENT_WAIT_MS));
        assert.equal(
          notices.filter((n) => n.kind === 'blocked').map((n) => n.action),
          ['one', 'two', 'three'].map((w) => `Bash: touch ${w}.txt`),
          r.context(),
        );
      } finally {
        await a.close();
      }
    } finally {
      await server.close();
      home.cleanup();
    }
  });
}

if (!existsSync(QWEN_BIN)) {
  console.log(`first-blocked-real: skipped Qwen Code: ${QWEN_BIN} is missing`);
  test.skip('Qwen Code: three prompts in a row, each first blocked line with its question');
} else {
  test('Qwen Code: three prompts in a row, each first blocked line with its question', async () => {
    // `task-run CMD`: run_shell_command `CMD x`, which Qwen's auto mode asks about (the fake
    // classifier gives no verdict: its fallback dialog)
    const rules: ModelRule[] = [{
      name: 'first-blocked/shell',
      match: (t) =>
        t.task === 'task-run' && t.tools.length > 0 && !t.json &&
        t.toolResults.length === 0,
      reply: (t) => {
        const cmd = /task-run (\w+)/.exec(t.promptText)?.[1] ?? 'touch';
        return {
          text: 'On it.',
          toolCalls: [{
            name: 'run_shell_command',
            args: { command: `${cmd} made-by-${cmd}`, description: `Run ${cmd}` },
          }],
        };
      },
    }];
    const server = await startFakeOpenAI({ rules });
    const home = makeQwenHome({ baseUrl: server.url });
    try {
      const a = await startHostedAgent(
        'aw-first-blocked-qwen-',
        { command: QWEN_BIN, args: [], env: home.env, cwd: home.project },
        32,
        120,
      );
      try {
        const asks = [
          { send: 'task-run touch', question: "Allow execution of: 'touch'?" },
          { send: 'task-run mkdir', question: "Allow execution of: 'mkdir'?" },
          { send: 'task-run touch', question: "Allow execution of: 'touch'?" },
        ];
        const r = await rounds(a, asks, /Allow execution of: '\w+'\?/);
        assert.equal(
          r.firsts.map((i) => i?.question ?? null),
          asks.map((x) => x.question),
          r.context(),
        );
      } finally {
        await a.close();
      }
    } finally {
      await server.close();
      await home.cleanup();
    }
  });
}

test.run();
