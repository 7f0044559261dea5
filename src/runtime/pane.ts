/**
 * A Pane is the unit of the runtime (DESIGN.md): one session's source (our PTY today,
 * `pty-pane.ts`; an ACP connection, `acp-session.ts`; later a pane hosted elsewhere), its
 * screen, its state record and its agent. The sweep schedules the panes whose state is read
 * off a screen; the host serves every pane on its control socket (`protocol.ts`), so every
 * client (the board, `ls`, `wait`, `send`, `answer`, `explain`, notifications) follows it
 * without knowing where its state comes from. The host answers `subscribe`, `mark` and the
 * peer checks itself; every other op is one method here.
 */
import type { Socket } from 'node:net';
import type {
  ConfirmedPrompt,
  ExplainReply,
  PromptReply,
  Replies,
  RequestArgs,
  ScreenReply,
  SessionInfo,
} from './protocol.ts';
import type { StateRecord } from './signals.ts';

/** A session the host serves. Methods that throw do so with a UserError the client prints. */
export interface Pane {
  /** Unique id, also the control socket's file name. */
  readonly id: string;
  /** Display name. */
  readonly name: string;
  /** The control socket's path (in the private socket directory). */
  readonly socket: string;
  /** The agent process's pid, 0 when there is none. */
  readonly pid: number;
  /** How the agent ended, null while it runs. */
  readonly exit: { code: number; signal?: number } | null;
  /** Its state as last decided. */
  readonly record: StateRecord;
  /** The session's info as published now (the host adds its own fields: notify, lastInput). */
  info(): SessionInfo;
  /** Reads what may have changed besides its own output (foreground, manifests); cheap. */
  refresh(): void;
  /** Decides its state afresh, on everything its source has said so far. */
  classifyNow(): StateRecord;
  /** What it shows (`screen`). */
  screen(): ScreenReply;
  /** Its event log, oldest first. */
  events(): string[];
  /** Why it is in its state (`explain`), decided afresh. */
  explain(): ExplainReply;
  /**
   * The prompt it waits on, read afresh.
   * @throws UserError (exit 3) when it is not blocked.
   */
  prompt(): Promise<PromptReply>;
  /**
   * Types `text` into it (a PTY) or sends it as a prompt turn (ACP), through the typing guard.
   * @returns the bytes written.
   * @throws GuardRefusal / UserError (exit 3) when it is blocked or busy.
   */
  send(text: string, opts: { enter: boolean; append: boolean }): Promise<number>;
  /**
   * Answers its prompt with `choice` (a number, an option's text or alias), only while the
   * prompt is still `expect`, the one the person confirmed.
   * @returns the option chosen, as the prompt shows it.
   */
  answer(choice: string, expect: ConfirmedPrompt): Promise<string>;
  /**
   * Cancels the turn in flight (ACP `session/cancel`).
   * @returns the permission requests answered `cancelled`.
   */
  cancel(): number;
  /** Takes a hook's report (`agentwatch report`). */
  report(args: RequestArgs['report']): void;
  /** Takes a hook's notification payload (Claude Code's Notification hook). */
  notify(args: RequestArgs['notify']): Replies['notify'];
  /** Resizes its terminal, in cells (checked by the caller against SIZE_LIMITS). */
  resize(rows: number, cols: number): void;
  /**
   * Attaches the terminal on `socket` (after its answer line, raw bytes both ways) at
   * `rows` x `cols` when valid; `onInput` is called for every chunk the person types.
   */
  attach(socket: Socket, size: RequestArgs['attach'], onInput: () => void): void;
  /** True while a terminal is attached to it. */
  attached(): boolean;
  /** Adds a line to its event log. */
  log(line: string): void;
  /**
   * Calls `listener` whenever what it publishes changes (state, agent, reason, activity, the
   * prompt), with the record before; `prev.state` differs from `record.state` on a
   * transition. Returns a function that removes it. Listeners' errors are swallowed.
   */
  onChange(listener: (prev: StateRecord) => void): () => void;
  /**
   * Ends the agent (`kill`): SIGHUP to its process group, SIGKILL after a grace (a PTY), or
   * EOF, SIGTERM, SIGKILL (ACP); resolves with how it ended once it has.
   */
  kill(): Promise<{ code: number; signal?: number } | null>;
}
