/**
 * A session's control socket: a Unix socket in the private socket directory, speaking the
 * line protocol of `protocol.ts`. A socket file left by a dead process is removed before
 * binding; a live one with the same name is an error. Each connection's peer is read from
 * the kernel when it is accepted (`peer.ts`): one of another uid is refused at once.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { existsSync, lstatSync, unlinkSync } from 'node:fs';
import { ownSocket } from './paths.ts';
import { lineReader, type Request } from './protocol.ts';
import { UserError } from '../errors.ts';
import { GuardRefusal } from './typing-guard.ts';
import { type Peer, peerOf } from './peer.ts';
import { NO_ANSWER_EXIT } from './control-client.ts';

/** The peer of each accepted connection (null when the kernel could not be asked). */
const peers = new WeakMap<Socket, Peer | null>();

/** Who connected on `socket`, from the kernel when it was accepted; null when unknown. */
export function connectionPeer(socket: Socket): Peer | null {
  return peers.get(socket) ?? null;
}

/** True when `path` is a symbolic link (dangling or not). */
function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Handles one request; returns its op's answer fields (`ok` and `op` are added), `keep` when it
 * took the connection over, or throws UserError.
 */
export type RequestHandler = (
  req: Request,
  socket: Socket,
) => Promise<object | 'keep'> | object | 'keep';

/**
 * False only when nothing listens on the Unix socket at `path`: the kernel refused the
 * connection (ECONNREFUSED: a dead process's socket) or there is no such file (ENOENT); true
 * otherwise, also when the outcome is not known within `timeoutMs`, or the listener's queue is
 * full (EAGAIN: its process is busy or stopped). Whoever removes a socket on a false must not
 * remove a live one because its host was slow.
 */
export function socketAlive(path: string, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection(path);
    const done = (alive: boolean) => {
      clearTimeout(timer);
      c.destroy();
      resolve(alive);
    };
    const timer = setTimeout(() => done(true), timeoutMs);
    c.once('connect', () => done(true));
    c.once('error', (e: NodeJS.ErrnoException) => {
      done(e.code !== 'ECONNREFUSED' && e.code !== 'ENOENT' && e.code !== 'ENOTSOCK');
    });
  });
}

/** The open connections of each control server, for {@link closeControl}. */
const connections = new WeakMap<Server, Set<Socket>>();

/**
 * The requests of a connection not yet answered, and what to do once the last is answered
 * (when its server closes: end the connection).
 */
interface InFlight {
  /** Each request line not yet answered, oldest first, with its op once read (else null). */
  requests: { op: string | null }[];
  idle?: () => void;
}
const inFlight = new WeakMap<Socket, InFlight>();

/**
 * How long {@link closeControl} waits for the answer of a request in flight, ms: its handler
 * sees the session's end and answers (an `answer` whose agent exited after reading the key:
 * "answered"; tester t10, Gemini CLI 0.61.0 with GEMINI_CLI_NO_RELAUNCH=true, whose host had
 * closed the connection first: `answer` waited 75 s for a reply that never came).
 */
export const IN_FLIGHT_GRACE_MS = 10_000;

/**
 * Stops listening and ends every open connection: `end` first (what was written still reaches
 * the client), then, after `graceMs`, destroys those still open. A connection with a request
 * in flight is ended once that request is answered (its handler sees the session end), and
 * after {@link IN_FLIGHT_GRACE_MS} at the latest, each request still in flight then answered
 * `ok: false` (exit code 6: what it did is not known). Without this, a client that keeps its
 * connection (a stopped `ls`, a raw client) held `server.close` forever.
 */
export function closeControl(server: Server, graceMs = 500): Promise<void> {
  return new Promise((resolve) => {
    const open = connections.get(server) ?? new Set<Socket>();
    const timers: NodeJS.Timeout[] = [];
    const end = (s: Socket) => {
      s.end();
      timers.push(setTimeout(() => s.destroy(), graceMs));
    };
    server.close(() => {
      for (const t of timers) clearTimeout(t);
      resolve();
    });
    for (const s of open) {
      const busy = inFlight.get(s);
      if (!busy?.requests.length) {
        end(s);
        continue;
      }
      const late = setTimeout(() => {
        for (const { op } of busy.requests) {
          send(s, {
            ok: false,
            op,
            error: `the session's host closed its socket before answering${
              op ? ` '${op}'` : ''
            } (the session ended, or its host did); what it did is not known`,
            code: NO_ANSWER_EXIT,
          });
        }
        busy.idle = undefined;
        end(s);
      }, IN_FLIGHT_GRACE_MS);
      timers.push(late);
      busy.idle = () => {
        clearTimeout(late);
        end(s);
      };
    }
  });
}

/**
 * Listens on `path`, removing first a stale socket of ours there (nothing else is removed).
 * @throws UserError when a live session already listens there, something that is not a
 *   socket of ours is there, or the socket cannot be bound.
 */
export async function listenControl(path: string, handler: RequestHandler): Promise<Server> {
  if (await socketAlive(path)) {
    throw new UserError(`${path}: a live session already uses this socket`);
  }
  if (ownSocket(path)) {
    unlinkSync(path); // a dead session's socket of ours (nothing answered)
  } else if (existsSync(path) || isSymlink(path)) {
    throw new UserError(`${path}: exists and is not a socket of ours; refusing to replace it`);
  }
  const open = new Set<Socket>();
  const server = createServer((socket) => {
    const peer = peerOf(socket);
    peers.set(socket, peer);
    if (peer && peer.uid !== process.getuid?.()) {
      // Another user (the folder is ours and 0700, so only root, or a folder made reachable).
      socket.on('error', () => {});
      socket.end(
        JSON.stringify({ ok: false, op: null, error: `refused: uid ${peer.uid} is not us` }) +
          '\n',
      );
      socket.resume(); // what they send is dropped unread, up to their end
      return;
    }
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    serve(socket, handler);
  });
  connections.set(server, open);
  await new Promise<void>((resolve, reject) => {
    server.once(
      'error',
      (e) => reject(new UserError(`${path}: cannot listen (${(e as NodeJS.ErrnoException).code})`)),
    );
    server.listen(path, () => resolve());
  });
  server.on('error', () => {});
  return server;
}

function send(socket: Socket, obj: unknown): void {
  if (!socket.destroyed && socket.writable) socket.write(JSON.stringify(obj) + '\n');
}

function serve(socket: Socket, handler: RequestHandler): void {
  socket.on('error', () => {});
  let raw = false; // after 'keep' for attach, the handler owns the socket
  // Answers leave in the order of the requests, also when a client sends several lines at
  // once: a bad line is answered at once but a good one after its (maybe async) handler.
  let previous: Promise<void> = Promise.resolve();
  // Each line is in flight from its arrival until its answer was written: closeControl ends
  // the connection only after that.
  const busy: InFlight = { requests: [] };
  inFlight.set(socket, busy);
  const inOrder = (answer: (request: { op: string | null }) => void | Promise<void>) => {
    const request = { op: null };
    busy.requests.push(request);
    previous = previous.then(() => answer(request)).catch(() => {}).then(() => {
      busy.requests.splice(busy.requests.indexOf(request), 1);
      if (!busy.requests.length) busy.idle?.();
    });
  };
  const answer = (line: string, request: { op: string | null }): void | Promise<void> => {
    if (raw) return;
    let req: Request;
    try {
      req = JSON.parse(line);
      if (!req || typeof req !== 'object' || typeof (req as { op?: unknown }).op !== 'string') {
        throw new Error('no op');
      }
    } catch {
      send(socket, {
        ok: false,
        op: null,
        error: `bad request: not a JSON object with an "op": ${line.slice(0, 80)}`,
      });
      return;
    }
    request.op = req.op;
    return Promise.resolve()
      .then(() => handler(req, socket))
      .then(
        (answer) => {
          if (answer === 'keep') {
            if (req.op === 'attach') {
              raw = true;
              socket.removeListener('data', read);
            }
            return;
          }
          send(socket, { ok: true, ...answer, op: req.op });
        },
        (e) =>
          send(socket, {
            ok: false,
            op: req.op,
            error: e instanceof UserError ? e.message : String((e as Error)?.message ?? e),
            // the exit code a CLI client should end with (3: refused by the typing guard)
            ...(e instanceof UserError ? { code: e.exitCode } : {}),
            ...(e instanceof GuardRefusal ? { question: e.question, options: e.options } : {}),
          }),
      );
  };
  const read = lineReader(
    (line) => inOrder((request) => answer(line, request)),
    () => {
      // The rest of that line must never be read as a request: answer, then close.
      socket.removeListener('data', read);
      inOrder(() => {
        send(socket, { ok: false, op: null, error: 'request line longer than 1 MB' });
        socket.end();
      });
    },
  );
  socket.on('data', read);
}

/** Sends one line to a socket held by a `keep` handler (subscribe). */
export function push(socket: Socket, obj: unknown): void {
  send(socket, obj);
}
