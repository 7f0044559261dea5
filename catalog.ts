/**
 * `npm run catalog -- --key FILE [--out DIR] [--from DIR]`: builds a signed rules catalog
 * (default: dist/catalog/ from resources/agent-detection/) ready for any static host. The key is
 * an ed25519 private key in PKCS#8 PEM, as `agentwatch manifests keygen` writes it; `--unsigned`
 * instead of `--key` builds one that only `catalog_keys = []` accepts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildCatalog } from './src/runtime/catalog-build.ts';

const root = import.meta.dirname;
const { values } = parseArgs({
  options: {
    key: { type: 'string' },
    out: { type: 'string' },
    from: { type: 'string' },
    unsigned: { type: 'boolean' },
  },
});
if (!values.key && !values.unsigned) {
  console.error('usage: npm run catalog -- --key PRIVATE-KEY.pem [--out DIR] [--from DIR] (or --unsigned)');
  process.exit(2);
}
const out = values.out ?? join(root, 'dist', 'catalog');
const from = values.from ?? join(root, 'resources', 'agent-detection');
const pem = values.key ? readFileSync(values.key, 'utf8') : null;
const index = buildCatalog(from, out, pem);
const n = (index.match(/\[\[manifests\]\]/g) ?? []).length;
console.log(`${out}: index.toml with ${n} manifests${pem ? ', index.toml.sig' : ' (unsigned)'}`);
