/**
 * `npm run catalog -- --key FILE [--out DIR] [--from DIR]`: builds a signed rules catalog
 * (default: dist/catalog/ from resources/agent-detection/) ready for any static host. The key is
 * an ed25519 private key in PKCS#8 PEM, as `agentwatch manifests keygen` writes it; `--unsigned`
 * instead of `--key` builds one that only `catalog_keys = []` accepts.
 *
 * Bad input (an unknown option, a missing or wrong key, a folder that is not there or holds no
 * manifest, a broken manifest, an output folder that cannot be written) is one line on stderr,
 * `npm run catalog: WHAT: WHY`, and exit 1 (2 for a usage error); nothing is written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildCatalog, signingKey } from './src/runtime/catalog-build.ts';
import { ManifestError } from './src/detect/errors.ts';
import { UserError } from './src/errors.ts';

const USAGE =
  'usage: npm run catalog -- --key PRIVATE-KEY.pem [--out DIR] [--from DIR] (or --unsigned)';

/** Prints `message` as one line and exits with `code`. */
function fail(message: string, code = 1): never {
  console.error(`npm run catalog: ${message.split('\n')[0]}`);
  if (code === 2) console.error(USAGE);
  process.exit(code);
}

/** What an fs error says, in words: 'no such file', 'permission denied', ... */
function fsReason(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ENOENT':
      return 'no such file or folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'a folder, not a file';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    default:
      return e.code ?? e.message;
  }
}

const root = import.meta.dirname;
let values: { key?: string; out?: string; from?: string; unsigned?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      key: { type: 'string' },
      out: { type: 'string' },
      from: { type: 'string' },
      unsigned: { type: 'boolean' },
    },
  }));
} catch (e) {
  fail((e as Error).message, 2);
}
if (!values.key && !values.unsigned) fail('give --key PRIVATE-KEY.pem, or --unsigned', 2);
if (values.key && values.unsigned) fail('give --key or --unsigned, not both', 2);
const out = values.out ?? join(root, 'dist', 'catalog');
const from = values.from ?? join(root, 'resources', 'agent-detection');
try {
  let key = null;
  if (values.key) {
    let pem: string;
    try {
      pem = readFileSync(values.key, 'utf8');
    } catch (e) {
      throw new UserError(`--key ${values.key}: ${fsReason(e as NodeJS.ErrnoException)}`);
    }
    key = signingKey(pem, `--key ${values.key}`);
  }
  const index = buildCatalog(from, out, key);
  const n = (index.match(/\[\[manifests\]\]/g) ?? []).length;
  console.log(`${out}: index.toml with ${n} manifests${key ? ', index.toml.sig' : ' (unsigned)'}`);
} catch (e) {
  if (e instanceof UserError || e instanceof ManifestError) fail(e.message);
  const err = e as NodeJS.ErrnoException;
  if (typeof err?.code === 'string' && typeof err.syscall === 'string') {
    fail(`${err.path ?? out}: ${fsReason(err)} (${err.syscall})`);
  }
  throw e; // a bug, not bad input: its stack is wanted
}
