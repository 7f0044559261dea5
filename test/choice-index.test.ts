/**
 * How `answer` reads CHOICE (choiceIndex, pure): an ACP option kind that two options share,
 * or the start of several options' texts, is ambiguous, and the error lists only the options
 * it matches; an unknown choice lists them all.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { choiceIndex } from '../src/runtime/typing-guard.ts';

const message = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('no error thrown');
};

test('two ACP options of one kind: the kind is ambiguous, the optionId or number is not', () => {
  const options = [
    '1. Always allow in this folder (allow_always)',
    '2. Always allow everywhere (allow_always)',
    '3. Reject (reject_once)',
  ];
  const aliases = [
    ['allow_always', 'folder'],
    ['allow_always', 'global'],
    ['reject_once', 'reject'],
  ];
  assert.is(
    message(() => choiceIndex('allow_always', options, aliases)),
    "'allow_always' is ambiguous: it matches several options: " +
      '1. Always allow in this folder (allow_always) | ' +
      '2. Always allow everywhere (allow_always) (give its number)',
  );
  assert.is(choiceIndex('global', options, aliases), 1);
  assert.is(choiceIndex('2', options, aliases), 1);
  assert.is(choiceIndex('reject_once', options, aliases), 2);
  assert.match(
    message(() => choiceIndex('allow_once', options, aliases)),
    /^'allow_once' is not an option: 1\. .* \| 2\. .* \| 3\. Reject \(reject_once\)$/,
  );
});

test('the start of several texts: ambiguous, naming only those', () => {
  const options = ['1. Yes', "2. Yes, and don't ask again", '3. No'];
  assert.is(
    message(() => choiceIndex('y', options)),
    "'y' is ambiguous: it matches several options: 1. Yes | 2. Yes, and don't ask again " +
      '(give its number)',
  );
});

test.run();
