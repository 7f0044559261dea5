/**
 * Real Claude Code (node_modules/.bin/claude, a native binary) in a real PTY, against the fake
 * Anthropic API on 127.0.0.1, with a throwaway HOME. One session, in order:
 *
 * 1. start-up reaches the idle footer "? for shortcuts";
 * 2. `task-bash ...` makes the model ask for Bash `touch hello.txt`: the permission prompt
 *    shows (blocked: no "esc to interrupt", no "? for shortcuts");
 * 3. Enter on "1. Yes": the tool runs, hello.txt exists, the server got the tool_result, and the
 *    session is idle again;
 * 4. `task-slow ...`: the server stalls, and meanwhile the footer says "esc to interrupt".
 *
 * Screens are compared with the fixtures in fixtures/claude-code/ (same version, same size),
 * rendered by our own src/vt Terminal (AGENTWATCH_TEST_EMULATOR=xterm renders with xterm).
 * A second, shorter session answers Claude Code's `OSC 7501 ; ?` probe and checks the state it
 * then reports in-band. A third suite tests the fake server alone (no Claude Code needed).
 * The Claude Code suites are skipped, with a printed reason, only when the binary is missing.
 * About 20 s in all on a 2-core machine.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type FakeAnthropic, startFakeAnthropic } from './support/fake-anthropic.ts';
import {
  CLAUDE_BIN,
  claudeArgs,
  type ClaudeHome,
  makeClaudeHome,
  REPO_ROOT,
} from './support/claude-home.ts';
import { type PtyDriver, startPty } from './support/pty-driver.ts';
import { sleep } from './support/until.ts';

const FIXTURES = join(REPO_ROOT, 'fixtures', 'claude-code');
const FIXTURE_PROJECT = '/home/dev/claude/proj';
/** How long the server stalls on task-slow, ms. */
const SLOW_MS = 4000;
/** Keys typed in the first ~100-200 ms after a prompt shows are dropped by Claude Code. */
const ANSWER_DELAY_MS = 500;

// The fake server alone, fast, and also when Claude Code is missing.
const api = suite('fake-anthropic');

async function post(url: string, body: unknown): Promise<Response> {
  return await fetch(`${url}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Parses an SSE body into `[event, data]` pairs. */
function sse(text: string): Array<[string, Record<string, unknown>]> {
  return text.trim().split('\n\n').map((chunk) => {
    const event = /^event: (.*)$/m.exec(chunk)?.[1] ?? '';
    const data = JSON.parse(/^data: (.*)$/m.exec(chunk)?.[1] ?? 'null');
    return [event, data];
  });
}

const TOOLS = [{ name: 'Bash', input_schema: { type: 'object' } }];

api('streams a tool_use, then answers its tool_result', async () => {
  const server = await startFakeAnthropic({ chunkDelayMs: 0 });
  try {
    const prompt = { role: 'user', content: [{ type: 'text', text: 'task-bash make it' }] };
    const r1 = await post(server.url, {
      model: 'm',
      stream: true,
      tools: TOOLS,
      messages: [prompt],
    });
    assert.is(r1.headers.get('content-type')?.startsWith('text/event-stream'), true);
    const events = sse(await r1.text());
    assert.equal(
      [...new Set(events.map(([e]) => e))],
      [
        'message_start',
        'ping',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    const start = events.find(([e, d]) =>
      e === 'content_block_start' &&
      (d.content_block as { type: string }).type === 'tool_use'
    )![1];
    const toolUse = start.content_block as { id: string; name: string };
    assert.is(toolUse.name, 'Bash');
    const json = events
      .filter(([e, d]) => e === 'content_block_delta' && d.index === start.index)
      .map(([, d]) => (d.delta as { partial_json: string }).partial_json).join('');
    assert.equal(JSON.parse(json), {
      command: 'touch hello.txt',
      description: 'Create empty hello.txt file',
    });
    const stop = events.find(([e]) => e === 'message_delta')![1];
    assert.is((stop.delta as { stop_reason: string }).stop_reason, 'tool_use');

    const r2 = await post(server.url, {
      model: 'm',
      stream: false,
      tools: TOOLS,
      messages: [prompt, { role: 'assistant', content: [{ type: 'tool_use', id: toolUse.id }] }, {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'ok' }],
      }],
    });
    const msg = await r2.json() as { content: Array<{ text: string }>; stop_reason: string };
    assert.is(msg.stop_reason, 'end_turn');
    assert.match(msg.content[0].text, /Created hello\.txt/);
    assert.equal(server.messages().map((e) => e.rule), ['task-bash/tool', 'task-bash/done']);
    assert.is(server.toolResults()[0].toolUse?.name, 'Bash');
  } finally {
    await server.close();
  }
});

api('injected rules win; other endpoints get benign answers; close ends a stall', async () => {
  const server = await startFakeAnthropic({ slowMs: 60_000 });
  try {
    server.addRules({
      name: 'mine',
      match: (c) => c.promptText.includes('hello there'),
      reply: () => ({ content: [{ type: 'text', text: 'General Kenobi' }] }),
    });
    const r = await post(server.url, {
      stream: false,
      tools: TOOLS,
      messages: [{ role: 'user', content: 'hello there' }],
    });
    assert.is(
      ((await r.json()) as { content: Array<{ text: string }> }).content[0].text,
      'General Kenobi',
    );
    const side = await post(server.url, {
      stream: false,
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.is(
      ((await side.json()) as { content: Array<{ text: string }> }).content[0].text,
      'Fake title',
    );
    const count = await fetch(`${server.url}/v1/messages/count_tokens`, {
      method: 'POST',
      body: '{}',
    });
    assert.equal(await count.json(), { input_tokens: 100 });
    assert.is((await fetch(`${server.url}/v1/models`)).status, 200);
    const stalled = post(server.url, {
      stream: true,
      tools: TOOLS,
      messages: [{ role: 'user', content: 'task-slow' }],
    }).then(() => 'answered', () => 'dropped');
    await sleep(100);
    const t0 = Date.now();
    await server.close();
    assert.is(await stalled, 'dropped');
    assert.ok(Date.now() - t0 < 2000, 'close() waited for the stall');
    assert.equal(server.log.map((e) => e.rule ?? e.url), [
      'mine',
      'side',
      '/v1/messages/count_tokens',
      '/v1/models',
      'task-slow',
    ]);
  } finally {
    await server.close();
  }
});

api.run();

const test = suite('claude-real');

interface State {
  server?: FakeAnthropic;
  home?: ClaudeHome;
  pty?: PtyDriver;
  failed?: string;
  timings: Record<string, number>;
}
const st: State = { timings: {} };

/** Screen text with this run's project path replaced by the fixtures' one. */
function normal(screen: string): string {
  return st.home ? screen.split(st.home.project).join(FIXTURE_PROJECT) : screen;
}

function fixtureScreen(name: string): string {
  return readFileSync(join(FIXTURES, `${name}.screen.txt`), 'utf8');
}

/** Lines of `screen` from the first line matching `from` through the first matching `to`. */
function block(screen: string, from: RegExp, to: RegExp): string[] {
  const lines = screen.split('\n').map((l) => l.trimEnd());
  const a = lines.findIndex((l) => from.test(l));
  if (a < 0) return [];
  const b = lines.findIndex((l, i) => i >= a && to.test(l));
  return lines.slice(a, b < 0 ? undefined : b + 1);
}

function context(): string {
  return `\n--- screen now (${st.pty?.emulator ?? 'no pty'}) ---\n${st.pty?.screen() ?? ''}\n` +
    `--- fake API log ---\n${st.server?.dump() ?? ''}\n--- timings (ms) ---\n` +
    JSON.stringify(st.timings);
}

/** Fails with the screen, the server log and the timings in the message. */
function check(ok: boolean, what: string, screen?: string): void {
  if (ok) return;
  throw new Error(
    `${what}${screen !== undefined ? `\n--- screen checked ---\n${screen}` : ''}${context()}`,
  );
}

/** Starts the server, the HOME and Claude Code (done in a step: uvu swallows `before` errors). */
async function setUp(): Promise<PtyDriver> {
  st.server = await startFakeAnthropic({ slowMs: SLOW_MS });
  st.home = makeClaudeHome({ baseUrl: st.server.url });
  st.timings.spawn = Date.now();
  st.pty = await startPty({
    command: CLAUDE_BIN,
    args: claudeArgs({ permissionMode: 'manual' }),
    cwd: st.home.project,
    env: st.home.env,
  });
  return st.pty;
}

/** Runs one step; an earlier failure skips it, a failure carries the server log. */
function step(name: string, fn: (pty: PtyDriver) => Promise<void>) {
  test(name, async () => {
    if (st.failed) throw new Error(`not run: the earlier step "${st.failed}" failed`);
    try {
      await fn(st.pty ?? await setUp());
    } catch (err) {
      st.failed = name;
      const e = err as Error;
      if (!e.message.includes('--- fake API log ---')) e.message += context();
      throw e;
    }
  });
}

async function submit(pty: PtyDriver, prompt: string): Promise<number> {
  await pty.type(prompt);
  await sleep(250);
  pty.send('\r');
  return Date.now();
}

if (!existsSync(CLAUDE_BIN)) {
  console.log(
    `claude-real: skipped: ${CLAUDE_BIN} is missing ` +
      '(npm ci installs the dev dependency @anthropic-ai/claude-code; AGENTWATCH_CLAUDE_BIN overrides the path)',
  );
  test.skip('real Claude Code session');
} else {
  test.after(async () => {
    await st.pty?.close();
    await st.server?.close();
    st.home?.cleanup();
    const t = st.timings;
    console.log(
      `claude-real (${st.pty?.emulator}): start-up to idle footer ${t.startup} ms, ` +
        `Enter to blocked prompt ${t.enterToBlocked} ms, answer to idle ${t.answerToIdle} ms, ` +
        `Enter to "esc to interrupt" ${t.enterToWorking} ms, whole session ${
          Date.now() - t.spawn
        } ms`,
    );
  });

  step('start-up reaches the idle footer', async (pty) => {
    const screen = await pty.waitForScreen(/\? for shortcuts/, 120_000); // over 30 s at load 50
    st.timings.startup = Date.now() - st.timings.spawn;
    check(/Claude Code v\d/.test(screen), 'banner "Claude Code v…" missing', screen);
    check(!/esc to interrupt/.test(screen), 'idle screen shows "esc to interrupt"', screen);
    check(!/Do you want to proceed/.test(screen), 'idle screen shows a prompt', screen);
    check(
      /^ {2}⏸ manual mode on · \? for shortcuts/m.test(screen),
      'manual-mode idle footer',
      screen,
    );
  });

  step('task-bash: the Bash permission prompt blocks the session', async (pty) => {
    const entered = await submit(pty, 'task-bash please create hello.txt');
    const screen = normal(
      await pty.waitForScreen(/Do you want to proceed\?[\s\S]*Esc to cancel/, 30_000),
    );
    st.timings.enterToBlocked = Date.now() - entered;
    check(/^ ❯ 1\. Yes$/m.test(screen), '"❯ 1. Yes" missing', screen);
    check(!/esc to interrupt/.test(screen), 'blocked screen shows "esc to interrupt"', screen);
    check(!/\? for shortcuts/.test(screen), 'blocked screen shows "? for shortcuts"', screen);
    // The dialog is the fixture's, line for line (paths normalised).
    const want = block(fixtureScreen('claude.blocked'), /^ Bash command$/, /Esc to cancel/);
    const got = block(screen, /^ Bash command$/, /Esc to cancel/);
    check(want.length > 5, 'fixture claude.blocked.screen.txt has no Bash dialog');
    check(
      JSON.stringify(got) === JSON.stringify(want),
      `dialog differs from fixture claude.blocked:\nwant:\n${want.join('\n')}\ngot:\n${
        got.join('\n')
      }`,
      screen,
    );
    const asked = st.server!.messages().find((e) => e.rule === 'task-bash/tool');
    check(asked !== undefined, 'the server never issued the Bash tool_use');
    check(st.server!.toolResults().length === 0, 'a tool_result came back before the answer');
  });

  step('Enter on "1. Yes": the tool runs and the session is idle again', async (pty) => {
    await sleep(ANSWER_DELAY_MS);
    pty.send('\r');
    const answered = Date.now();
    const screen = normal(
      await pty.waitForScreen(
        /Created hello\.txt in the project directory[\s\S]*\? for shortcuts/,
        20_000,
        {
          not: /esc to interrupt|Do you want to proceed/,
        },
      ),
    );
    st.timings.answerToIdle = Date.now() - answered;
    check(
      existsSync(join(st.home!.project, 'hello.txt')),
      'hello.txt was not created in the project',
    );
    const results = st.server!.toolResults();
    check(
      results.some((r) =>
        r.toolUse?.name === 'Bash' && r.toolUse.rule === 'task-bash/tool' && !r.isError
      ),
      `the server saw no successful tool_result for the Bash tool_use: ${JSON.stringify(results)}`,
    );
    check(
      st.server!.messages().some((e) => e.rule === 'task-bash/done'),
      'no request after the tool_result',
    );
    // As in fixture claude.idle.after: the turn, then the empty input box and the idle footer.
    const fx = fixtureScreen('claude.idle.after');
    for (
      const line of [
        "● I'll create the file.",
        '  Ran 1 shell command',
        '● Created hello.txt in the project directory.',
      ]
    ) {
      check(fx.includes(line), `fixture claude.idle.after lacks ${JSON.stringify(line)}`);
      check(
        screen.includes(line),
        `idle screen lacks ${JSON.stringify(line)} (fixture has it)`,
        screen,
      );
    }
    check(/^✻ \S+ for \d+s · done /m.test(screen), 'no "✻ <Verb>ed for Ns · done" line', screen);
    check(
      /^❯[ \u00a0]*\n─+\n {2}⏸ manual mode on · \? for shortcuts/m.test(screen),
      'empty input box + idle footer',
      screen,
    );
  });

  step('task-slow: "esc to interrupt" shows while the server stalls', async (pty) => {
    const entered = await submit(pty, 'task-slow check the project');
    const screen = await pty.waitForScreen(/esc to interrupt/, 30_000);
    st.timings.enterToWorking = Date.now() - entered;
    check(!/\? for shortcuts/.test(screen), 'working screen shows "? for shortcuts"', screen);
    check(!/Do you want to proceed/.test(screen), 'working screen shows a prompt', screen);
    check(
      /^ {2}⏸ manual mode on · esc to interrupt/m.test(screen),
      'manual-mode working footer',
      screen,
    );
    // As in fixture claude.working: a spinner line (glyph + verb…) above the input box.
    check(
      /^[·✢✳✶✻✽*] \S+…/m.test(fixtureScreen('claude.working')),
      'fixture claude.working has no spinner',
    );
    check(/^[·✢✳✶✻✽*] \S+…/m.test(screen), 'no spinner line "<glyph> <Verb>…"', screen);
    // Still working well into the stall: the request is pending and the footer unchanged.
    await sleep(Math.min(1500, SLOW_MS / 2));
    const slow = st.server!.messages().find((e) => e.rule === 'task-slow');
    check(slow !== undefined && slow.status === undefined, 'the task-slow request is not pending');
    const mid = pty.screen();
    check(
      /esc to interrupt/.test(mid) && !/\? for shortcuts/.test(mid),
      'not working mid-stall',
      mid,
    );
    const done = await pty.waitForScreen(
      /nothing else to change[\s\S]*\? for shortcuts/,
      SLOW_MS + 15_000,
      {
        not: /esc to interrupt/,
      },
    );
    st.timings.slowTurn = Date.now() - entered;
    check(
      st.timings.slowTurn >= SLOW_MS,
      `the slow turn ended after ${st.timings.slowTurn} ms`,
      done,
    );
  });
}

test.run();

// Claude Code probes `OSC 7501 ; ?` at start-up. A terminal that answers it (with `OSC 7501 ; ?`)
// gets the program's state in-band, as Codex sends it:
// `OSC 7501 ; state=idle|working|blocked|done : app=claude-code [: kind=permission : msg=B64]`.
const osc = suite('claude-real: OSC 7501 program status');

/** The `OSC 7501` payloads in `pty`'s output so far, in order. */
function programStatus(pty: PtyDriver): Array<Record<string, string>> {
  const all = Buffer.concat(pty.output.map((o) => o.data)).toString('utf8');
  return [...all.matchAll(/\x1b\]7501;(state=[^\x07\x1b]*)/g)].map((m) =>
    Object.fromEntries(m[1].split(':').map((kv) => kv.split('=', 2) as [string, string]))
  );
}

if (existsSync(CLAUDE_BIN)) {
  osc(
    'a terminal that answers the probe gets idle, working, blocked (with the question), done',
    async () => {
      const server = await startFakeAnthropic();
      const home = makeClaudeHome({ baseUrl: server.url });
      const pty = await startPty({
        command: CLAUDE_BIN,
        args: claudeArgs({ permissionMode: 'manual' }),
        cwd: home.project,
        env: home.env,
        answer: (d) => Buffer.from(d).includes('\x1b]7501;?') ? '\x1b]7501;?\x07' : undefined,
      });
      const fail = (what: string) =>
        new Error(
          `${what}\n--- OSC 7501 so far ---\n${JSON.stringify(programStatus(pty))}\n` +
            `--- screen ---\n${pty.screen()}\n--- fake API log ---\n${server.dump()}`,
        );
      const last = () => programStatus(pty).at(-1);
      const waitState = async (state: string, timeoutMs: number) => {
        for (const t0 = Date.now(); Date.now() - t0 < timeoutMs; await sleep(50)) {
          if (last()?.state === state) return last()!;
        }
        throw fail(`OSC 7501 state=${state} not reported within ${timeoutMs} ms`);
      };
      try {
        await pty.waitForScreen(/\? for shortcuts/, 30_000);
        await waitState('idle', 5_000);
        await submit(pty, 'task-bash please create hello.txt');
        await pty.waitForScreen(/Do you want to proceed\?/, 30_000);
        const blocked = await waitState('blocked', 5_000);
        if (blocked.kind !== 'permission') throw fail('blocked without kind=permission');
        const msg = Buffer.from(blocked.msg ?? '', 'base64').toString('utf8');
        if (msg !== 'approve Bash: touch hello.txt') {
          throw fail(`blocked msg is ${JSON.stringify(msg)}`);
        }
        await sleep(ANSWER_DELAY_MS);
        pty.send('\r');
        await pty.waitForScreen(/Created hello\.txt[\s\S]*\? for shortcuts/, 20_000, {
          not: /esc to interrupt/,
        });
        await waitState('done', 5_000);
        const states = programStatus(pty).map((p) => p.state);
        const from = states.lastIndexOf('blocked');
        if (!states.slice(from).includes('working')) {
          throw fail('no working between blocked and done');
        }
        if (states.indexOf('working') > states.indexOf('blocked')) {
          throw fail('no working before blocked');
        }
      } finally {
        await pty.close();
        await server.close();
        home.cleanup();
      }
    },
  );
}

osc.run();
