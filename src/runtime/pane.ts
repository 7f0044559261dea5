/**
 * What the host needs from a session that is not one of its own PTYs: an ACP session today
 * (`acp-session.ts`), a pane hosted elsewhere later. The host serves such a pane on a control
 * socket of its own, speaking the same protocol (`protocol.ts`) as a PTY session, so every
 * client (the board, `ls`, `wait`, `send`, `answer`, `explain`, notifications) follows it
 * without knowing where its state comes from. The host answers `subscribe` itself (from
 * {@link Pane.onChange}); every other request goes to {@link Pane.handle}.
 */
import type { SessionState } from '../detect/types.ts';
import type { Request, SessionInfo } from './protocol.ts';

/** A session the host serves without owning its source. */
export interface Pane {
  /** Unique id, also the control socket's file name. */
  readonly id: string;
  /** The control socket's path (in the private socket directory). */
  readonly socket: string;
  /** The session's info as published now. */
  info(): SessionInfo;
  /**
   * Answers one control request (every op but `subscribe`) with the answer object (`ok` is
   * added by the server).
   * @throws UserError with the exit code a CLI client should end with (3: refused by the guard).
   */
  handle(req: Request): Promise<Record<string, unknown>> | Record<string, unknown>;
  /**
   * Calls `listener` whenever the published info changes, with the state before the change
   * (equal to `info.state` when only the reason, prompt or details changed); returns a
   * function that removes it. Listeners' errors are the pane's to swallow.
   */
  onChange(listener: (info: SessionInfo, prev: SessionState) => void): () => void;
  /** Ends the session's source (the agent process) and resolves once it is gone. */
  close(): Promise<void>;
}
