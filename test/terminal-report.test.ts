/**
 * run's stdin: the terminal's answers to the agent's queries are no typing of the person's
 * (else a resize, after which Qwen Code 0.24.4 queries the terminal, reads as the person
 * answering its prompt and the prompt is announced again).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isTerminalReport } from '../src/runtime/terminal-report.ts';

const b = (s: string) => Buffer.from(s, 'latin1');

test('reports: cursor position, device attributes, modes, window, focus, OSC, DCS', () => {
  for (
    const s of [
      '\x1b[12;40R',
      '\x1b[?62;22c',
      '\x1b[>0;95;0c',
      '\x1b[?2004;1$y',
      '\x1b[4;2$y',
      '\x1b[?0u',
      '\x1b[?1u\x1b[?62;22c',
      '\x1b[8;32;120t',
      '\x1b[I',
      '\x1b]11;rgb:0000/0000/0000\x1b\\',
      '\x1b]10;rgb:ffff/ffff/ffff\x07',
      '\x1bP1+r544e=787465726d\x1b\\',
      '\x1b[12;40R\x1b[?62;22c',
    ]
  ) assert.ok(isTerminalReport(b(s)), JSON.stringify(s));
});

test('typing: keys, Enter, arrows, a paste, a report with a key after it', () => {
  for (
    const s of [
      '',
      '1',
      '\r',
      'y',
      '\x1b[A',
      '\x1b',
      '\x1b[200~hi\x1b[201~',
      '\x1b[12;40Rx',
      '\x1b[97u',
    ]
  ) {
    assert.not.ok(isTerminalReport(b(s)), JSON.stringify(s));
  }
});

test.run();
