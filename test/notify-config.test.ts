import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'smol-toml';
import {
  NOTIFY_DEFAULTS,
  NotifyConfigError,
  readNotifyTable,
  resolveNotify,
} from '../src/runtime/notify-config.ts';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { notifyFlags, notifySettings } from '../src/cli/sweep-options.ts';
import { RunTitle, runTitle, setsTitle } from '../src/cli/run-title.ts';

test('[notify]: every key read from TOML, flags override it', () => {
  const toml = parse(`
[notify]
desktop = false
done = true
command = "say hi"
url = "https://ntfy.sh/my-topic"
format = "text"
include_text = true
focus_ms = 3000
`);
  const config = readNotifyTable(toml.notify, '~/.config/agentwatch/config.toml');
  assert.equal(config, {
    desktop: false,
    done: true,
    command: 'say hi',
    url: 'https://ntfy.sh/my-topic',
    format: 'text',
    includeText: true,
    focusMs: 3000,
  });
  const o = resolveNotify(config, notifyFlags({ 'notify-format': 'json', 'notify-cmd': 'x' }));
  assert.is(o.format, 'json');
  assert.is(o.command, 'x');
  assert.is(o.desktop, false);
  assert.is(o.terminal, true);
  assert.equal(resolveNotify({}, {}), NOTIFY_DEFAULTS);
  assert.equal(readNotifyTable(undefined), {});
});

test('[notify]: errors name the file and the key', () => {
  const bad: Array<[unknown, RegExp]> = [
    [{ desktp: true }, /cfg: unknown key notify\.desktp \(known: desktop,/],
    [{ desktop: 'yes' }, /cfg: notify\.desktop must be true or false/],
    [{ format: 'xml' }, /notify\.format must be "json" or "text"/],
    [{ url: 'ftp://x' }, /notify\.url must be an http or https URL/],
    [{ command: '' }, /notify\.command must be a non-empty string/],
    [{ focus_ms: -1 }, /notify\.focus_ms must be a whole number/],
    [[1], /\[notify\] must be a table/],
  ];
  for (const [table, message] of bad) {
    assert.throws(
      () => readNotifyTable(table, 'cfg'),
      (e: Error) => e instanceof NotifyConfigError && message.test(e.message),
    );
  }
  assert.throws(
    () => notifyFlags({ 'notify-format': 'xml' }),
    /--notify-format must be json or text/,
  );
  assert.throws(
    () => notifyFlags({ 'notify-url': 'localhost:80' }),
    /--notify-url must be an http/,
  );
});

test('the config file: [notify] read from $XDG_CONFIG_HOME/agentwatch/config.toml, flags win', () => {
  const home = mkdtempSync(join(tmpdir(), 'aw-notify-cfg-'));
  try {
    mkdirSync(join(home, 'agentwatch'));
    const file = join(home, 'agentwatch', 'config.toml');
    writeFileSync(file, '[notify]\ndesktop = false\nurl = "http://127.0.0.1:9/x"\n');
    const env = { XDG_CONFIG_HOME: home, HOME: home };
    const o = notifySettings({}, env);
    assert.is(o.desktop, false);
    assert.is(o.url, 'http://127.0.0.1:9/x');
    assert.is(
      notifySettings({ 'notify-url': 'https://example.org/h' }, env).url,
      'https://example.org/h',
    );
    writeFileSync(file, '[notify]\ndesktp = false\n');
    assert.throws(
      () => notifySettings({}, env),
      (e: Error) => e.message.includes(file) && e.message.includes('unknown key notify.desktp'),
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("run's title: the state before the agent's own title, saved and restored", () => {
  assert.is(runTitle('blocked', '✳ Claude Code'), '[blocked] ✳ Claude Code');
  assert.is(runTitle('idle', ''), '[idle]');
  assert.ok(setsTitle(new TextEncoder().encode('x\x1b]0;✳ Claude Code\x07')));
  assert.not.ok(setsTitle(new TextEncoder().encode('x\x1b]7;file://h/p\x07')));
  assert.is(runTitle('working', 'a\x1b]0;x\x07b'), '[working] a ]0;x b');
  const out: string[] = [];
  const t = new RunTitle((s) => out.push(s));
  t.update('idle', 'x'); // not started: nothing
  t.start();
  t.update('idle', 'Claude');
  t.update('idle', 'Claude'); // unchanged: nothing
  t.update('blocked', 'Claude');
  t.update('blocked', 'Claude', true); // the agent wrote its own title over ours
  t.restore();
  assert.equal(out, [
    '\x1b[22;0t',
    '\x1b]2;[idle] Claude\x07',
    '\x1b]2;[blocked] Claude\x07',
    '\x1b]2;[blocked] Claude\x07',
    '\x1b[23;0t',
  ]);
});

test.run();
