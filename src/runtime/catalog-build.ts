/**
 * Makes a catalog from a folder of manifests, ready for any static host: `index.toml` (schema 1,
 * one `[[manifests]]` entry per file with id, path, version, min_engine, sha256, size),
 * `index.toml.sig` (base64 ed25519 signature of the index's bytes) and `manifests/<file>`.
 * Every manifest is parsed and its examples run first: a broken one fails the build. Also makes
 * key pairs (`agentwatch manifests keygen`).
 */
import { createHash, createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseManifest } from '../detect/manifest.ts';
import { checkExamples } from './manifest-files.ts';

/** A new ed25519 key pair: the private key as PKCS#8 PEM, the public one as base64 SPKI DER. */
export function makeKeyPair(): { privatePem: string; publicKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  };
}

/** Signs `index` with a PKCS#8 PEM ed25519 key; returns the base64 signature and a newline. */
export function signIndex(index: Uint8Array, privatePem: string): string {
  const key = createPrivateKey(privatePem);
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(`the key is ${key.asymmetricKeyType}, not ed25519`);
  }
  return sign(null, index, key).toString('base64') + '\n';
}

/**
 * Builds a catalog of every `*.toml` in `srcDir` into `outDir`; signs it with `privatePem`
 * (unsigned when null). Returns the index text.
 * @throws ManifestError when a manifest does not parse or an example fails.
 */
export function buildCatalog(srcDir: string, outDir: string, privatePem: string | null): string {
  mkdirSync(join(outDir, 'manifests'), { recursive: true });
  let index = '# agentwatch rules catalog (made by npm run catalog)\nschema = 1\n';
  for (const file of readdirSync(srcDir).filter((f) => f.endsWith('.toml')).sort()) {
    const bytes = readFileSync(join(srcDir, file));
    const m = parseManifest(bytes.toString('utf8'), file);
    checkExamples(m);
    writeFileSync(join(outDir, 'manifests', file), bytes);
    index +=
      `\n[[manifests]]\nid = "${m.id}"\npath = "manifests/${file}"\nversion = "${m.version}"\n` +
      `min_engine = ${m.minEngine}\nsha256 = "${
        createHash('sha256').update(bytes).digest('hex')
      }"\n` +
      `size = ${bytes.length}\n`;
  }
  writeFileSync(join(outDir, 'index.toml'), index);
  if (privatePem) {
    writeFileSync(join(outDir, 'index.toml.sig'), signIndex(Buffer.from(index), privatePem));
  }
  return index;
}
