/**
 * The push channel: `--notify-url URL` POSTs each notice to a web endpoint (a webhook, ntfy,
 * a chat bridge). One request at a time, a timeout per request, retries with exponential
 * backoff, and no retry storm when the endpoint is down: once a notice failed every attempt,
 * the endpoint counts as down and that notice stays first in the queue; it is tried again,
 * one attempt at a time, no sooner than a backoff that doubles up to
 * {@link MAX_DOWN_BACKOFF_MS}, until it is delivered (then the ones behind it follow) or is
 * {@link MAX_AGE_MS} old (given up). At most {@link MAX_QUEUE} wait (the oldest are dropped).
 * Nothing here blocks the caller: {@link PushChannel.send} resolves with the first outcome,
 * and a later delivery or giving up is told to {@link PushChannel.onLate}. Each notice keeps
 * the time it was made (`time`). The prompt's text (question, action, options) leaves the
 * machine only with `includeText` (`--notify-include-text`).
 */
import { hostname } from 'node:os';
import type { Notice } from './notify-gate.ts';

/** How a {@link PushChannel} is set up; times in ms. */
export interface PushOptions {
  url: string;
  /** 'json' (default): a JSON object; 'text': plain text, for ntfy-style services. */
  format?: 'json' | 'text';
  /** Send the prompt's question, action and options (default false: only who and what state). */
  includeText?: boolean;
  timeoutMs?: number;
  /** Attempts after the first while the endpoint is up. */
  retries?: number;
  /** The first retry's delay; each next one doubles. */
  backoffMs?: number;
  /** The host name sent (default os.hostname()). */
  host?: string;
  /** A notice not delivered this long after it was made is given up (default {@link MAX_AGE_MS}). */
  maxAgeMs?: number;
}

/** The most notices waiting to be pushed; older ones are dropped. */
export const MAX_QUEUE = 10;
/** The longest wait between attempts while the endpoint is down, ms. */
export const MAX_DOWN_BACKOFF_MS = 60_000;
/** A notice not delivered this long after it was made is given up, ms. */
export const MAX_AGE_MS = 10 * 60_000;

/**
 * The request body for `n`: JSON `{session, name, agent, state, kind, title, host, time}`
 * plus `question`, `action`, `options` when `includeText`; or, as text, the title and (with
 * `includeText`) the body's lines.
 */
export function pushBody(
  n: Notice,
  o: { format?: 'json' | 'text'; includeText?: boolean; host: string; now: number },
): { body: string; type: string } {
  const title = o.includeText
    ? n.title
    : `${n.info.name} ${n.kind === 'done' ? 'is done' : 'needs you'}`;
  if (o.format === 'text') {
    return {
      body: o.includeText && n.body ? `${title}\n${n.body}` : title,
      type: 'text/plain; charset=utf-8',
    };
  }
  const data: Record<string, unknown> = {
    session: n.info.id,
    name: n.info.name,
    agent: n.info.agent,
    state: n.info.state,
    kind: n.kind,
    title,
    host: o.host,
    time: new Date(o.now).toISOString(),
  };
  if (o.includeText) {
    data.question = n.question;
    data.action = n.action;
    data.options = n.options;
  }
  return { body: JSON.stringify(data), type: 'application/json' };
}

interface Job {
  notice: Notice;
  /** When it was queued (the notice's time), ms since the epoch. */
  at: number;
  /** The test notice: one round of attempts, never kept for later. */
  once: boolean;
  /** Settles the caller's promise; only the first call counts. */
  settle: (why: string | null) => void;
  /** True once the caller's promise settled. */
  told: boolean;
}

/** Pushes notices to a URL (see the file's comment). */
export class PushChannel {
  /** Requests made so far (for tests and the report). */
  requests = 0;
  /** Notices dropped because the queue was full or they grew too old. */
  dropped = 0;
  /**
   * Told the outcome of a notice whose {@link send} already resolved with a failure: null
   * when a later attempt delivered it, else why it was given up.
   */
  onLate?: (why: string | null, n: Notice) => void;
  readonly #o: Required<PushOptions>;
  readonly #queue: Job[] = [];
  #running = false;
  #closed = false;
  /** While down: when the next attempt may be made, and the current backoff. */
  #down: { nextAt: number; backoff: number; why: string } | null = null;

  /** @throws Error naming the URL when it is not an http(s) URL. */
  constructor(options: PushOptions) {
    let u: URL;
    try {
      u = new URL(options.url);
    } catch {
      throw new Error(`--notify-url: not a URL: '${options.url}'`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      throw new Error(`--notify-url: only http and https URLs, got '${options.url}'`);
    }
    this.#o = {
      url: options.url,
      format: options.format ?? 'json',
      includeText: options.includeText ?? false,
      timeoutMs: options.timeoutMs ?? 5_000,
      retries: options.retries ?? 2,
      backoffMs: options.backoffMs ?? 500,
      host: options.host ?? hostname(),
      maxAgeMs: options.maxAgeMs ?? MAX_AGE_MS,
    };
  }

  /** Drops every waiting notice (each resolves 'closed'); later sends resolve the same at once. */
  close(): void {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.settle('closed');
  }

  /** Notices waiting (being tried, or kept for a retry while the endpoint is down). */
  get waiting(): number {
    return this.#queue.length;
  }

  /** True while the endpoint counts as down. */
  get down(): boolean {
    return this.#down !== null;
  }

  /**
   * Queues `n`; resolves with null once it was delivered (a 2xx answer), or why not (the
   * last error of its first round of attempts, or that it was dropped). Never rejects. A
   * notice that failed stays queued and is tried again while the endpoint is down (see the
   * file's comment); its later outcome goes to {@link onLate}. `now` (the test notice) skips
   * the down backoff and is never kept for later.
   */
  send(n: Notice, now = false): Promise<string | null> {
    return new Promise((resolve) => {
      if (this.#closed) return resolve('closed');
      if (now && this.#down) this.#down.nextAt = 0;
      const job: Job = {
        notice: n,
        at: Date.now(),
        once: now,
        told: false,
        settle: (why) => {
          if (job.told) return this.#late(why, n);
          job.told = true;
          resolve(why);
        },
      };
      if (now) this.#queue.unshift(job); // the test notice goes before any kept for a retry
      else this.#queue.push(job);
      while (this.#queue.length > MAX_QUEUE) {
        this.dropped++;
        this.#queue.shift()!.settle(
          `dropped: ${MAX_QUEUE} notices were waiting for ${this.#o.url}`,
        );
      }
      void this.#run();
    });
  }

  #late(why: string | null, n: Notice): void {
    if (this.#closed) return; // closing is no news
    try {
      this.onLate?.(why, n);
    } catch {
      // a listener's failure never stops the queue
    }
  }

  /** Takes `job` out of the queue (wherever it is now) and settles it with `why`. */
  #finish(job: Job, why: string | null): void {
    const i = this.#queue.indexOf(job);
    if (i >= 0) this.#queue.splice(i, 1);
    job.settle(why);
  }

  async #run(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      while (this.#queue.length) {
        if (this.#down) {
          const wait = this.#down.nextAt - Date.now();
          if (wait > 0) await sleep(wait);
        }
        const job = this.#queue[0];
        if (!job) break; // closed, or dropped, while waiting
        if (Date.now() - job.at >= this.#o.maxAgeMs) {
          this.dropped++;
          this.#finish(
            job,
            `gave up: not delivered within ${Math.round(this.#o.maxAgeMs / 1_000)} s (${
              this.#down?.why ?? 'not sent'
            })`,
          );
          continue;
        }
        const attempts = this.#down ? 1 : 1 + this.#o.retries;
        let why: string | null = 'not sent';
        for (let i = 0; i < attempts; i++) {
          if (i > 0) await sleep(this.#o.backoffMs * 2 ** (i - 1));
          why = await this.#post(job);
          if (why === null) break;
        }
        if (why === null) {
          this.#down = null;
          this.#finish(job, null);
          continue;
        }
        const backoff = Math.min(
          MAX_DOWN_BACKOFF_MS,
          this.#down ? this.#down.backoff * 2 : Math.max(1_000, this.#o.backoffMs * 2),
        );
        this.#down = { nextAt: Date.now() + backoff, backoff, why };
        if (job.once || this.#closed) this.#finish(job, why);
        else if (!job.told) job.settle(why); // shown now; the notice stays for a retry
      }
    } finally {
      this.#running = false;
    }
  }

  /** One POST of `job`'s notice (with the time it was made); null on a 2xx answer, else why not. */
  async #post(job: Job): Promise<string | null> {
    this.requests++;
    const { body, type } = pushBody(job.notice, { ...this.#o, now: job.at });
    try {
      const res = await fetch(this.#o.url, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
        signal: AbortSignal.timeout(this.#o.timeoutMs),
      });
      await res.arrayBuffer().catch(() => {});
      return res.ok ? null : `${this.#o.url} answered ${res.status} ${res.statusText}`.trim();
    } catch (e) {
      const err = e as Error & { cause?: { code?: string; message?: string } };
      if (err.name === 'TimeoutError' || err.name === 'AbortError') {
        return `${this.#o.url} did not answer within ${this.#o.timeoutMs} ms`;
      }
      return `${this.#o.url}: ${err.cause?.code ?? err.cause?.message ?? err.message}`;
    }
  }
}

/** Waits `ms`; the timer never keeps the process alive (a pending push must not delay an exit). */
function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}
