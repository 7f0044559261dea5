/**
 * `send` of a long line (1,237 and 4,882 characters, no line break) to real Gemini CLI 0.61.0,
 * Qwen Code 0.24.4 and Claude Code 2.1.332 (dev dependencies) in headless sessions, against
 * fake model servers on 127.0.0.1: the model gets the whole text, in one user message, and the
 * input box is empty again. Typed key by key, Gemini drew 1,229 characters only after 5 s and
 * 2,715 not within 20 s (`send` then found its text unread, typed but not submitted, and the
 * text never showed); a long line now goes as one bracketed paste (PASTE_OVER_CHARS), as a
 * terminal sends a person's paste. Each agent twice in a row.
 */
import { existsSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inputBox } from '../src/detect/evaluate.ts';
import { PASTE_END, PASTE_START } from '../src/runtime/send-text.ts';
import { GEMINI_BIN, makeGeminiHome, makeQwenHome, QWEN_BIN } from './support/agent-homes.ts';
import { CLAUDE_BIN, claudeArgs, makeClaudeHome } from './support/claude-home.ts';
import { startFakeAnthropic } from './support/fake-anthropic.ts';
import { startFakeGemini } from './support/fake-gemini.ts';
import { startFakeOpenAI } from './support/fake-openai.ts';
import { startHostedAgent } from './support/hosted-agent.ts';
import { until } from './support/until.ts';

/** A long line of `n` words, marked with `mark` (no line break, no tab). */
const longLine = (mark: string, n: number) =>
  `${mark} ` + 'lorem ipsum dolor sit amet '.repeat(n).trimEnd();

interface Agent {
  name: string;
  bin: string;
  args: string[];
  /** The agent's home (env, project) for a fake server at `url`, and its cleanup. */
  home(
    url: string,
  ): { env: Record<string, string>; project: string; cleanup(): void | Promise<void> };
  /** The fake model server; `asked(text)` counts the model requests whose last user message holds `text`. */
  server(): Promise<{ url: string; close(): Promise<void>; asked(text: string): number }>;
}

/** The text of the user messages of a request body, in any of the three wire formats. */
function userTexts(body: unknown): string[] {
  const b = body as {
    messages?: { role?: string; content?: unknown }[];
    contents?: { role?: string; parts?: unknown }[];
  };
  const list = b.messages ?? b.contents?.map((c) => ({ role: c.role, content: c.parts })) ?? [];
  return list.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content ?? ''));
}

/** How many user messages of the request with the most hold `text` (submitted once: 1). */
function mostTimes(bodies: unknown[], text: string): number {
  return Math.max(0, ...bodies.map((b) => userTexts(b).filter((t) => t.includes(text)).length));
}

const openAiLike = (start: typeof startFakeOpenAI) => async () => {
  const s = await start();
  return {
    url: s.url,
    close: () => s.close(),
    asked: (text: string) => mostTimes(s.turns().map((t) => t.body), text),
  };
};

const AGENTS: Agent[] = [
  {
    name: 'gemini',
    bin: GEMINI_BIN,
    args: [],
    home: (url) => makeGeminiHome({ baseUrl: url }),
    server: openAiLike(startFakeGemini),
  },
  {
    name: 'qwen',
    bin: QWEN_BIN,
    args: ['--approval-mode', 'default'],
    home: (url) => makeQwenHome({ baseUrl: url }),
    server: openAiLike(startFakeOpenAI),
  },
  {
    name: 'claude',
    bin: CLAUDE_BIN,
    args: claudeArgs(),
    home: (url) => makeClaudeHome({ baseUrl: url }),
    server: async () => {
      const s = await startFakeAnthropic();
      return {
        url: s.url,
        close: () => s.close(),
        asked: (text: string) => mostTimes(s.messages().map((e) => e.body), text),
      };
    },
  },
];

for (const agent of AGENTS) {
  if (!existsSync(agent.bin)) {
    console.log(`send-long: ${agent.name} skipped: ${agent.bin} is missing (npm ci installs it)`);
    continue;
  }
  test(`send of a long line to ${agent.name}: pasted, submitted once, the box empty again; twice`, async () => {
    const server = await agent.server();
    const home = agent.home(server.url);
    const a = await startHostedAgent(
      'aw-send-long-',
      { command: agent.bin, args: agent.args, env: home.env, cwd: home.project },
      30,
      100,
    ).catch(async (e) => {
      await server.close();
      await home.cleanup();
      throw e;
    });
    try {
      const { session: s, pane: w } = a;
      const idleAndEmpty = (what: string) =>
        until(
          what,
          () => {
            w.classifyNow();
            return w.record.state === 'idle' &&
              inputBox(s.terminal.snapshot(), w.manifest!) === 'empty';
          },
          120_000,
          50,
        ).catch((e: Error) => {
          throw new Error(`${e.message}: ${w.record.state}\n${s.terminal.screenText()}`);
        });
      await idleAndEmpty(`${agent.name}: its empty input box`);
      for (const [round, words] of [[1, 45], [2, 180]] as const) {
        const mark = `task-long-${agent.name}-${round}`;
        const text = longLine(mark, words);
        const typed: Buffer[] = [];
        const off = s.onInput((d) => typed.push(Buffer.from(d)));
        const written = await w.send(text, { enter: true, append: false }).catch((e: Error) => {
          throw new Error(`${e.message}; screen:\n${s.terminal.screenText()}`);
        }).finally(off);
        const all = Buffer.concat(typed).toString();
        assert.ok(
          all.startsWith(PASTE_START + text + PASTE_END + '\r'),
          `round ${round}: pasted: ${JSON.stringify(all.slice(0, 40))}...${
            JSON.stringify(all.slice(-40))
          } (${all.length} for ${text.length})`,
        );
        assert.ok(written >= all.length - 1, `round ${round}: ${written} of ${all.length}`);
        await until(
          `${agent.name}: the model asked with round ${round}`,
          () => server.asked(text) > 0,
          60_000,
        ).catch((e: Error) => {
          throw new Error(`${e.message}; screen:\n${s.terminal.screenText()}`);
        });
        await idleAndEmpty(`${agent.name}: idle after round ${round}`);
        assert.is(server.asked(text), 1, `round ${round}: the whole text, in one user message`);
      }
    } finally {
      await a.close();
      await server.close();
      await home.cleanup();
    }
  });
}

test.run();
