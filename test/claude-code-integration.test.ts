/**
 * The Claude Code integration's pure parts (src/runtime/integrations/claude-code.ts):
 * - reportFromHook over every hook event of a real Claude Code 2.1.332 session
 *   (fixtures/claude-code/recordings/hooks.hooks.jsonl), in order: the state each gives,
 *   idle_prompt never blocked, AskUserQuestion's PreToolUse blocked, Bash's working;
 * - payloads Claude Code may send that the recording lacks: ExitPlanMode, elicitation_dialog,
 *   a PreToolUse payload cut short (the tool still named), malformed and non-object
 *   Notification payloads (an error, no state), an event agentwatch does not install (null);
 * - the settings install exactly the events of CLAUDE_HOOKS, and each has a reading;
 * - `report --help` and `notify --help` print the one help of hook-commands.ts (main.ts sends
 *   them to the app, not to the hook runner), exit 0.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { notifyCommand, reportCommand } from '../src/cli/hook-commands.ts';
import {
  CLAUDE_HOOKS,
  claudeHookSettings,
  reportFromHook,
} from '../src/runtime/integrations/claude-code.ts';
import { agentwatchArgv } from './support/cli.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HOOKS = join(ROOT, 'fixtures/claude-code/recordings/hooks.hooks.jsonl');

test('reportFromHook over the recorded hooks of a real session: each event, in order', () => {
  const events = readFileSync(HOOKS, 'utf8').trim().split('\n').map((l) =>
    JSON.parse(l) as { hook: string; payload: unknown }
  );
  const got = events.map((e) => {
    const r = reportFromHook(e.hook, JSON.stringify(e.payload));
    return r?.ok ? `${e.hook} ${r.state} (${r.source})` : `${e.hook} ${JSON.stringify(r)}`;
  });
  const round = (tool: string) => [
    'UserPromptSubmit working (report working)',
    `PreToolUse ${tool === 'AskUserQuestion' ? 'blocked' : 'working'} (hook PreToolUse ${tool})`,
    'PermissionRequest blocked (report blocked)',
    'Notification blocked (notify permission_prompt)',
    'Stop idle (report done)',
    'Notification idle (notify idle_prompt)',
  ];
  assert.equal(got, [...round('Bash'), ...round('AskUserQuestion')]);
});

test('reportFromHook: ExitPlanMode blocks; dialogs that wait for the person block; other notifications idle', () => {
  const pre = (p: unknown) => reportFromHook('PreToolUse', JSON.stringify(p));
  assert.equal(pre({ tool_name: 'ExitPlanMode' }), {
    ok: true,
    state: 'blocked',
    source: 'hook PreToolUse ExitPlanMode',
  });
  assert.equal(pre({ tool_name: 'Edit' }), {
    ok: true,
    state: 'working',
    source: 'hook PreToolUse Edit',
  });
  const note = (type: unknown) =>
    reportFromHook('Notification', JSON.stringify({ notification_type: type }));
  assert.equal(note('elicitation_dialog'), {
    ok: true,
    state: 'blocked',
    source: 'notify elicitation_dialog',
  });
  // tester9: auto mode's "can't check actions" dialog sent agent_needs_input and read idle
  for (const type of ['agent_needs_input', 'worker_permission_prompt', 'permission_prompt']) {
    assert.equal(note(type), { ok: true, state: 'blocked', source: `notify ${type}` });
  }
  assert.equal(note('auth_success'), { ok: true, state: 'idle', source: 'notify auth_success' });
  assert.equal(note('idle_prompt'), { ok: true, state: 'idle', source: 'notify idle_prompt' });
  assert.equal(note(7), { ok: true, state: 'idle', source: 'notify (none)' });
});

test('reportFromHook: a PreToolUse payload cut short still names its tool; garbage is working', () => {
  const whole = JSON.stringify({
    session_id: 's',
    hook_event_name: 'PreToolUse',
    tool_name: 'AskUserQuestion',
    tool_input: { questions: ['x'.repeat(1000)] },
  });
  assert.equal(reportFromHook('PreToolUse', whole.slice(0, 200)), {
    ok: true,
    state: 'blocked',
    source: 'hook PreToolUse AskUserQuestion',
  });
  assert.equal(reportFromHook('PreToolUse', 'not json'), {
    ok: true,
    state: 'working',
    source: 'hook PreToolUse',
  });
  assert.equal(reportFromHook('PreToolUse', 'null'), {
    ok: true,
    state: 'working',
    source: 'hook PreToolUse',
  });
  const long = reportFromHook('PreToolUse', JSON.stringify({ tool_name: 'm'.repeat(500) }));
  assert.is(long?.ok && long.source, `hook PreToolUse ${'m'.repeat(40)}`);
});

test('reportFromHook: a malformed Notification is an error naming it; unknown events say nothing', () => {
  const bad = reportFromHook('Notification', '{"notification_type": "permission_pro');
  assert.is(bad?.ok, false);
  assert.match(!bad?.ok ? bad!.error : '', /^notify: payload is not JSON: "\{\\"notification_type/);
  assert.equal(reportFromHook('Notification', '[1]'), {
    ok: false,
    error: 'notify: payload is not a JSON object',
  });
  assert.is(reportFromHook('SessionStart', '{}'), null);
  assert.is(reportFromHook('', ''), null);
});

test('the settings install exactly CLAUDE_HOOKS, and every installed event has a reading', () => {
  const settings = claudeHookSettings(['/usr/bin/agentwatch']);
  assert.equal(Object.keys(settings.hooks), CLAUDE_HOOKS.map((h) => h.event));
  for (const h of CLAUDE_HOOKS) {
    const [entry] = settings.hooks[h.event] as { matcher?: string; hooks: { command: string }[] }[];
    assert.is(entry.matcher, h.matcher);
    assert.is(entry.hooks[0].command, `/usr/bin/agentwatch ${h.command} >/dev/null 2>&1 || true`);
    const payload = h.event === 'Notification' ? '{"notification_type":"idle_prompt"}' : '{}';
    assert.ok(reportFromHook(h.event, payload)?.ok, h.event);
  }
});

test('report --help and notify --help: the help of hook-commands.ts, once', () => {
  for (const cmd of [reportCommand, notifyCommand]) {
    const r = spawnSync(
      process.execPath,
      agentwatchArgv([cmd.name, '--help']),
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    assert.is(r.status, 0, r.stderr);
    assert.ok(r.stdout.startsWith(`usage: agentwatch ${cmd.usage}\n`), r.stdout);
    assert.ok(r.stdout.includes(cmd.summary), r.stdout);
  }
});

test.run();
