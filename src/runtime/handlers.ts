/**
 * The host's side of the control protocol: one handler per op (`protocol.ts`), each typed by
 * its request and reply, over the {@link Pane} the socket serves. Checks that are the host's
 * and not the pane's live here: who may `answer` (not an agent's tool: `peer.ts`), who may
 * `kill` or `send` (the same user), request shapes, size bounds.
 */
import type { Socket } from 'node:net';
import { connectionPeer, push } from './control-server.ts';
import { listSessions } from './session-directory.ts';
import { answerRefusal, attachRefusal } from './peer.ts';
import { socketDir } from './paths.ts';
import { registeredSessions } from './host-registry.ts';
import {
  isOp,
  type Op,
  type Replies,
  type Request,
  type RequestOf,
  SIZE_LIMITS,
  type StateEvent,
  validSize,
} from './protocol.ts';
import type { Pane } from './pane.ts';
import type { SessionInfo } from './protocol.ts';
import { UserError } from '../errors.ts';
import { confirmedExpect, GUARD_EXIT } from './typing-guard.ts';

/** What a handler may use of the host for the pane it serves. */
export interface HandlerContext {
  pane: Pane;
  /** Environment for the socket directory. */
  env: NodeJS.ProcessEnv;
  /** Every pane the host serves (their agents may not `answer`). */
  panes: () => Pane[];
  /** The pane's info with the host's fields (notify failures, last input). */
  info: () => SessionInfo;
  /**
   * Notes that the person typed into the pane now; `focus` false: input (an answer counts for
   * the notifier's same-prompt rules) but no sign they look at the pane (`send`, `answer` from
   * another terminal: the desktop notice of the next prompt is not held back).
   */
  noteInput: (focus?: boolean) => void;
  /** Adds `socket` to the pane's subscribers (`alerts`: a board that announces it). */
  follow: (socket: Socket, alerts: boolean) => void;
  /** Who takes `mark` requests (a recording), if anyone. */
  marker?: (state: string, note: string) => unknown;
}

/**
 * The handler of op `K`: its answer fields (`ok` and `op` are added by the server), or `keep`
 * when the handler took the connection over (`subscribe`, `attach`).
 */
type Handler<K extends Op> = (
  ctx: HandlerContext,
  req: RequestOf<K>,
  socket: Socket,
) => Replies[K] | Promise<Replies[K]> | 'keep' | Promise<'keep'>;

/** The refusal of a size outside {@link SIZE_LIMITS}. */
const RESIZE_ERROR = `resize: rows must be ${SIZE_LIMITS.minRows}-${SIZE_LIMITS.maxRows} and ` +
  `cols ${SIZE_LIMITS.minCols}-${SIZE_LIMITS.maxCols} (whole cells)`;

/**
 * Refuses (exit 3) a request whose peer the kernel says is another user. Every connection
 * passed this check when it was accepted (`listenControl`); an op that types into or ends a
 * session (`send`, `kill`) makes it again.
 */
function checkSameUser(socket: Socket, op: Op): void {
  const peer = connectionPeer(socket);
  if (peer && peer.uid !== process.getuid?.()) {
    throw new UserError(`${op}: refused: the request came from uid ${peer.uid}`, GUARD_EXIT);
  }
}

/**
 * Refuses (exit 3) an `answer` whose peer is not the person: unknown, of another uid, a
 * process that is (or descends from) the agent of any session, this host's or one listed in
 * the socket folder or in the per-user host registry (`host-registry.ts`, every host whatever
 * its socket folder), PTY or ACP, one with no controlling terminal, or one whose terminal (or
 * an ancestor's) is a session's PTY ({@link answerRefusal}), whatever its environment says.
 */
async function checkAnswerer(ctx: HandlerContext, socket: Socket): Promise<void> {
  await checkPeer(ctx, socket, answerRefusal);
}

/**
 * Refuses (exit 3) the request on `socket` when `refusal` gives a reason for its peer, from
 * facts read now and again after each pause of {@link REFUSAL_RECHECK_MS}.
 */
async function checkPeer(
  ctx: HandlerContext,
  socket: Socket,
  refusal: typeof answerRefusal,
): Promise<void> {
  const why = await peerRefusalNow(ctx, socket, refusal);
  if (!why) return;
  // A session that ended elsewhere a moment ago may still be listed while the kernel already
  // gave its PTY's number to the person's new terminal: facts read afresh after each pause
  // of REFUSAL_RECHECK_MS are checked again, in full; the answer passes only when one whole
  // check passes. Nothing is relaxed.
  let again: string | null = why;
  for (const ms of REFUSAL_RECHECK_MS) {
    await new Promise((r) => setTimeout(r, ms));
    again = await peerRefusalNow(ctx, socket, refusal);
    if (!again) return;
  }
  throw new UserError(`refused: ${again}`, GUARD_EXIT);
}

/**
 * The pauses before {@link checkAnswerer} reads the sessions again after a refusal, ms (a
 * loaded machine can take a second or more to see a session's exit).
 */
const REFUSAL_RECHECK_MS = [500, 1500];

/**
 * Why the peer on `socket` may not answer or attach (`refusal`: {@link answerRefusal} or
 * {@link attachRefusal}), from the facts read now.
 */
async function peerRefusalNow(
  ctx: HandlerContext,
  socket: Socket,
  refusal: typeof answerRefusal,
): Promise<string | null> {
  const agents = new Set<number>();
  const ttys: string[] = [];
  for (const pane of ctx.panes()) {
    if (pane.exit) continue; // ended: its PTY's number may be another terminal's now
    if (pane.pid > 0) agents.add(pane.pid);
    const tty = pane.info().tty;
    if (tty) ttys.push(tty);
  }
  try {
    for (const s of await listSessions(socketDir(ctx.env))) {
      agents.add(s.pid);
      if (s.tty) ttys.push(s.tty);
    }
  } catch {
    // an unreadable folder: this host's own sessions are still known
  }
  // every host's sessions, whatever socket folder it uses (a registry that fails its check
  // throws: answer is refused, fail closed)
  let registered;
  try {
    registered = registeredSessions();
  } catch (e) {
    throw new UserError(`refused: ${(e as Error).message}`, GUARD_EXIT);
  }
  for (const p of registered.agents) agents.add(p);
  ttys.push(...registered.ttys);
  return refusal(connectionPeer(socket), {
    agents,
    ttys,
    notifiers: new Set(registered.notifiers),
    hosts: new Set(registered.hosts),
    adopted: new Set(registered.adopted),
  });
}

/** One handler per op. */
const HANDLERS: { [K in Op]: Handler<K> } = {
  info: (ctx) => ({ session: ctx.info() }),
  screen: (ctx) => ctx.pane.screen(),
  subscribe: (ctx, req, socket) => {
    ctx.follow(socket, req.alerts === true);
    push(socket, { event: 'state', session: ctx.info() } satisfies StateEvent);
    return 'keep';
  },
  attach: async (ctx, req, socket) => {
    // its keys go to the agent as the person's: from a person's terminal only (peer.ts)
    await checkPeer(ctx, socket, attachRefusal);
    ctx.pane.attach(socket, { rows: req.rows, cols: req.cols }, () => ctx.noteInput());
    return 'keep';
  },
  resize: (ctx, req) => {
    if (!validSize(req.rows, req.cols)) throw new UserError(RESIZE_ERROR);
    ctx.pane.resize(req.rows, req.cols);
    return {};
  },
  kill: async (ctx, _req, socket) => {
    checkSameUser(socket, 'kill');
    return { exit: await ctx.pane.kill() };
  },
  report: (ctx, req) => {
    ctx.pane.report(req);
    return {};
  },
  notify: (ctx, req) => ctx.pane.notify(req),
  send: async (ctx, req, socket) => {
    checkSameUser(socket, 'send');
    ctx.noteInput(false);
    const written = await ctx.pane.send(String(req.text ?? ''), {
      enter: req.enter !== false,
      append: req.append === true,
    });
    // and again once its Enter went, which may be a second after the text (the guard waits for
    // the agent to read it): the turn it asks for starts then, after any redraw of the typing
    // that read as a short end of turn
    ctx.noteInput(false);
    return { written };
  },
  prompt: (ctx) => ctx.pane.prompt(),
  answer: async (ctx, req, socket) => {
    const expect = confirmedExpect(req);
    await checkAnswerer(ctx, socket);
    ctx.noteInput(false);
    const answered = await ctx.pane.answer(String(req.choice), expect);
    // its agent ended after reading the key (Gemini CLI's folder trust without its relaunch)
    const ended = ctx.pane.exit;
    return ended ? { answered, ended } : { answered };
  },
  events: (ctx) => ({ events: ctx.pane.events() }),
  explain: (ctx) => ctx.pane.explain(),
  cancel: (ctx) => ({ cancelled: ctx.pane.cancel() }),
  mark: (ctx, req) => {
    if (!ctx.marker) {
      throw new UserError(
        `session ${ctx.pane.id} is not being recorded (start it with agentwatch record)`,
      );
    }
    return { mark: ctx.marker(String(req.state), typeof req.note === 'string' ? req.note : '') };
  },
};

/**
 * Answers `req` for `ctx.pane` with its op's handler.
 * @throws UserError for an unknown op, a malformed request, or what the pane refuses.
 */
export function handleRequest(
  ctx: HandlerContext,
  req: Request,
  socket: Socket,
): ReturnType<Handler<Op>> {
  if (!isOp(req.op)) throw new UserError(`unknown op '${(req as { op: unknown }).op}'`);
  return (HANDLERS[req.op] as Handler<Op>)(ctx, req as RequestOf<Op>, socket);
}
