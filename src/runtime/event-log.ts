/**
 * A session's small event log (reports, ignored hook payloads, ACP requests and answers, errors):
 * timestamped lines, the newest {@link EVENT_LOG_LINES} kept, shown by `explain` and the `events`
 * request. One for PTY sessions and ACP sessions alike.
 */

/** How many lines a session's event log keeps. */
export const EVENT_LOG_LINES = 50;

export class EventLog {
  readonly #lines: string[] = [];

  /** Adds `line`, prefixed with the time (ISO 8601); drops the oldest beyond the limit. */
  log(line: string): void {
    this.#lines.push(`${new Date().toISOString()} ${line}`);
    if (this.#lines.length > EVENT_LOG_LINES) this.#lines.shift();
  }

  /** The lines, oldest first (a copy). */
  events(): string[] {
    return [...this.#lines];
  }
}
