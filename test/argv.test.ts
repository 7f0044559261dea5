/**
 * src/cli/argv.ts, pure: `run`'s `-- CMD ARGS...`, `watch`'s `-- CMD ... -- CMD ...` groups and
 * the command line typed at the board's `n` key, split into words.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { splitCommand, splitCommandLine, splitGroups } from '../src/cli/argv.ts';
import { UsageError } from '../src/cli/command.ts';

test('splitCommand: the command and its arguments after --', () => {
  assert.equal(splitCommand(['--', 'claude', '--resume', '-p']), {
    command: 'claude',
    args: ['--resume', '-p'],
  });
  assert.equal(splitCommand(['--', 'bash', '--', 'x']), { command: 'bash', args: ['--', 'x'] });
  assert.throws(() => splitCommand(['claude']), /put the command after '--'/);
  assert.throws(() => splitCommand([]), /no command given after '--'/);
  assert.throws(() => splitCommand(['--']), /no command given after '--'/);
  try {
    splitCommand(['claude', '--', 'x']);
    assert.unreachable();
  } catch (e) {
    assert.instance(e, UsageError, 'a usage error: exit 2');
  }
});

test('splitGroups: every -- starts a command', () => {
  assert.equal(splitGroups([]), []);
  assert.equal(splitGroups(['--', 'claude', '--resume', '--', 'codex']), [
    ['claude', '--resume'],
    ['codex'],
  ]);
  assert.equal(splitGroups(['--', 'sleep', '9']), [['sleep', '9']]);
  assert.throws(() => splitGroups(['claude']), /after '--'/);
  assert.throws(() => splitGroups(['--', 'a', '--']), /empty command/);
  assert.throws(() => splitGroups(['--', '--', 'a']), /empty command/);
});

test('splitCommandLine: blanks, quotes and backslashes', () => {
  assert.equal(splitCommandLine(`claude --append-system-prompt "be brief" 'a b' c\\ d ""`), [
    'claude',
    '--append-system-prompt',
    'be brief',
    'a b',
    'c d',
    '',
  ]);
  assert.equal(splitCommandLine('  a \t b  '), ['a', 'b'], 'runs of blanks separate once');
  assert.equal(splitCommandLine(''), []);
  assert.equal(splitCommandLine('   '), []);
  assert.equal(splitCommandLine(`"say \\"hi\\"" 'it\\s'`), ['say "hi"', 'it\\s']);
  assert.equal(splitCommandLine(`a"b c"d`), ['ab cd'], 'quotes join to the word around them');
  assert.equal(splitCommandLine('$HOME *.ts |'), ['$HOME', '*.ts', '|'], 'nothing expanded');
  assert.equal(splitCommandLine('end\\'), ['end\\'], 'a trailing backslash is kept');
  assert.throws(() => splitCommandLine('claude "oops'), /unterminated " quote/);
  assert.throws(() => splitCommandLine("claude 'oops"), /unterminated ' quote/);
});

test.run();
