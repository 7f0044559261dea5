/**
 * `npm run build`: bundles src/cli/main.ts with esbuild into `dist/agentwatch`, an executable
 * CommonJS file with a node shebang. The bundled manifests (resources/agent-detection/*.toml) are
 * inlined, so the executable needs no files beside it.
 *
 * Usage: node --import tsx build.ts
 */
import { build, type Plugin } from 'esbuild';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = import.meta.dirname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

/** Replaces src/runtime/bundled-manifests.ts (which reads the TOML files at run time) with inlined texts. */
const inlineManifests: Plugin = {
  name: 'inline-manifests',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]runtime[\\/]bundled-manifests\.ts$/ }, () => {
      const dir = join(root, 'resources', 'agent-detection');
      const texts: Record<string, string> = {};
      for (const f of readdirSync(dir).filter((n) => n.endsWith('.toml')).sort()) {
        texts[f] = readFileSync(join(dir, f), 'utf8');
      }
      return {
        loader: 'ts',
        contents: `const TEXTS: Record<string, string> = ${JSON.stringify(texts)};\n` +
          `export function bundledManifestTexts(): Record<string, string> { return { ...TEXTS }; }\n`,
      };
    });
  },
};

mkdirSync(join(root, 'dist'), { recursive: true });
const outfile = join(root, 'dist', 'agentwatch');
await build({
  entryPoints: [join(root, 'src', 'cli', 'main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['node-pty'],
  // CommonJS, because a Node single-executable application runs a CommonJS script.
  define: { AGENTWATCH_VERSION: JSON.stringify(pkg.version), 'import.meta.url': '__agentwatchUrl' },
  banner: {
    js: "#!/usr/bin/env node\nconst __agentwatchUrl = require('node:url').pathToFileURL(__filename).href;",
  },
  plugins: [inlineManifests],
  logLevel: 'warning',
  legalComments: 'none',
});
chmodSync(outfile, 0o755);
// The repo's package.json says "type": "module"; the bundle is CommonJS.
writeFileSync(join(root, 'dist', 'package.json'), '{ "type": "commonjs" }\n');
console.log(`wrote ${outfile}`);
