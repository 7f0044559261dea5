/**
 * `send` and `answer` against the simulated agent (`agentwatch sim-agent`, drawing like Claude
 * Code; rules from the bundled claude.toml via `--agent claude`) hosted in a SessionHost, and
 * through the real CLI processes (`node --import tsx src/cli/main.ts send|answer ...`) that
 * find the session in a temporary AGENTWATCH_DIR:
 * - `answer` on an idle session exits 3, nothing typed;
 * - `send` to an idle session types the text and Enter: the agent starts the task;
 * - `send` to a blocked session exits 3, prints the question and options, and the prompt is
 *   still there afterwards (the text "1" would have answered it);
 * - `answer` without --yes and without a terminal refuses;
 * - `answer` with an `expect` that is not the prompt on screen refuses (exit 3), both made up
 *   and real: the prompt of the first task confirmed, the second task's prompt on screen;
 * - `answer --yes SESSION 2` types the digit 2 (claude.toml says its dialogs take one): the
 *   agent's truth file says it got option 2 (`answer --yes SESSION no`: the digit 3);
 * - with a manifest without `[answer]`, ↓ then Enter, each arrow only once it shows (a slow
 *   dialog), and ←/→ on a row of buttons (opencode).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from '../src/runtime/control-client.ts';
import { choiceIndex, guardedAnswer } from '../src/runtime/typing-guard.ts';
import { createHost } from '../src/runtime/default-host.ts';
import { planTask } from '../src/sim/plan.ts';
import { Rng } from '../src/sim/rng.ts';
import type { TruthEvent } from '../src/sim/user.ts';
import { UserError } from '../src/errors.ts';
import { CLAUDE_DIALOG, startDialog } from './support/fake-dialog.ts';
import { until } from './support/until.ts';
import { agentwatchCommand, cli as runCli, personRequest } from './support/cli.ts';

/** Runs the CLI with no controlling terminal (setsid). */
const cli = (args: string[], env: NodeJS.ProcessEnv) => runCli(args, env, { detached: true });
/** The person's command, in a terminal of its own (`answer` is refused from none). */
const person = (args: string[], env: NodeJS.ProcessEnv) => runCli(args, env, { tty: true });

/** Seed 12: the first task asks about `touch hello.txt`, the second about `mkdir -p build/out`. */
const SEED = 12;
const SPEED = 8;
const QUESTION = 'Do you want to proceed?';
/** How long the slow dialog takes per key, ms (more than the guard's 60 ms between keys). */
const SLOW_KEY_MS = 150;

const CLAUDE_TOML = new URL('../resources/agent-detection/claude.toml', import.meta.url);

/** The truth file's lines so far ([] before it exists). */
function truth(path: string): TruthEvent[] {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

test('the seed plans two prompts with different commands', () => {
  const rng = new Rng(SEED);
  const [a, b] = [planTask(rng), planTask(rng)];
  assert.ok(a.asks && b.asks);
  assert.is(a.tool.cmd, 'touch hello.txt');
  assert.is(b.tool.cmd, 'mkdir -p build/out');
});

test("choiceIndex: a number, an option's whole text, or the start of one option's text", () => {
  const options = ['1. Yes', "2. Yes, and don't ask again for touch commands", '3. No'];
  assert.is(choiceIndex('2', options), 1);
  assert.is(choiceIndex('yes', options), 0, "'yes' is option 1, not also option 2's start");
  assert.is(choiceIndex(' YES ', options), 0);
  assert.is(choiceIndex('yes, and', options), 1);
  assert.is(choiceIndex('no', options), 2);
  assert.throws(() => choiceIndex('y', options), /matches several options/);
  assert.throws(() => choiceIndex('maybe', options), /is not an option/);
  assert.throws(() => choiceIndex('4', options), /is not an option/);
});

test('send and answer through the CLI against the simulated agent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-send-'));
  const env = { ...process.env, AGENTWATCH_DIR: dir };
  const truthPath = join(dir, 'truth.jsonl');
  const host = createHost({ intervalMs: 100 }, env);
  const self = agentwatchCommand();
  try {
    const session = await host.start({
      command: self.command,
      args: [
        ...self.args,
        'sim-agent',
        '--seed',
        String(SEED),
        '--speed',
        String(SPEED),
        '--truth',
        truthPath,
      ],
      name: 'sim',
      agent: 'claude',
      headless: true,
    });
    const w = host.ptyPane(session.id)!;
    const id = session.id;
    const screen = () => session.terminal.screenText();
    const state = () => {
      w.classifyNow();
      return w.record.state;
    };
    const last = () => truth(truthPath).at(-1);
    // Every write to the agent (the test's own and the host's, guarded or not), as the keys
    // it typed: a refusal answered means nothing was typed for it, and nothing will be.
    const keys: string[] = [];
    session.onInput((d) => keys.push(Buffer.from(d).toString()));
    await until('the idle footer', () => screen().includes('? for shortcuts'), 30_000);
    assert.is(state(), 'idle');

    // answer on a session that is not blocked: exit 3, nothing typed
    const notBlocked = await person(['answer', '--yes', id, '1'], env);
    assert.is(notBlocked.code, 3, notBlocked.stderr);
    assert.match(notBlocked.stderr, /is not waiting for an answer \(it is idle\)/);
    assert.equal(keys, [], 'answer typed nothing');
    assert.is(truth(truthPath).length, 1, 'still only the first idle line');

    // a draft the person left in the input box: send refuses (it would submit the draft)
    session.write('half a thought');
    await until('the draft on screen', () => /^❯ half a thought/m.test(screen()));
    const draft = await cli(['send', id, 'please create hello.txt'], env);
    assert.is(draft.code, 3, draft.stderr);
    assert.match(draft.stderr, /input box holds text someone typed; nothing was typed/);
    assert.equal(keys, ['half a thought'], 'send typed nothing');
    assert.ok(/^❯ half a thought\s*$/m.test(screen()), 'the draft is untouched');
    assert.is(truth(truthPath).length, 1, 'no task started');
    session.write('\x03'); // the person clears it (Ctrl-C on a non-empty input)
    await until('the draft cleared', () => !screen().includes('half a thought'));
    keys.length = 0;

    // send to an idle session: the text and Enter; the agent starts the task
    const sent = await cli(['send', id, 'please create hello.txt'], env);
    assert.is(sent.code, 0, sent.stderr);
    assert.match(sent.stdout, `sent 24 bytes to ${id}`);
    // (a working line after the idle one: the agent may be past it, blocked, by the time the
    // file is read)
    const started = () => truth(truthPath).slice(1).some((e) => e.state === 'working');
    await until('working in the truth file', started).catch((e) => {
      // what the agent was sent and shows, to tell a lost Enter from a slow agent
      throw new Error(
        `${(e as Error).message}; keys ${JSON.stringify(keys)}; truth ${
          JSON.stringify(truth(truthPath))
        }; send said ${JSON.stringify(sent.stdout + sent.stderr)}; screen:\n${screen()}`,
      );
    });
    assert.ok(screen().includes('❯ please create hello.txt'), screen());

    // the task asks: blocked
    await until('blocked in the truth file', () => last()?.state === 'blocked');
    await until('blocked on the screen', () => state() === 'blocked');
    const lines = truth(truthPath).length;

    // send to a blocked session: exit 3, question and options printed, nothing typed
    const refused = await cli(['send', id, '1'], env);
    assert.is(refused.code, 3, refused.stderr);
    assert.match(
      refused.stderr,
      /refused: sim is waiting for a permission answer; nothing was typed/,
    );
    assert.ok(refused.stderr.includes(QUESTION), refused.stderr);
    for (const o of ['1. Yes', "2. Yes, and don't ask again for touch commands", '3. No']) {
      assert.ok(refused.stderr.includes(o), refused.stderr);
    }
    assert.equal(keys, ['please create hello.txt', '\r'], 'the refused send typed nothing');
    assert.is(truth(truthPath).length, lines, 'the prompt got no key');
    assert.is(state(), 'blocked');
    assert.ok(screen().includes('❯ 1. Yes'), 'the selection did not move');

    // answer without --yes and without a terminal: refused, nothing typed
    const unconfirmed = await cli(['answer', id, '2'], env);
    assert.is(unconfirmed.code, 1, unconfirmed.stderr);
    assert.match(unconfirmed.stderr, /no terminal to confirm on; pass --yes/);
    assert.not.match(unconfirmed.stderr, /internal error|at .*\.ts:\d+/);
    assert.match(unconfirmed.stdout, /asks: Do you want to proceed\?/);

    // answer with a confirmed prompt that is not the one on screen: refused, nothing typed
    const first = await request<
      { question: string; options: string[]; selected: number; episode: number }
    >(
      session.spec.socket,
      { op: 'prompt' },
    );
    assert.is(first.question, QUESTION);
    assert.is(first.selected, 0);
    const madeUp = {
      question: QUESTION,
      options: [...first.options.slice(0, 2), '3. Maybe'],
      episode: first.episode,
    };
    const mismatch = await personRequest(session.spec.socket, {
      op: 'answer',
      choice: '1',
      confirmed: true,
      expect: madeUp,
    }, env).then(() => null, (e: UserError) => e);
    assert.ok(mismatch, 'refused');
    assert.is(mismatch!.exitCode, 3);
    assert.match(mismatch!.message, /not the one you confirmed/);
    // not confirmed at all: refused
    const noConfirm = await request(session.spec.socket, {
      op: 'answer',
      choice: '1',
      confirmed: false,
      expect: first,
    }).then(() => null, (e: UserError) => e);
    assert.is(noConfirm?.exitCode, 3);
    assert.equal(keys, ['please create hello.txt', '\r'], 'the refused answers typed nothing');
    assert.is(truth(truthPath).length, lines, 'the prompt got no key');
    assert.ok(screen().includes('❯ 1. Yes'), 'the selection did not move');

    // answer --yes SESSION 2: claude.toml's [answer] keys = "digit": the key '2'; the agent
    // got option 2
    const answered = await person(['answer', '--yes', id, '2'], env);
    assert.is(answered.code, 0, answered.stderr);
    assert.match(answered.stdout, /asks: Do you want to proceed\?/);
    assert.match(answered.stdout, /> 2\. Yes, and don't ask again/);
    assert.match(answered.stdout, /answered: 2\. Yes, and don't ask again/);
    await until('the answer in the truth file', () => truth(truthPath).length > lines);
    assert.equal(
      { state: truth(truthPath)[lines].state, answer: truth(truthPath)[lines].answer },
      { state: 'working', answer: 2 },
    );
    assert.equal(keys.slice(2), ['2'], 'the digit, no arrow, no Enter');

    // the second task asks about another command: the first prompt, confirmed, no longer fits
    await until('idle after the first task', () => last()?.state === 'idle');
    const second = await cli(['send', id, 'clean up the build output'], env);
    assert.is(second.code, 0, second.stderr);
    await until('the second prompt', () => last()?.state === 'blocked');
    await until('blocked on the screen', () => state() === 'blocked');
    assert.ok(screen().includes('mkdir -p build/out'), screen());
    const lines2 = truth(truthPath).length;
    const stale = await personRequest(session.spec.socket, {
      op: 'answer',
      choice: '1',
      confirmed: true,
      expect: { question: first.question, options: first.options, episode: first.episode },
    }, env).then(() => null, (e: UserError) => e);
    assert.is(stale?.exitCode, 3);
    assert.match(stale!.message, /not the one you confirmed/);
    assert.equal(
      keys.slice(3),
      ['clean up the build output', '\r'],
      'the stale answer typed nothing',
    );
    assert.is(truth(truthPath).length, lines2, 'the second prompt got no key');

    // choice by text: 'no' is option 3
    const no = await person(['answer', '--yes', id, 'no'], env);
    assert.is(no.code, 0, no.stderr);
    await until('the answer in the truth file', () => truth(truthPath).length > lines2);
    assert.is(truth(truthPath)[lines2].answer, 3);
    assert.equal(keys.slice(-1), ['3'], 'the digit 3');
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A Claude-like permission dialog (test/support/fake-dialog.ts) whose program is slow to take
 * keys: it handles one key every SLOW_KEY_MS, in order (an agent whose event loop is busy),
 * redraws the selection, and on Enter writes the chosen option's number to the file named by
 * argv[2] and shows the idle box.
 */
const SLOW_DIALOG = CLAUDE_DIALOG + String.raw`
process.stdin.setRawMode(true);
const queue = [];
let busy = false;
function next() {
  if (busy || !queue.length) return;
  busy = true;
  setTimeout(() => {
    busy = false;
    const k = queue.shift();
    if (open && k === '\x1b[B') selected = Math.min(options.length - 1, selected + 1);
    else if (open && k === '\x1b[A') selected = Math.max(0, selected - 1);
    else if (open && k === '\r') {
      open = false;
      fs.writeFileSync(process.argv[2], String(selected + 1));
    }
    draw();
    next();
  }, Number(process.argv[3]));
}
process.stdin.on('data', (d) => {
  for (const k of d.toString().match(/\x1b\[[AB]|[\s\S]/g)) queue.push(k);
  next();
});
draw();
`;

test('answer waits for each arrow key to show before the next: a slow agent still gets option 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-slow-'));
  const env = { ...process.env, AGENTWATCH_DIR: dir };
  // The bundled claude.toml without its [answer] table: answered with arrows and Enter.
  const arrowsOnly = join(dir, 'claude.toml');
  writeFileSync(
    arrowsOnly,
    readFileSync(CLAUDE_TOML, 'utf8').replace(/^\[answer\]\nkeys = .*$/m, ''),
  );
  const host = createHost({ intervalMs: 100 }, env, { files: [arrowsOnly] });
  try {
    const chosen = join(dir, 'chosen');
    const { w } = await startDialog(host, dir, {
      name: 'slow',
      program: SLOW_DIALOG,
      args: [chosen, String(SLOW_KEY_MS)],
      agent: 'claude',
    });
    const confirmed = await w.prompt();
    assert.equal(confirmed.options.map((o) => o.slice(0, 6)), ['1. Yes', '2. Yes', '3. No']);
    const answered = await guardedAnswer(w, 1, confirmed);
    assert.match(answered, /^2\. Yes, and don't ask again/);
    await until('the choice written', () => existsSync(chosen), 30_000);
    assert.is(readFileSync(chosen, 'utf8'), '2', 'the agent got option 2, not a later one');
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A permission panel drawn as opencode 1.18 draws its own (fixtures/opencode): a left border,
 * `△ Permission required`, the command, and a row of buttons whose selection is shown by a
 * background colour only; ←/→ move it (wrapping around at both ends, as opencode's does), Enter
 * writes the chosen button's number to the file named by argv[2]. Plain node.
 */
const BUTTON_PANEL = String.raw`
const fs = require('fs');
const out = process.stdout;
const rows = out.rows || 32;
const buttons = ['Allow once', 'Allow always', 'Reject'];
let selected = 0;
let open = true;
function draw() {
  let s = '\x1b[0m\x1b[H\x1b[2J';
  if (open) {
    const bar = '\x1b[48;2;30;30;30m';
    let row = '  \x1b[38;2;245;167;66m┃\x1b[0m' + bar + ' ';
    buttons.forEach((b, i) => {
      row += (i === selected ? '\x1b[48;2;245;167;66m' : bar) + ' ' + b + ' ' + bar + ' ';
    });
    row += bar + ' '.repeat(40) + '⇆ select  enter confirm\x1b[0m';
    const lines = ['  ┃', '  ┃  △ Permission required', '  ┃    # Shell command', '  ┃',
      '  ┃  $ touch hello.txt', '  ┃', row, '  ┃'];
    lines.forEach((l, i) => (s += '\x1b[' + (rows - lines.length + i) + ';1H' + l));
  } else {
    s += '\x1b[' + (rows - 1) + ';1H   ~/proj                    1.2K (1%)  ctrl+p commands';
  }
  out.write(s);
}
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => {
  for (const k of d.toString().match(/\x1b\[[CD]|[\s\S]/g)) {
    if (open && k === '\x1b[C') selected = (selected + 1) % buttons.length;
    else if (open && k === '\x1b[D') selected = (selected + buttons.length - 1) % buttons.length;
    else if (open && k === '\r') {
      open = false;
      fs.writeFileSync(process.argv[2], String(selected + 1));
    }
  }
  draw();
});
draw();
`;

test('answer on a row of buttons (opencode): the selection seen by its colour, moved with Right', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-buttons-'));
  const env = { ...process.env, AGENTWATCH_DIR: dir };
  const host = createHost({ intervalMs: 100 }, env);
  try {
    const chosen = join(dir, 'chosen');
    const { w } = await startDialog(host, dir, {
      name: 'buttons',
      program: BUTTON_PANEL,
      args: [chosen],
      agent: 'opencode',
    });
    const confirmed = await w.prompt();
    assert.equal(confirmed.options, ['1. Allow once', '2. Allow always', '3. Reject']);
    assert.is(confirmed.question, 'Permission required');
    assert.is(confirmed.selected, 0);
    assert.is(choiceIndex('reject', confirmed.options), 2);
    const answered = await guardedAnswer(w, 2, confirmed);
    assert.is(answered, '3. Reject');
    await until('the choice written', () => existsSync(chosen), 30_000);
    assert.is(readFileSync(chosen, 'utf8'), '3', 'the agent got Reject');
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
