/** Fake session sockets for tests of the clients (the board, ls): no PTY, no host. */
import { EventEmitter } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { SessionHost } from '../../src/runtime/host.ts';
import type { SessionInfo } from '../../src/runtime/protocol.ts';

/** A full, valid session info for a fake session socket at `socket`. */
export function fakeInfo(
  id: string,
  socket: string,
  extra: Record<string, unknown> = {},
): SessionInfo {
  return {
    id,
    name: id,
    agent: 'claude',
    state: 'idle',
    since: Date.now() - 1000,
    reason: 'rule (idle)',
    by: 'screen',
    pid: 1,
    command: ['claude'],
    foreground: 'claude',
    rows: 24,
    cols: 80,
    startedAt: Date.now() - 5000,
    lastOutput: Date.now(),
    exit: null,
    host: 1,
    socket,
    ...extra,
  } as SessionInfo;
}

/**
 * A fake session socket at `path`: `info` answers `{ok, op, session: session()}` (whatever
 * shape it has), `subscribe` answers the same and keeps the connection (pushed to with
 * `push`); any other op gets `reply(request)` when given (a hostile session's answers), else
 * `{ok: true, op}`.
 */
export interface FakeSession {
  server: Server;
  push(session: unknown): void;
  /** How many clients follow it now (subscribed and still connected). */
  subscribers(): number;
  close(): Promise<void>;
}
export function fakeSession(
  path: string,
  session: () => unknown,
  reply?: (req: { op: string } & Record<string, unknown>) => Record<string, unknown>,
): Promise<FakeSession> {
  const subscribers = new Set<Socket>();
  const server = createServer((c) => {
    c.on('error', () => {});
    let pending = '';
    c.on('data', (d) => {
      pending += d.toString('utf8');
      const nl = pending.indexOf('\n');
      if (nl < 0) return;
      const req = JSON.parse(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
      if (req.op === 'subscribe') {
        subscribers.add(c);
        c.on('close', () => subscribers.delete(c));
        c.write(JSON.stringify({ ok: true, event: 'state', session: session() }) + '\n');
      } else if (req.op === 'info') {
        c.end(JSON.stringify({ ok: true, op: req.op, session: session() }) + '\n');
      } else c.end(JSON.stringify(reply ? reply(req) : { ok: true, op: req.op }) + '\n');
    });
  });
  return new Promise((resolve) =>
    server.listen(path, () =>
      resolve({
        server,
        subscribers: () => subscribers.size,
        push: (s) => {
          for (const c of subscribers) {
            c.write(JSON.stringify({ event: 'state', session: s }) + '\n');
          }
        },
        close: () =>
          new Promise<void>((r) => {
            for (const c of subscribers) c.destroy();
            server.close(() => r());
          }),
      }))
  );
}

/**
 * A session socket at `path` that answers one request per connection, as the board's answer
 * panel asks: `prompt` with `prompt()`'s fields, any other op (`answer`) with `answer(request)`'s
 * (default: `ok`, `answered: '1. Yes'`). Each request's op is pushed to `ops`, in order.
 */
export async function promptStub(
  path: string,
  prompt: () => Record<string, unknown>,
  ops: string[] = [],
  answer: (request: Record<string, unknown>) => Record<string, unknown> = () => ({
    ok: true,
    answered: '1. Yes',
  }),
): Promise<Server> {
  const server = createServer((c) => {
    c.on('error', () => {});
    c.once('data', (d) => {
      const request = JSON.parse(d.toString('utf8').split('\n')[0]);
      const op = request.op;
      ops.push(op);
      c.end(
        JSON.stringify(
          op === 'prompt' ? { ok: true, op, ...prompt() } : { op, ...answer(request) },
        ) +
          '\n',
      );
    });
  });
  await new Promise<void>((r) => server.listen(path, r));
  return server;
}

/** A host holding `infos` as its sessions, by id (what a book of hosted sessions asks of it). */
export function fakeHost(infos: Map<string, SessionInfo>): SessionHost {
  return {
    onTransition: () => () => {},
    classifyNow: () => {},
    info: (id: string) => {
      const i = infos.get(id);
      if (!i) throw new Error(`no session ${id}`);
      return i;
    },
    forget: (id: string) => Promise.resolve(void infos.delete(id)),
  } as unknown as SessionHost;
}

/**
 * A terminal of `rows` x `columns` cells for a BoardUi: keys go in with `type`; `text()` is
 * what was painted since the last `clear()`, lines apart (a cursor move starts one), without
 * SGR or other CSI.
 */
export function fakeTerminal(rows = 20, columns = 100) {
  const stdin = Object.assign(new EventEmitter(), {
    setRawMode: () => {},
    resume: () => {},
    pause: () => {},
  });
  let out = '';
  const stdout = Object.assign(new EventEmitter(), {
    columns,
    rows,
    write: (s: string | Uint8Array) => {
      out += typeof s === 'string' ? s : Buffer.from(s).toString('utf8');
      return true;
    },
  });
  return {
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    type: (keys: string) => stdin.emit('data', Buffer.from(keys, 'utf8')),
    text: () => out.replace(/\x1b\[\d+;1H/g, '\n').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''),
    /** Everything written since the last clear, escape sequences and all. */
    raw: () => out,
    clear: () => (out = ''),
  };
}
