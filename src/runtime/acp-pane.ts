/**
 * An ACP session ({@link AcpSession}) as a {@link Pane}: what the host serves on its control
 * socket. Its state is the protocol's facts; its prompt is the oldest pending
 * `session/request_permission`; `send` starts a prompt turn; `answer` picks a permission
 * option; it has no terminal to attach to or resize and takes no hook reports.
 */
import { UserError } from '../errors.ts';
import type { AcpSession } from './acp-session.ts';
import { promptOf } from './acp-state.ts';
import type { Pane } from './pane.ts';
import type {
  ConfirmedPrompt,
  ExplainReply,
  PromptReply,
  Replies,
  ScreenReply,
  SessionInfo,
} from './protocol.ts';
import { type StateRecord, UNKNOWN_FOREGROUND } from './signals.ts';
import { choiceIndex, GUARD_EXIT } from './typing-guard.ts';

/** Lines of the transcript `explain` shows. */
const EXPLAIN_LINES = 30;

/** An ACP session served as a pane. */
export class AcpPane implements Pane {
  constructor(readonly session: AcpSession) {}

  get id(): string {
    return this.session.id;
  }

  get name(): string {
    return this.session.spec.name;
  }

  get socket(): string {
    return this.session.socket;
  }

  get pid(): number {
    return this.session.pid;
  }

  get exit(): { code: number; signal?: number } | null {
    return this.session.exit;
  }

  get record(): StateRecord {
    return this.session.record;
  }

  info(): SessionInfo {
    return this.session.info();
  }

  /** Nothing to read besides the protocol's messages, which update the state as they come. */
  refresh(): void {}

  classifyNow(): StateRecord {
    return this.session.decide();
  }

  onChange(listener: (prev: StateRecord) => void): () => void {
    return this.session.onChange(listener);
  }

  events(): string[] {
    return this.session.events();
  }

  log(line: string): void {
    this.session.log(line);
  }

  prompt(): Promise<PromptReply> {
    const ask = this.session.pending[0];
    if (!ask) {
      return Promise.reject(
        new UserError(
          `${this.name} is not waiting for an answer (it is ${this.record.state})`,
          GUARD_EXIT,
        ),
      );
    }
    return Promise.resolve({ ...promptOf(ask), selected: 0, episode: this.session.pendingEpisode });
  }

  send(text: string): Promise<number> {
    this.session.checkPromptable();
    this.session.promptTurn(text, 'send').catch(() => {}); // its end is published as a state
    return Promise.resolve(Buffer.byteLength(text));
  }

  answer(choice: string, expect: ConfirmedPrompt): Promise<string> {
    const ask = this.session.pending[0];
    const aliases = ask ? promptOf(ask).aliases : [];
    return Promise.resolve(
      this.session.answerIndex(choiceIndex(choice, expect.options, aliases), expect),
    );
  }

  cancel(): number {
    return this.session.cancel();
  }

  screen(): ScreenReply {
    const lines = this.session.transcript;
    return {
      text: lines.join('\n'),
      title: '',
      rows: lines.length,
      cols: 0,
      cursor: { row: 0, col: 0 },
    };
  }

  explain(): ExplainReply {
    const s = this.session;
    return {
      session: s.info(),
      decidedBy: 'acp',
      reason: s.record.reason,
      report: null,
      foreground: s.exit ? UNKNOWN_FOREGROUND : {
        kind: 'agent',
        name: s.spec.command,
        argv: [s.spec.command, ...s.spec.args],
        pgid: s.pid,
      },
      manifest: 'none: the state comes from ACP, not from screen rules',
      screen: s.transcript.slice(-EXPLAIN_LINES).join('\n'),
      title: '',
      rules: 'no screen rules: the state comes from ACP messages (session/prompt in flight, ' +
        'session/request_permission pending, the prompt response, the agent process exit)\n',
      events: s.events(),
    };
  }

  #noTerminal(): UserError {
    return new UserError(
      `${this.name} is an ACP session: it has no terminal to attach to; its chat runs ` +
        'where `agentwatch acp` was started',
    );
  }

  attach(): void {
    throw this.#noTerminal();
  }

  attached(): boolean {
    return false;
  }

  resize(): void {
    throw this.#noTerminal();
  }

  report(): void {
    throw new UserError('report: an ACP session takes no hook reports');
  }

  notify(): Replies['notify'] {
    throw new UserError('notify: an ACP session takes no hook reports');
  }

  async kill(): Promise<{ code: number; signal?: number } | null> {
    await this.session.close();
    return this.session.exit;
  }
}
