/**
 * `agentwatch config`: the effective configuration, each value with where it came from (the
 * default, `config.toml:LINE`, or an environment variable). `--json` prints it as one object.
 */
import { type Command, UsageError } from './command.ts';
import { DEFAULT_INTERVAL_MS } from '../runtime/sweep.ts';
import { loadConfig } from '../runtime/config.ts';
import { PINNED_CATALOG_KEYS } from '../runtime/catalog.ts';

function fmtMs(ms: number): string {
  return ms % 3_600_000 === 0
    ? `${ms / 3_600_000}h`
    : ms % 60_000 === 0
    ? `${ms / 60_000}m`
    : ms % 1000 === 0
    ? `${ms / 1000}s`
    : `${ms}ms`;
}

export const configCommand: Command = {
  name: 'config',
  summary: 'print the effective configuration and where each value came from',
  usage: 'config [--json]',
  maxArgs: 0,
  options: { json: { type: 'boolean' } },
  help: { json: 'one JSON object: {file, values: {KEY: {value, from}}}' },
  run(values, positionals, io) {
    if (positionals.length) {
      return Promise.reject(new UsageError(`config takes no arguments, got '${positionals[0]}'`));
    }
    const { config, origins, path } = loadConfig(process.env);
    const from = (k: string) => origins.get(k) ?? 'default';
    const rows: Array<[string, unknown, string]> = [
      ['catalog_url', config.catalogUrl, from('catalog_url')],
      ['catalog_keys', config.catalogKeys, from('catalog_keys')],
      ['pinned_keys', [...PINNED_CATALOG_KEYS], 'built in'],
      ['update', config.update, from('update')],
      ['update_interval', fmtMs(config.updateIntervalMs), from('update_interval')],
      ['sweep.interval', config.sweep.intervalMs ?? DEFAULT_INTERVAL_MS, from('sweep.interval')],
      ['sweep.adaptive', config.sweep.adaptive ?? true, from('sweep.adaptive')],
    ];
    for (const [id, a] of Object.entries(config.agents)) {
      rows.push([`agents.${id}.args`, a.args, from(`agents.${id}.args`)]);
    }
    rows.push([
      'notify',
      config.notify,
      config.notify ? `${from('notify')} (read by the notifications module)` : 'default',
    ]);
    if (values.json === true) {
      const out: Record<string, { value: unknown; from: string }> = {};
      for (const [k, v, f] of rows) out[k] = { value: v, from: f };
      io.stdout(JSON.stringify({ file: path, values: out }) + '\n');
      return Promise.resolve(0);
    }
    io.stdout(`config file: ${path}\n`);
    const w = Math.max(...rows.map((r) => r[0].length));
    for (const [k, v, f] of rows) {
      io.stdout(`${k.padEnd(w)} = ${JSON.stringify(v)}  # ${f}\n`);
    }
    return Promise.resolve(0);
  },
};
