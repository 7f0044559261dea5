/**
 * The catalog's index and its signature. The index is TOML at the catalog URL:
 *
 * ```toml
 * schema = 1
 * [[manifests]]
 * id = "qwen"
 * path = "manifests/qwen.toml"   # relative to the index; no '..', no scheme, no leading '/'
 * version = "2026.12.02"
 * min_engine = 1
 * sha256 = "9f2c..."             # hex, of the file's bytes
 * size = 10422                   # bytes
 * ```
 * Unknown keys are ignored in the index (an older agentwatch must keep reading a newer index);
 * inside manifests they stay errors. The signature is `index.toml.sig` beside it: the base64
 * of a detached ed25519 signature (RFC 8032) of the index's exact bytes, checked with node:crypto
 * against the keys pinned here and the config's `catalog_keys`. Keys are base64 of the
 * SubjectPublicKeyInfo DER (44 characters), as `agentwatch manifests keygen` prints them.
 */
import { createPublicKey, verify } from 'node:crypto';
import { parse, TomlError } from 'smol-toml';

/**
 * Public keys pinned in the executable. Empty on purpose: the project publishes no catalog
 * yet, and a pinned key whose private half no one keeps safe would be worse than none. The
 * mechanism is in place: add the project's key here when it publishes one.
 */
export const PINNED_CATALOG_KEYS: readonly string[] = [];
/** The index schema this code reads. */
export const INDEX_SCHEMA = 1;

/** A catalog that cannot be used (fetch, signature, index); the message says what and where. */
export class CatalogError extends Error {
  override name = 'CatalogError';
}

/** One `[[manifests]]` entry of the index. */
export interface IndexEntry {
  id: string;
  path: string;
  version: string;
  minEngine: number;
  sha256: string;
  size: number;
}

/** True when `path` is a plain relative path: segments of [A-Za-z0-9._-], no '..', no scheme. */
export function safeRelativePath(path: string): boolean {
  if (!/^[A-Za-z0-9._/-]+$/.test(path) || path.startsWith('/')) return false;
  return path.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

/**
 * Parses an index; `source` names it in errors.
 * @throws CatalogError for a TOML error, a schema other than 1, or an entry with a missing or
 *   bad id, path, version, min_engine, sha256 or size (naming the entry).
 */
export function parseIndex(text: string, source: string): IndexEntry[] {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof TomlError) {
      throw new CatalogError(`${source}:${e.line}: not a TOML index (${e.message.split('\n')[0]})`);
    }
    throw e;
  }
  if (doc.schema !== INDEX_SCHEMA) {
    throw new CatalogError(
      `${source}: index schema ${JSON.stringify(doc.schema)} (this agentwatch reads schema = 1)`,
    );
  }
  const list = doc.manifests ?? [];
  if (!Array.isArray(list)) throw new CatalogError(`${source}: manifests: expected [[manifests]]`);
  return list.map((e, i) => {
    const at = `${source}: manifests[${i}]`;
    if (typeof e !== 'object' || e === null) throw new CatalogError(`${at}: expected a table`);
    const t = e as Record<string, unknown>;
    const str = (k: string) => {
      if (typeof t[k] !== 'string' || !t[k]) {
        throw new CatalogError(`${at}: ${k}: expected a string`);
      }
      return t[k] as string;
    };
    const id = str('id');
    if (!/^[a-z0-9-]+$/.test(id)) throw new CatalogError(`${at}: id: invalid id`);
    const path = str('path');
    if (!safeRelativePath(path)) {
      throw new CatalogError(
        `${at}: path '${path.slice(0, 200)}' must be relative (no '..', no scheme, no leading '/')`,
      );
    }
    const sha256 = str('sha256').toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(sha256)) {
      throw new CatalogError(`${at}: sha256: expected 64 hex digits`);
    }
    const size = t.size;
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 1) {
      throw new CatalogError(`${at}: size: expected a positive integer (bytes)`);
    }
    const me = t.min_engine ?? 1;
    if (typeof me !== 'number' || !Number.isInteger(me) || me < 1) {
      throw new CatalogError(`${at}: min_engine: expected a positive integer`);
    }
    return { id, path, version: str('version'), minEngine: me, sha256, size };
  });
}

/**
 * Verifies the detached signature `sigText` (base64 of 64 bytes) of `index` with any of `keys`.
 * @returns the key that verified it.
 * @throws CatalogError when the signature is malformed or no key verifies it.
 */
export function verifyIndex(index: Uint8Array, sigText: string, keys: readonly string[]): string {
  const sig = Buffer.from(sigText.trim(), 'base64');
  if (sig.length !== 64) {
    throw new CatalogError(
      `signature: expected base64 of 64 bytes (ed25519), got ${sig.length} bytes`,
    );
  }
  for (const k of keys) {
    let key;
    try {
      key = createPublicKey({ key: Buffer.from(k, 'base64'), format: 'der', type: 'spki' });
    } catch {
      throw new CatalogError(
        `catalog_keys: '${k.slice(0, 60)}' is not an ed25519 public key (base64 SPKI)`,
      );
    }
    if (key.asymmetricKeyType !== 'ed25519') {
      throw new CatalogError(
        `catalog_keys: '${k.slice(0, 60)}' is a ${key.asymmetricKeyType} key, not ed25519`,
      );
    }
    if (verify(null, index, key, sig)) return k;
  }
  throw new CatalogError(
    `bad signature: index.toml.sig does not verify with any of ${keys.length} trusted key(s)`,
  );
}
