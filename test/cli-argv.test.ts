/**
 * A command line the CLI cannot take gets our own words and exit 2, as its peers do (git, gh):
 * a near-miss command or option is named, a missing value names its placeholder. Pure parts
 * and whole command lines in-process (src/cli/app.ts `main`); one through the real process,
 * whose exit code is main's.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closest, explainBadArgs } from '../src/cli/argv-errors.ts';
import { commands } from '../src/cli/commands.ts';
import { commandHelp } from '../src/cli/app.ts';
import { cli, cliInProcess } from './support/cli.ts';

const command = (name: string) => commands.find((c) => c.name === name)!;

test('closest: a near miss, a unique prefix, nothing for a far word', () => {
  const names = ['ls', 'watch', 'wait', 'run', 'answer', 'send'];
  assert.is(closest('lss', names), 'ls');
  assert.is(closest('wacth', names), 'watch');
  assert.is(closest('answ', names), 'answer');
  assert.is(closest('wa', names), undefined, 'a prefix of two');
  assert.is(closest('bogus', names), undefined);
  assert.is(closest('xyz', names), undefined);
});

test('explainBadArgs: unknown option, missing value, value for a flag, a good line', () => {
  assert.is(
    explainBadArgs(command('ls'), ['--jsno']),
    'unknown option --jsno (did you mean --json?)',
  );
  assert.is(explainBadArgs(command('ls'), ['--bogus']), 'unknown option --bogus');
  assert.is(explainBadArgs(command('run'), ['--name']), '--name needs a value (--name NAME)');
  assert.match(explainBadArgs(command('run'), ['--name', '--agent', 'x'])!, /--name=NAME/);
  assert.is(explainBadArgs(command('ls'), ['--json=1']), "--json takes no value (got '1')");
  assert.is(explainBadArgs(command('ls'), ['--json']), undefined);
});

test('help: every option of every command listed, each with a help text; watch --help lists the board keys', () => {
  for (const c of commands) {
    const text = commandHelp(c);
    for (const name of Object.keys(c.options)) {
      assert.match(text, new RegExp(`--${name}\\b`), `${c.name} --${name}`);
      assert.ok(c.help?.[name], `${c.name} --${name} has a help text`);
    }
  }
  const watch = commandHelp(command('watch'));
  for (const key of ['Enter', 'Ctrl-]', 'a, 1-9', 'y answers', 'x ', 'q, Ctrl-C', 'n ']) {
    assert.ok(watch.includes(key), key);
  }
});

test('the real CLI: exit 2 with our words', async () => {
  const lss = await cli(['lss'], { ...process.env });
  assert.is(lss.code, 2);
  assert.match(lss.stderr, /unknown command 'lss' \(did you mean 'ls'\?\)/);
});

test('the command line: exit 2 with our words; -v is -V', async () => {
  const env = { ...process.env };
  const help = await cliInProcess(['help', 'bogus'], env);
  assert.is(help.code, 2);
  assert.match(help.stderr, /unknown command 'bogus'/);
  const bad = await cliInProcess(['ls', '--bogus'], env);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /^agentwatch ls: unknown option --bogus\n/);
  assert.not.match(bad.stderr, /Unknown option '--bogus'/, "not Node's sentence");
  const v = await cliInProcess(['-v'], env);
  const V = await cliInProcess(['-V'], env);
  assert.is(v.code, 0);
  assert.match(v.stdout, /^agentwatch /);
  assert.is(v.stdout, V.stdout);
});

test.run();
