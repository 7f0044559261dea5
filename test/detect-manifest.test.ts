/**
 * Manifest schema v1: parsing, validation errors (file, line, path, value) and compilation.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManifestError } from '../src/detect/errors.ts';
import { evaluate } from '../src/detect/evaluate.ts';
import { parseManifest } from '../src/detect/manifest.ts';
import { locateLine } from '../src/detect/toml-lines.ts';
import type { ScreenInput } from '../src/detect/types.ts';

const HEAD = `schema = 1
id = "demo"
name = "Demo agent"
version = "1.0"
process = ["demo"]
`;

/** The ManifestError that parsing `text` throws (fails the test when it does not throw). */
function errorOf(text: string, source = 'demo.toml'): ManifestError {
  try {
    parseManifest(text, source);
  } catch (e) {
    if (e instanceof ManifestError) return e;
    throw e;
  }
  assert.unreachable(`expected a ManifestError for:\n${text}`);
  throw new Error('unreachable');
}

test('a valid manifest compiles: fields, rules, regions, examples', () => {
  const m = parseManifest(
    HEAD +
      `
[[rules]]
name = "dialog"
state = "blocked"
region = { bottom = 6 }
all = ['^\\s*❯ \\d+\\.', 'Esc to cancel\\z']
none = ['esc to interrupt']

[[rules]]
state = "working"
region = "below_last_rule"
any = ['esc to interrupt']

[[rules]]
state = "idle"
region = { osc = 7501 }
any = ['state=idle']

[[examples]]
name = "first"
state = "idle"
screen = """
hello
"""
title = "t"
osc = { 7501 = "state=idle:app=x" }
`,
    'demo.toml',
  );
  assert.is(m.id, 'demo');
  assert.is(m.name, 'Demo agent');
  assert.is(m.version, '1.0');
  assert.equal(m.process, ['demo']);
  assert.is(m.source, 'demo.toml');
  assert.is(m.rules.length, 3);
  assert.equal(m.rules[0].region, { kind: 'bottom', lines: 6 });
  assert.is(m.rules[0].regionLabel, 'bottom 6');
  assert.is(m.rules[0].name, 'dialog');
  assert.equal(m.rules[0].all.map((p) => p.source), ['^\\s*❯ \\d+\\.', 'Esc to cancel\\z']);
  assert.is(m.rules[0].any.length, 0);
  assert.equal(m.rules[1].region, { kind: 'below_last_rule' });
  assert.is(m.rules[1].name, null);
  assert.equal(m.rules[2].region, { kind: 'osc', number: 7501 });
  assert.is(m.rules[2].regionLabel, 'osc 7501');
  assert.is(m.examples.length, 1);
  assert.is(m.examples[0].screen, 'hello\n');
  assert.is(m.examples[0].title, 't');
  assert.is(m.examples[0].osc.get(7501), 'state=idle:app=x');
});

test('[answer] keys: digit or arrows; absent: none; anything else names the key', () => {
  const rule = `[[rules]]\nstate = "idle"\nany = ["x"]\n`;
  assert.equal(parseManifest(HEAD + `[answer]\nkeys = "digit"\n` + rule, 'd.toml').answer, {
    keys: 'digit',
  });
  assert.equal(parseManifest(HEAD + `[answer]\nkeys = "arrows"\n` + rule, 'd.toml').answer, {
    keys: 'arrows',
  });
  assert.is(parseManifest(HEAD + rule, 'd.toml').answer, null);
  const bad = errorOf(HEAD + `[answer]\nkeys = "numbers"\n` + rule);
  assert.is(bad.path, 'answer.keys');
  assert.match(bad.detail, /expected one of 'arrows', 'digit', got 'numbers'/);
  const typo = errorOf(HEAD + `[answer]\nkey = "digit"\n` + rule);
  assert.match(typo.detail, /unknown key 'key' \(expected one of keys\)/);
  assert.match(errorOf(HEAD + `answer = "digit"\n` + rule).detail, /expected a table, got/);
  assert.match(errorOf(HEAD + `[answer]\nkeys = 1\n` + rule).detail, /got (an? )?(integer|number)/);
});

test('region defaults to the whole screen', () => {
  const m = parseManifest(HEAD + `[[rules]]\nstate = "idle"\nany = ["x"]\n`, 'd.toml');
  assert.equal(m.rules[0].region, { kind: 'screen' });
  assert.is(m.rules[0].regionLabel, 'screen');
});

test('TOML syntax error: names the file and smol-toml line', () => {
  const e = errorOf(HEAD + `[[rules]]\nstate = "idle"\nany = ["x",\n  3 4]\n`);
  assert.is(e.line, 9);
  assert.match(e.message, /^demo\.toml:9: TOML syntax error: /);
});

test('invalid regex: file, line of the pattern, rule index, field, pattern and RE2 reason', () => {
  const text = HEAD +
    `
[[rules]]
state = "blocked"
any = [
  'Do you want to proceed',
  'Esc to cancel',
  'Do (you',
]
`;
  const e = errorOf(text, 'claude.toml');
  assert.is(
    e.message,
    "claude.toml:12: rules[0].any[2]: invalid regex 'Do (you': missing closing )",
  );
  assert.is(e.line, 12);
  assert.is(e.path, 'rules[0].any[2]');
  assert.is(e.source, 'claude.toml');
});

test('invalid regex in a basic (escaped) string is found on its line too', () => {
  const e = errorOf(HEAD + `[[rules]]\nstate = "idle"\nall = ["ok", "a\\\\d{2000}"]\n`);
  assert.is(e.line, 8);
  assert.is(e.path, 'rules[0].all[1]');
  assert.match(e.detail, /invalid regex 'a\\d\{2000\}': invalid repeat count/);
});

test('look-around is rejected (RE2 has none, like the Rust regex crate)', () => {
  const e = errorOf(HEAD + `[[rules]]\nstate = "idle"\nany = ['(?<=a)b']\n`);
  assert.is(e.path, 'rules[0].any[0]');
  assert.match(e.detail, /^invalid regex/);
});

test('unknown key in a rule names it and lists the valid keys (a typo must not disable a rule)', () => {
  const e = errorOf(
    HEAD + `[[rules]]\nstate = "idle"\nany = ["x"]\n\n[[rules]]\nstate = "blocked"\nal = ["y"]\n`,
  );
  assert.is(
    e.message,
    "demo.toml:12: rules[1].al: unknown key 'al' (expected one of state, name, region, any, all, none)",
  );
});

test('unknown top-level key and unknown example key are errors', () => {
  const top = errorOf(
    HEAD + `integration = { hooks = true }\n[[rules]]\nstate = "idle"\nany = ["x"]\n`,
  );
  assert.is(top.line, 6);
  assert.is(top.path, 'integration');
  assert.match(
    top.detail,
    /^unknown key 'integration' \(expected one of schema, id, name, version, min_engine, process, rules, examples, integrations, input, activity, answer\)$/,
  );
  const hooks = errorOf(
    HEAD + `integrations = { hooks = "nope" }\n[[rules]]\nstate = "idle"\nany = ["x"]\n`,
  );
  assert.is(hooks.path, 'integrations.hooks');
  assert.match(hooks.detail, /unknown hook set 'nope' \(known: claude-code\)/);
  const ok = parseManifest(
    HEAD +
      `[integrations]\nhooks = "claude-code"\nacp = "claude-agent-acp"\n[[rules]]\nstate = "idle"\nany = ["x"]\n`,
    'ok.toml',
  );
  assert.equal(ok.integrations, { hooks: 'claude-code', acp: 'claude-agent-acp' });
  const ex = errorOf(
    HEAD +
      `[[rules]]\nstate = "idle"\nany = ["x"]\n[[examples]]\nstate = "idle"\nscreen = "a"\nscren = "b"\n`,
  );
  assert.is(ex.path, 'examples[0].scren');
  assert.is(ex.line, 12);
});

test('wrong types are errors with the found type', () => {
  assert.is(
    errorOf(HEAD + `[[rules]]\nstate = "idle"\nany = "x"\n`).message,
    'demo.toml:8: rules[0].any: expected an array of patterns, got a string',
  );
  assert.is(
    errorOf(HEAD + `[[rules]]\nstate = "idle"\nany = ["x", 3]\n`).message,
    'demo.toml:8: rules[0].any[1]: expected a pattern string, got an integer',
  );
  assert.is(errorOf(HEAD + `[[rules]]\nstate = 1\nany = ["x"]\n`).path, 'rules[0].state');
  assert.is(
    errorOf(
      HEAD.replace('name = "Demo agent"', 'name = true') +
        `[[rules]]\nstate = "idle"\nany = ["x"]\n`,
    ).path,
    'name',
  );
  assert.is(
    errorOf(
      HEAD.replace('process = ["demo"]', 'process = "demo"') +
        `[[rules]]\nstate = "idle"\nany = ["x"]\n`,
    ).path,
    'process',
  );
  assert.is(
    errorOf(HEAD + `rules = 3\n`).message,
    'demo.toml:6: rules: expected an array of [[rules]] tables, got an integer',
  );
});

test('empty pattern lists, empty patterns and rules without any/all are errors', () => {
  assert.is(
    errorOf(HEAD + `[[rules]]\nstate = "idle"\nany = ["x"]\nall = []\n`).message,
    "demo.toml:9: rules[0].all: empty pattern list (remove 'all' or give at least one pattern)",
  );
  assert.match(errorOf(HEAD + `[[rules]]\nstate = "idle"\nany = [""]\n`).detail, /empty pattern/);
  const e = errorOf(HEAD + `[[rules]]\nstate = "idle"\nnone = ["x"]\n`);
  assert.is(e.path, 'rules[0]');
  assert.is(e.line, 6);
  assert.match(e.detail, /needs 'any' or 'all'/);
});

test('bad state is an error naming the valid states', () => {
  const e = errorOf(HEAD + `[[rules]]\nstate = "waiting"\nany = ["x"]\n`);
  assert.is(
    e.message,
    "demo.toml:7: rules[0].state: invalid state 'waiting' (expected one of blocked, working, idle)",
  );
});

test('bad regions are errors', () => {
  const cases: Array<[string, RegExp]> = [
    ['"bottom"', /unknown region 'bottom'/],
    ['{ bottom = 0 }', /bottom must be an integer from 1 to 1000/],
    ['{ bottom = 2.5 }', /bottom must be an integer/],
    ['{ top = 3 }', /exactly one key, bottom or osc/],
    ['{ bottom = 2, osc = 7501 }', /exactly one key/],
    ['{ osc = "7501" }', /osc must be an integer/],
    ['7', /region must be a string or a table/],
  ];
  for (const [value, re] of cases) {
    const e = errorOf(HEAD + `[[rules]]\nstate = "idle"\nregion = ${value}\nany = ["x"]\n`);
    assert.is(e.path, 'rules[0].region', value);
    assert.is(e.line, 8, value);
    assert.match(e.detail, re, value);
  }
});

test('header errors: schema, id, missing keys, no rules', () => {
  assert.match(
    errorOf(HEAD.replace('schema = 1', 'schema = 2') + `[[rules]]\nstate = "idle"\nany = ["x"]\n`)
      .message,
    /^demo\.toml:1: schema: unsupported schema 2/,
  );
  assert.match(
    errorOf(HEAD.replace('schema = 1\n', '') + `[[rules]]\nstate = "idle"\nany = ["x"]\n`).detail,
    /missing required key 'schema'/,
  );
  assert.match(
    errorOf(HEAD.replace('"demo"', '"Demo Agent"') + `[[rules]]\nstate = "idle"\nany = ["x"]\n`)
      .message,
    /^demo\.toml:2: id: invalid id 'Demo Agent'/,
  );
  assert.match(errorOf(HEAD).detail, /missing required key 'rules'/);
  assert.match(errorOf(HEAD + 'rules = []\n').detail, /no rules/);
  assert.match(
    errorOf(
      HEAD.replace('process = ["demo"]', 'process = []') +
        `[[rules]]\nstate = "idle"\nany = ["x"]\n`,
    ).detail,
    /empty process list/,
  );
});

test('example errors: bad OSC number, missing screen', () => {
  const base = HEAD + `[[rules]]\nstate = "idle"\nany = ["x"]\n[[examples]]\nstate = "idle"\n`;
  assert.is(errorOf(base + `screen = "a"\nosc = { x = "y" }\n`).path, 'examples[0].osc.x');
  assert.match(errorOf(base + `title = "t"\n`).detail, /missing required key 'screen'/);
});

test('locateLine skips multi-line strings that look like headers or keys', () => {
  const text = `a = 1\nscreen = '''\n[[rules]]\nal = 2\n'''\n[[rules]]\nstate = "x"\nal = 3\n`;
  assert.is(locateLine(text, ['rules', 0, 'al']), 8);
  assert.is(locateLine(text, ['a']), 1);
  assert.is(locateLine(text, ['rules', 5, 'al']), null);
});

test('a catastrophic pattern compiles and runs in linear time on a 100 KB screen', () => {
  const m = parseManifest(
    HEAD + `[[rules]]\nstate = "blocked"\nany = ['(a+)+$', '(x+x+)+y', '^(\\w+\\s?)*!$']\n`,
    'redos.toml',
  );
  // Rows of 'a's that end in a character that defeats `$`: a backtracking engine takes
  // exponential time on each row; RE2 takes one pass.
  const rows = Array.from({ length: 850 }, () => 'a'.repeat(119) + 'b');
  const screen: ScreenInput = { rows, wrapped: rows.map(() => false), title: '', osc: new Map() };
  assert.ok(rows.join('\n').length > 100_000);
  const start = performance.now();
  const e = evaluate(screen, m);
  const ms = performance.now() - start;
  assert.is(e.state, 'idle');
  assert.ok(ms < 2000, `took ${ms.toFixed(0)} ms`);
  // Same input, twice the size: about twice the time (linear), with a wide margin for noise.
  const rows2 = [...rows, ...rows];
  const t2 = performance.now();
  evaluate({ rows: rows2, wrapped: rows2.map(() => false), title: '', osc: new Map() }, m);
  const ms2 = performance.now() - t2;
  assert.ok(
    ms2 < Math.max(8 * ms, 200),
    `100 KB: ${ms.toFixed(1)} ms, 200 KB: ${ms2.toFixed(1)} ms`,
  );
});

test.run();
