/**
 * Makes a catalog from a folder of manifests, ready for any static host: `index.toml` (schema 1,
 * one `[[manifests]]` entry per file with id, path, version, min_engine, sha256, size),
 * `index.toml.sig` (base64 ed25519 signature of the index's bytes) and `manifests/<file>`.
 * Every manifest is parsed and its examples run first: a broken one fails the build. Also makes
 * key pairs (`agentwatch manifests keygen`).
 */
import {
  createHash,
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
} from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseManifest } from '../detect/manifest.ts';
import { checkExamples } from './manifest-files.ts';
import { UserError } from '../errors.ts';

/** A new ed25519 key pair: the private key as PKCS#8 PEM, the public one as base64 SPKI DER. */
export function makeKeyPair(): { privatePem: string; publicKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  };
}

/**
 * The ed25519 private key in PKCS#8 PEM `privatePem` (named `where` in errors: its file).
 * @throws UserError when it is no private key, or not an ed25519 one.
 */
export function signingKey(privatePem: string, where = 'the key'): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(privatePem);
  } catch {
    throw new UserError(
      `${where}: not a private key in PEM (make one with 'agentwatch manifests keygen NAME')`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new UserError(`${where}: the key is ${key.asymmetricKeyType}, not ed25519`);
  }
  return key;
}

/**
 * Signs `index` with a PKCS#8 PEM ed25519 key; returns the base64 signature and a newline.
 * @throws UserError as {@link signingKey}.
 */
export function signIndex(index: Uint8Array, privatePem: string | KeyObject): string {
  const key = typeof privatePem === 'string' ? signingKey(privatePem) : privatePem;
  return sign(null, index, key).toString('base64') + '\n';
}

/**
 * Builds a catalog of every `*.toml` in `srcDir` into `outDir`; signs it with `privatePem`
 * (unsigned when null). Every input is checked before anything is written. Returns the index
 * text.
 * @throws ManifestError (naming the file's path and line) when a manifest does not parse or an
 *   example fails; UserError when `srcDir` is no folder or holds no `*.toml`, or the key is
 *   not an ed25519 private key ({@link signingKey}).
 */
export function buildCatalog(
  srcDir: string,
  outDir: string,
  privatePem: string | KeyObject | null,
): string {
  const key = typeof privatePem === 'string' ? signingKey(privatePem) : privatePem;
  let isDir = false;
  try {
    isDir = statSync(srcDir).isDirectory();
  } catch {
    throw new UserError(`${srcDir}: no such folder (the manifests to publish)`);
  }
  if (!isDir) throw new UserError(`${srcDir}: not a folder (the manifests to publish)`);
  const files = readdirSync(srcDir).filter((f) => f.endsWith('.toml')).sort();
  if (!files.length) throw new UserError(`${srcDir}: no *.toml manifest in this folder`);
  const texts = files.map((file) => {
    const bytes = readFileSync(join(srcDir, file));
    const m = parseManifest(bytes.toString('utf8'), join(srcDir, file));
    checkExamples(m);
    return { file, bytes, m };
  });
  mkdirSync(join(outDir, 'manifests'), { recursive: true });
  let index = '# agentwatch rules catalog (made by npm run catalog)\nschema = 1\n';
  for (const { file, bytes, m } of texts) {
    writeFileSync(join(outDir, 'manifests', file), bytes);
    index +=
      `\n[[manifests]]\nid = "${m.id}"\npath = "manifests/${file}"\nversion = "${m.version}"\n` +
      `min_engine = ${m.minEngine}\nsha256 = "${
        createHash('sha256').update(bytes).digest('hex')
      }"\n` +
      `size = ${bytes.length}\n`;
  }
  writeFileSync(join(outDir, 'index.toml'), index);
  if (key) writeFileSync(join(outDir, 'index.toml.sig'), signIndex(Buffer.from(index), key));
  return index;
}
