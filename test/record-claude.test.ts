/**
 * `agentwatch record` and `cut` on the real agent: real Claude Code 2.1.332 starts in a fresh
 * project against the fake Anthropic server (test/support/capture-claude.ts, case `trust`),
 * recorded by `agentwatch record` in a real PTY; the driver marks the start-up folder trust
 * dialog blocked and, after it answered "Yes, I trust this folder", the input box idle. Both
 * marks are cut into fixtures, and `classify --compare` on the labels.json cut wrote reads both
 * as labelled. About 10 s. Skipped (with a printed reason) when node_modules/.bin/claude is
 * missing.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { captureCase, CASES, cutMarks } from './support/capture-claude.ts';
import { CLAUDE_BIN } from './support/claude-home.ts';
import { cli } from './support/cli.ts';
import { readRecording } from '../src/runtime/recording.ts';

test('record real Claude Code: the trust dialog and the idle screen after it, cut and classified', async () => {
  if (!existsSync(CLAUDE_BIN)) {
    console.log(`skipped: no Claude Code at ${CLAUDE_BIN}`);
    return;
  }
  const out = mkdtempSync(join(tmpdir(), 'aw-rec-claude-'));
  try {
    const { rec, names } = await captureCase(CASES.find((c) => c.name === 'trust')!, out);
    const r = readRecording(rec);
    assert.equal(r.truth.map((m) => m.state), ['blocked', 'idle']);
    assert.is(r.meta.agent, 'claude');
    assert.is(r.meta.version, '2.1.332');
    const printed = cutMarks(rec, out, names, r.truth.map((m) => m.state));
    assert.match(
      printed,
      /claude\.blocked\.trust\.raw: .*\n(?:.*\n){2} {2}claude classifies it blocked/,
    );
    assert.match(printed, /claude\.idle\.trust\.raw: .*\n(?:.*\n){2} {2}claude classifies it idle/);
    assert.equal(JSON.parse(readFileSync(join(out, 'labels.json'), 'utf8')), {
      'claude.blocked.trust.raw': 'blocked',
      'claude.idle.trust.raw': 'idle',
    });
    const compare = await cli(['classify', '--compare', join(out, 'labels.json')], process.env);
    assert.is(compare.code, 0, compare.stdout + compare.stderr);
    assert.match(compare.stdout, /screen 2\/2/);
    assert.match(readFileSync(join(out, 'claude.blocked.trust.screen.txt'), 'utf8'), /❯ No, exit/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test.run();
