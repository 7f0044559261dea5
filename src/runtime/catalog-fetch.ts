/**
 * Fetches one catalog file (the index, its signature, a manifest) with Node's fetch, in
 * bounded time and memory: a timeout over the whole exchange (headers and body), a byte cap
 * enforced while the body streams (and from Content-Length before), an allowed content type,
 * and conditional requests (If-None-Match / If-Modified-Since). `file://` URLs read the file
 * with the same caps.
 */
import { fileURLToPath } from 'node:url';
import { CatalogError } from './catalog.ts';
import { FileReadError, readBoundedBytes } from './read-bounded.ts';

/** The default timeout of one fetch, ms. */
export const FETCH_TIMEOUT_MS = 10_000;
/**
 * Content types a catalog file may have: static hosts serve TOML as any of the first four and
 * the signature as `application/octet-stream` or, by its `.sig` extension, as
 * `application/pgp-signature` (mime-db, which Python's http.server, Apache and GitHub Pages
 * follow). Only a sanity check against error pages: the signature is what is trusted.
 */
const TYPES = [
  'text/plain',
  'application/toml',
  'text/toml',
  'text/x-toml',
  'application/octet-stream',
  'application/pgp-signature',
];

/** What a fetch gave. */
export type Fetched =
  | { status: 'ok'; bytes: Uint8Array; etag: string | null; lastModified: string | null }
  | { status: 'not-modified' };

/** How to fetch. */
export interface FetchOptions {
  maxBytes: number;
  timeoutMs?: number;
  etag?: string | null;
  lastModified?: string | null;
}

/**
 * Fetches `url`.
 * @throws CatalogError naming the URL for: a network error, an HTTP status other than 200/304,
 *   a timeout, a body over `maxBytes`, a content type not in the allowed list.
 */
export async function fetchBounded(url: string, opts: FetchOptions): Promise<Fetched> {
  if (url.startsWith('file:')) {
    try {
      const bytes = readBoundedBytes(fileURLToPath(url), opts.maxBytes);
      return { status: 'ok', bytes, etag: null, lastModified: null };
    } catch (e) {
      if (e instanceof FileReadError) throw new CatalogError(e.message);
      throw new CatalogError(`${url}: ${(e as Error).message}`);
    }
  }
  const timeoutMs = opts.timeoutMs ?? FETCH_TIMEOUT_MS;
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  const headers: Record<string, string> = {
    'accept': 'application/toml, text/plain;q=0.9, */*;q=0.1',
  };
  if (opts.etag) headers['if-none-match'] = opts.etag;
  if (opts.lastModified) headers['if-modified-since'] = opts.lastModified;
  const timedOut = () => new CatalogError(`${url}: timed out after ${timeoutMs / 1000} s`);
  try {
    let res: Response;
    try {
      res = await fetch(url, { headers, signal: ctl.signal, redirect: 'follow' });
    } catch (e) {
      if (ctl.signal.aborted) throw timedOut();
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new CatalogError(
        `${url}: cannot fetch (${cause?.code ?? cause?.message ?? (e as Error).message})`,
      );
    }
    if (res.status === 304) {
      await res.body?.cancel();
      return { status: 'not-modified' };
    }
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => {});
      throw new CatalogError(
        `${url}: HTTP ${res.status}${res.statusText ? ' ' + res.statusText : ''}`,
      );
    }
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type && !TYPES.includes(type)) {
      await res.body?.cancel().catch(() => {});
      throw new CatalogError(
        `${url}: wrong content type '${type.slice(0, 80)}' (expected ${TYPES.join(', ')})`,
      );
    }
    const declared = Number(res.headers.get('content-length'));
    if (declared > opts.maxBytes) {
      await res.body?.cancel().catch(() => {});
      throw new CatalogError(`${url}: too large: ${declared} bytes (at most ${opts.maxBytes})`);
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    const reader = res.body!.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > opts.maxBytes) {
          ctl.abort();
          throw new CatalogError(`${url}: too large: more than ${opts.maxBytes} bytes`);
        }
        chunks.push(value);
      }
    } catch (e) {
      if (e instanceof CatalogError) throw e;
      if (ctl.signal.aborted) throw timedOut();
      throw new CatalogError(`${url}: body cut off (${(e as Error).message})`);
    }
    return {
      status: 'ok',
      bytes: Buffer.concat(chunks),
      etag: res.headers.get('etag'),
      lastModified: res.headers.get('last-modified'),
    };
  } finally {
    clearTimeout(timer);
  }
}
