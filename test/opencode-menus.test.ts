/**
 * opencode 1.18.33's pickers over its composer, captured on the real binary
 * (test/support/capture-opencode.ts; fixtures/opencode/marked/ocmenus.* at 32x120 and
 * fixtures/opencode-60/marked/ocmenus60.* at 24x60): the command palette (Ctrl-P), the same
 * with `new` typed into its search field, the `/` commands list, the model picker (Ctrl-X m),
 * the session list (Ctrl-X l) and the theme picker (/themes). The pane reads idle under each, and at 120 columns the
 * composer stays drawn under the dialog, empty: `send o1 "new session"` typed into the palette's
 * search field and its Enter ran `New session` (a fresh tester). Now the manifest's `[input]
 * menu` patterns tell each one (`inputBox` says 'menu'), no other opencode screen (idle with the
 * composer empty or holding a draft, blocked, working, in every fixture and every frame of
 * every opencode recording outside a picker), and `send` to a pane replaying the palette is
 * refused (exit 3, "shows a menu or dialog over its input box") with nothing typed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate, inputBox } from '../src/detect/evaluate.ts';
import { parseManifest } from '../src/detect/manifest.ts';
import { UserError } from '../src/errors.ts';
import { readRecording } from '../src/runtime/recording.ts';
import { GUARD_EXIT } from '../src/runtime/typing-guard.ts';
import { Terminal } from '../src/vt/terminal.ts';
import { REPO_ROOT } from './support/claude-home.ts';
import { privateHost } from './support/hosted-agent.ts';
import { until } from './support/until.ts';

const OC = join(REPO_ROOT, 'fixtures', 'opencode');
const OC60 = join(REPO_ROOT, 'fixtures', 'opencode-60');
const TOML = join(REPO_ROOT, 'resources', 'agent-detection', 'opencode.toml');
const bundled = parseManifest(readFileSync(TOML, 'utf8'), TOML);

type Labels = Record<string, string | { state: string; size: string }>;

/** The fixtures of a folder with their state and size (rows, cols). */
function fixtures(dir: string): Array<[string, string, number, number]> {
  const labels: Labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8'));
  return Object.entries(labels).map(([file, e]) => {
    const [rows, cols] = typeof e === 'string' ? [32, 120] : e.size.split('x').map(Number);
    return [file, typeof e === 'string' ? e : e.state, rows, cols];
  });
}

function render(file: string, rows: number, cols: number): Terminal {
  const t = new Terminal(rows, cols);
  t.write(new Uint8Array(readFileSync(file)));
  return t;
}

const PICKERS = [
  'menus.v118-palette-start',
  'menus.v118-palette',
  'menus.v118-palette-search',
  'pickers.v118-slash',
  'pickers.v118-model',
  'pickers.v118-sessions',
  'pickers.v118-themes',
];

test('every captured picker, at 120 and 60 columns, reads idle with a menu over the composer', () => {
  for (
    const [dir, kase, rows, cols] of [[OC, 'v118-', 32, 120], [OC60, 'v118-60-', 24, 60]] as const
  ) {
    for (const p of PICKERS) {
      const file = join(dir, `opencode.idle.${p.replace('v118-', kase)}.raw`);
      const t = render(file, rows, cols);
      const snap = t.snapshot();
      assert.is(evaluate(snap, bundled).state, 'idle', file);
      assert.is(inputBox(snap, bundled), 'menu', `${file}\n${t.screenText()}`);
    }
    // the picker closed (Esc) and a draft typed: the composer holds it
    const after = render(join(dir, `opencode.idle.${kase}after-menus-typed.raw`), rows, cols);
    assert.is(inputBox(after.snapshot(), bundled), 'text', after.screenText());
  }
});

test('no other opencode fixture shows a menu: idle (empty, placeholder, draft), blocked, working', () => {
  let n = 0;
  for (const dir of [OC, OC60, join(REPO_ROOT, 'fixtures', 'opencode-90')]) {
    for (const [file, state, rows, cols] of fixtures(dir)) {
      if (/\.(?:menus|pickers)\./.test(file)) continue;
      const t = render(join(dir, file), rows, cols);
      assert.is.not(inputBox(t.snapshot(), bundled), 'menu', `${file} (${state})`);
      n++;
    }
  }
  assert.ok(n >= 36, `${n} fixtures`);
});

/** Each chunk's time in a recording and the inputBox after it (resizes applied), from its start. */
function boxes(dir: string, name: string): Array<{ t: number; box: string | null }> {
  const rec = readRecording(join(dir, name));
  const term = new Terminal(rec.meta.rows, rec.meta.cols);
  const resizes = [...rec.meta.resizes];
  const out: Array<{ t: number; box: string | null }> = [];
  for (const c of rec.chunks) {
    while (resizes.length && resizes[0].t <= c.t) {
      const r = resizes.shift()!;
      term.resize(r.rows, r.cols);
    }
    term.write(c.bytes);
    out.push({ t: c.t, box: inputBox(term.snapshot(), bundled) });
  }
  return out;
}

test('every frame of the opencode recordings: a menu only while a picker or the / list shows', () => {
  const dirs: Array<[string, string[]]> = [
    [join(OC, 'marked'), [
      'ocdraft',
      'ocnarrow',
      'ocplaceholder',
      'ocqnarrow',
      'ocresize',
      'ocshort',
    ]],
    [join(REPO_ROOT, 'fixtures', 'opencode-90', 'marked'), ['ocdraft90', 'ocprompt90']],
  ];
  for (const [dir, names] of dirs) {
    for (const name of names) {
      const hits = boxes(dir, name).filter((f) => f.box === 'menu');
      assert.equal(hits, [], `${name}: ${hits.map((h) => h.t).join(' ')}`);
    }
  }
  // ocq and ocq90 end with `/exit` typed into the composer: opencode's `/` list shows there,
  // and only there
  for (const [dir, name] of [[OC, 'ocq'], [join(REPO_ROOT, 'fixtures', 'opencode-90'), 'ocq90']]) {
    const input = readFileSync(join(dir, 'marked', `${name}.input.jsonl`), 'utf8').trim().split(
      '\n',
    )
      .map((l) => JSON.parse(l) as { t: number; keys: string });
    const exit = input.find((k) => k.keys === '/exit')!;
    const hits = boxes(join(dir, 'marked'), name).filter((f) => f.box === 'menu');
    assert.ok(hits.length > 0, name);
    assert.ok(hits.every((h) => h.t >= exit.t), `${name}: ${hits.map((h) => h.t).join(' ')}`);
  }
  // the pickers' recordings: at each mark, a menu exactly when the mark says a picker shows
  for (const [dir, name] of [[OC, 'ocmenus'], [OC60, 'ocmenus60']]) {
    const frames = boxes(join(dir, 'marked'), name);
    for (const mark of readRecording(join(dir, 'marked', name)).truth) {
      const at = frames.filter((f) => f.t <= mark.t).at(-1)!;
      const picker = /palette|list|picker/.test(mark.why);
      assert.is(at.box === 'menu', picker, `${name} at ${mark.t}: ${mark.why}: ${at.box}`);
    }
  }
});

/**
 * argv LOG FILE: puts its tty in raw mode, writes FILE's bytes (a captured opencode screen),
 * then logs every key read (`K <hex>`) and draws nothing more.
 */
const PLAY = String.raw`
const fs = require('fs');
const [log, file] = process.argv.slice(2);
// raw before the screen: in cooked mode the tty would echo the emulator's answers to the
// capture's queries onto the screen (as opencode's own raw mode does not)
process.stdin.setRawMode(true);
process.stdout.write(fs.readFileSync(file));
process.stdin.on('data', (d) => fs.appendFileSync(log, 'K ' + d.toString('hex') + '\n'));
`;

test('send and send --append to a pane replaying the command palette: refused, exit 3, nothing typed', async () => {
  const { dir, host, close } = privateHost('aw-ocmenu-');
  try {
    const script = join(dir, 'play.cjs');
    writeFileSync(script, PLAY);
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const session = await host.start({
      command: process.execPath,
      args: [script, log, join(OC, 'opencode.idle.menus.v118-palette.raw')],
      name: 'o1',
      agent: 'opencode',
      headless: true,
      rows: 32,
      cols: 120,
    });
    const w = host.ptyPane(session.id)!;
    await until('the palette, idle', () => {
      w.classifyNow();
      return w.record.state === 'idle' && /Commands {3,}esc$/m.test(session.terminal.screenText());
    });
    for (const [text, append] of [['new session', false], ['x', true]] as const) {
      const err = await w.send(text, { enter: true, append }).then(() => undefined, (e) => e);
      assert.instance(err, UserError, `${text}: refused`);
      assert.is((err as UserError).exitCode, GUARD_EXIT);
      const said = (err as UserError).message;
      assert.ok(/shows a menu or dialog over its input box/.test(said), said);
    }
    // the log holds the emulator's answers to the capture's terminal queries (ESC ...) too
    const typed = readFileSync(log, 'utf8').split('\n').filter((l) => l && !l.startsWith('K 1b'));
    assert.equal(typed, [], 'nothing typed into the palette');
  } finally {
    await close();
  }
});

test.run();
