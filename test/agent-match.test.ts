/**
 * matchAgent, the one place that decides which agent a pane runs, on the bundled manifests:
 * the foreground leader first (by name, argv[0], or a script's argv[1]), then `--agent`, then
 * the agent matched before unless a shell came back, then the command; a removed manifest no
 * longer counts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { classifyForeground, manifestForProcess, matchAgent } from '../src/runtime/agent-match.ts';
import { loadBundledManifests } from '../src/runtime/manifest-sources.ts';
import { type ForegroundRead, UNKNOWN_FOREGROUND } from '../src/runtime/signals.ts';

const manifests = loadBundledManifests();
const read = (name: string, argv: string[] = [name]): ForegroundRead => ({ name, argv, pgid: 42 });
const fg = (name: string, argv?: string[]) => classifyForeground(read(name, argv), manifests);
const id = (m: { manifest: { id: string } | null; because: string }) =>
  `${m.manifest?.id ?? '-'} ${m.because}`;

test('classifyForeground: an agent, a shell, anything else; no read is unknown', () => {
  assert.is(fg('claude').kind, 'agent');
  assert.is(fg('node', ['node', '/usr/lib/node_modules/@openai/codex/bin/codex.js']).kind, 'agent');
  assert.is(fg('bash').kind, 'shell');
  assert.is(fg('sleep', ['sleep', '6']).kind, 'other');
  // a shell at its prompt waits for a command; one running a script runs one (tester6 F13:
  // `bash -c 'while true; do ...; done'` read `shell`)
  for (const argv of [['bash'], ['-bash'], ['bash', '-l'], ['zsh', '-i'], ['bash', '-o', 'vi']]) {
    assert.is(fg(argv[0].replace('-', ''), argv).kind, 'shell', argv.join(' '));
  }
  assert.is(fg('bash', ['bash', '--rcfile', 'my.rc', '-i']).kind, 'shell');
  assert.is(fg('sh', ['sh', '-s']).kind, 'shell');
  assert.is(fg('bash', []).kind, 'shell', 'argv not read');
  for (
    const argv of [
      ['bash', '-c', 'while true; do date; sleep 1; done'],
      ['sh', '-ec', 'make'],
      ['bash', 'deploy.sh'],
      ['bash', '-x', './deploy.sh', 'prod'],
      ['bash', '-O', 'extglob', 'run.sh'],
      ['bash', '--', 'run.sh'],
      ['fish', '--command', 'ls'],
      ['pwsh', '-File', 'x.ps1'],
    ]
  ) assert.is(fg(argv[0], argv).kind, 'other', argv.join(' '));
  assert.is(fg('login', ['login', '-p', '--', 'ada']).kind, 'shell', 'login waits for the person');
  assert.equal(classifyForeground(null, manifests), UNKNOWN_FOREGROUND);
  const f = fg('vim', ['vim', 'notes.md']);
  assert.equal(f, { kind: 'other', name: 'vim', argv: ['vim', 'notes.md'], pgid: 42 });
});

test('manifestForProcess: name, argv[0], a script under an interpreter, suffixes and case', () => {
  assert.is(manifestForProcess(manifests, read('claude'))?.id, 'claude');
  assert.is(manifestForProcess(manifests, read('x', ['/opt/bin/Claude.exe']))?.id, 'claude');
  assert.is(manifestForProcess(manifests, read('node', ['node', '/x/gemini.js']))?.id, 'gemini');
  assert.is(manifestForProcess(manifests, read('bash', ['bash', '-l'])), null);
});

test('matchAgent: the foreground leader wins over --agent and the command', () => {
  const m = matchAgent(
    { forced: 'codex', foreground: fg('claude'), command: ['gemini'], previous: 'gemini' },
    manifests,
  );
  assert.is(id(m), 'claude foreground');
});

test('matchAgent: --agent when the leader is no agent; unknown ids do not count', () => {
  assert.is(
    id(matchAgent({ forced: 'codex', foreground: fg('node'), command: ['x'] }, manifests)),
    'codex forced',
  );
  assert.is(
    id(matchAgent({ forced: 'nope', foreground: fg('bash'), command: ['bash'] }, manifests)),
    '- none',
  );
});

test('matchAgent: a command the agent opened keeps it; a shell back in front drops it', () => {
  const editor = { foreground: fg('vim'), command: ['bash'], previous: 'claude' };
  assert.is(id(matchAgent(editor, manifests)), 'claude previous', 'Ctrl-G opened $EDITOR');
  const shell = { foreground: fg('bash'), command: ['bash'], previous: 'claude' };
  assert.is(id(matchAgent(shell, manifests)), '- none', 'the agent ended');
  const sleep = { foreground: fg('sleep', ['sleep', '6']), command: ['bash'] };
  assert.is(id(matchAgent(sleep, manifests)), '- none', 'a command that is no agent: running');
});

test('matchAgent: no foreground read keeps what was matched, else --agent, else the command', () => {
  const none = UNKNOWN_FOREGROUND;
  assert.is(
    id(
      matchAgent(
        { foreground: none, command: ['x'], previous: 'qwen', forced: 'codex' },
        manifests,
      ),
    ),
    'qwen previous',
  );
  assert.is(
    id(matchAgent({ foreground: none, command: ['x'], forced: 'codex' }, manifests)),
    'codex forced',
  );
  assert.is(
    id(matchAgent({ foreground: none, command: ['node', 'sim/claude.js'] }, manifests)),
    'claude command',
  );
  assert.is(id(matchAgent({ foreground: none, command: [] }, manifests)), '- none');
});

test('matchAgent: a manifest removed by a reload no longer counts as the previous one', () => {
  const fewer = new Map([...manifests].filter(([k]) => k !== 'claude'));
  const m = matchAgent(
    { foreground: UNKNOWN_FOREGROUND, command: ['bash'], previous: 'claude' },
    fewer,
  );
  assert.is(id(m), '- none');
  const reloaded = new Map(manifests);
  const same = matchAgent(
    { foreground: UNKNOWN_FOREGROUND, command: ['bash'], previous: 'claude' },
    reloaded,
  );
  assert.is(same.manifest, reloaded.get('claude'), 'the manifest now in force, by id');
});

test.run();
