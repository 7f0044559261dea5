import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Terminal } from '../src/vt/terminal.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null) => (b ? new TextDecoder().decode(b) : null);

test("OSC 7501 probe: answered on the extension queue, with the probe's own terminator", () => {
  const t = new Terminal(4, 20);
  t.write(enc('\x1b]7501;?\x07'));
  assert.is(dec(t.takeReplies()), null, 'not a standard reply (a real terminal stays silent)');
  assert.is(dec(t.takeExtensionReplies()), '\x1b]7501;?\x07');
  assert.is(t.takeExtensionReplies(), null, 'the queue empties');
  t.write(enc('\x1b]7501;?\x1b\\'));
  assert.is(dec(t.takeExtensionReplies()), '\x1b]7501;?\x1b\\');
});

test('OSC 7501 state reports are kept as the latest payload, not answered', () => {
  const t = new Terminal(4, 20);
  t.write(enc('\x1b]7501;state=blocked:app=claude-code:kind=permission\x07'));
  assert.is(t.oscPayload(7501), 'state=blocked:app=claude-code:kind=permission');
  assert.is(t.takeExtensionReplies(), null);
});

test.run();
