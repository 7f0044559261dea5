/**
 * src/runtime/session-directory.ts against real sockets in a temporary folder (fake session
 * sockets: no PTY, no host): finding a session by id, prefix or name, waiting for one that
 * does not exist yet, and following sessions that come, change, close and are cleared.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  awaitSessions,
  findSession,
  listSessions,
  type LocalSessions,
  matchSession,
  matchSurvey,
  processGone,
  SessionDirectory,
  SOCKET_CLOSED_BY,
} from '../src/runtime/session-directory.ts';
import type { SessionInfo } from '../src/runtime/protocol.ts';
import { NO_ANSWER_EXIT } from '../src/runtime/control-client.ts';
import type { SessionState } from '../src/detect/types.ts';
import { fakeInfo, type FakeSession, fakeSession } from './support/fake-session.ts';
import { until } from './support/until.ts';

/** A temporary socket folder and the fake sessions in it, closed at the end. */
async function withDir(body: (dir: string, add: typeof fakeSession) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), 'aw-dir-'));
  const fakes: FakeSession[] = [];
  const add: typeof fakeSession = async (path, session, reply) => {
    const f = await fakeSession(path, session, reply);
    fakes.push(f);
    return f;
  };
  try {
    await body(dir, add);
  } finally {
    await Promise.all(fakes.map((f) => f.close()));
    rmSync(dir, { recursive: true, force: true });
  }
}

test('matchSession: exact id or name first, then the only id prefix; several is an error', () => {
  const infos = [
    fakeInfo('api-1a2b', '/s/a', { name: 'api' }),
    fakeInfo('api-9f00', '/s/b', { name: 'api2' }),
    fakeInfo('web-0001', '/s/c', { name: 'api-' }),
  ];
  assert.is(matchSession('api', infos)?.id, 'api-1a2b', 'a name');
  assert.is(matchSession('api-9f00', infos)?.id, 'api-9f00', 'an id');
  assert.is(matchSession('api-', infos)?.id, 'web-0001', 'an exact name beats id prefixes');
  assert.is(matchSession('web', infos)?.id, 'web-0001', 'a prefix');
  assert.is(matchSession('nope', infos), undefined);
  assert.throws(() => matchSession('api-', infos.slice(0, 2)), /matches 2 sessions: api-1a2b/);
  // tester6: `--name L1` (id l1-46a7) beside L10..L12: `kill l1` named it, not four sessions
  const ls = ['1', '10', '11'].map((n) => fakeInfo(`l${n}-00${n}`, `/s/${n}`, { name: `L${n}` }));
  assert.is(matchSession('l1', ls)?.id, 'l1-001', "a name whatever its letters' case");
  assert.is(matchSession('L1', ls)?.id, 'l1-001');
  assert.throws(() => matchSession('l', ls), /matches 3 sessions/, 'no name: id prefixes');
  try {
    matchSession('api-', infos.slice(0, 2));
    assert.unreachable();
  } catch (e) {
    assert.is((e as { exitCode?: number }).exitCode, 2);
  }
});

test('matchSurvey: a session found is given unless a silent socket could be it; none found and a silent socket: exit 6, not 4', () => {
  const infos = [
    fakeInfo('api-1234', '/s/api-1234.sock', { name: 'api' }),
    fakeInfo('web-5678', '/s/web-5678.sock', { name: 'web' }),
  ];
  const silent = ['/s/api-9abc.sock', '/s/db-0000.sock'];
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return (e as { exitCode?: number }).exitCode;
    }
    return 'returned';
  };
  // An exact id, or a name no silent id starts with: given.
  assert.is(matchSurvey('api-1234', { infos, unanswered: silent }, 10_000)?.id, 'api-1234');
  assert.is(matchSurvey('web', { infos, unanswered: silent }, 10_000)?.id, 'web-5678');
  // A silent socket's id starts with the key as well: it may be the one meant.
  assert.is(code(() => matchSurvey('api', { infos, unanswered: silent }, 10_000)), NO_ANSWER_EXIT);
  // Not found: "no session" only when every socket answered.
  assert.is(matchSurvey('cache', { infos, unanswered: [] }, 10_000), undefined);
  assert.is(
    code(() => matchSurvey('cache', { infos, unanswered: silent }, 10_000)),
    NO_ANSWER_EXIT,
  );
  try {
    matchSurvey('cache', { infos, unanswered: silent }, 10_000);
  } catch (e) {
    assert.match(
      (e as Error).message,
      "no answer from 2 sessions api-9abc, db-0000 within 10 s (their host is busy or stopped): whether 'cache' is one of them is not known",
    );
  }
});

test('listSessions and findSession: the sockets of the folder, each its info', () =>
  withDir(async (dir, add) => {
    assert.equal(await listSessions(join(dir, 'none')), [], 'no folder: no sessions');
    await add(join(dir, 'a.sock'), () => fakeInfo('alpha-0001', '/elsewhere', { name: 'alpha' }));
    await add(join(dir, 'b.sock'), () => fakeInfo('beta-0002', join(dir, 'b.sock')));
    const all = await listSessions(dir);
    assert.equal(all.map((i) => i.id).sort(), ['alpha-0001', 'beta-0002']);
    assert.is(
      all.find((i) => i.id === 'alpha-0001')!.socket,
      join(dir, 'a.sock'),
      'the socket asked, not the one it claims',
    );
    assert.is((await findSession('alpha', dir)).id, 'alpha-0001');
    assert.is((await findSession('bet', dir)).id, 'beta-0002');
    try {
      await findSession('gamma', dir);
      assert.unreachable();
    } catch (e) {
      assert.match((e as Error).message, /no session 'gamma'/);
    }
  }));

test('awaitSessions: waits for a session that does not exist yet; gives the key at the deadline', () =>
  withDir(async (dir, add) => {
    assert.is(await awaitSessions(['late'], Date.now() + 300, dir), 'late');
    const waiting = awaitSessions(['late'], Date.now() + 60_000, dir);
    await add(join(dir, 'late.sock'), () => fakeInfo('late-0001', join(dir, 'late.sock')));
    const found = await waiting;
    assert.ok(Array.isArray(found));
    assert.equal((found as SessionInfo[]).map((i) => i.id), ['late-0001']);
  }));

/** A host of local sessions for a directory: `infos` are its sessions; `fire` a transition. */
function localHost(infos: Map<string, SessionInfo>) {
  const listeners = new Set<(t: { info: SessionInfo; prev: { state: SessionState } }) => void>();
  const classified: string[] = [];
  const host: LocalSessions = {
    onTransition: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    info: (id) => {
      const i = infos.get(id);
      if (!i) throw new Error(`no session ${id}`);
      return i;
    },
    forget: (id) => Promise.resolve(void infos.delete(id)),
    classifyNow: (id) => void classified.push(id),
  };
  const fire = (info: SessionInfo, prev: SessionState) => {
    infos.set(info.id, info);
    for (const l of listeners) l({ info, prev: { state: prev } });
  };
  return { host, fire, classified };
}

test('SessionDirectory: local sessions from the host, remote ones by subscription, gone ones cleared', () =>
  withDir(async (dir, add) => {
    const local = new Map([['here-0001', fakeInfo('here-0001', join(dir, 'here.sock'))]]);
    const { host, fire, classified } = localHost(local);
    const changes: string[] = [];
    const directory = new SessionDirectory({
      host,
      dir,
      onChange: (i, prev) => changes.push(`${i.id} ${prev}->${i.state}`),
    });
    try {
      directory.addLocal('here-0001');
      assert.equal(classified, ['here-0001'], 'classified at once');
      assert.ok(directory.isLocal('here-0001'));
      fire({ ...local.get('here-0001')!, state: 'working' }, 'idle');

      const path = join(dir, 'far.sock');
      const far = fakeInfo('far-0002', path, { state: 'idle' });
      const fake = await add(path, () => far);
      directory.start();
      await until('the remote session followed', () => changes.includes('far-0002 null->idle'));
      assert.not.ok(directory.isLocal('far-0002'));
      fake.push({ ...far, state: 'blocked', question: 'Run ls?' });
      await until('its push', () => changes.includes('far-0002 idle->blocked'));
      assert.is(directory.infos().find((i) => i.id === 'far-0002')!.question, 'Run ls?');

      // Its host goes away without telling its exit: exited, by its socket closing.
      await fake.close();
      await until('its socket closed', () => changes.includes('far-0002 blocked->exited'));
      const gone = directory.infos().find((i) => i.id === 'far-0002')!;
      assert.is(gone.by, SOCKET_CLOSED_BY);
      assert.ok(processGone(gone));
      assert.is(gone.question, undefined);
      assert.equal(directory.liveLocal().map((i) => i.id), ['here-0001']);

      assert.equal(directory.clearGone().map((i) => i.id), ['far-0002']);
      assert.equal(directory.infos().map((i) => i.id), ['here-0001']);
      assert.equal(changes, [
        'here-0001 null->idle',
        'here-0001 idle->working',
        'far-0002 null->idle',
        'far-0002 idle->blocked',
        'far-0002 blocked->exited',
      ]);
    } finally {
      directory.close();
    }
  }));

test.run();
