/**
 * The `[notify]` table of the config file (`$XDG_CONFIG_HOME/agentwatch/config.toml`) and the
 * command-line flags that override it, as one {@link NotifyOptions}. Pure: the caller parses
 * the TOML (smol-toml) and passes the table as a plain object.
 *
 * ```toml
 * [notify]
 * desktop = true          # osascript / notify-send
 * terminal = true         # OSC 9, OSC 777, BEL in the board's or run's terminal
 * title = true            # run: the state before the agent's own terminal title
 * done = false            # also when a turn ends (idle after work)
 * command = "..."         # a shell command per notice (AGENTWATCH_* variables)
 * url = "https://ntfy.sh/my-topic"
 * format = "json"         # or "text"
 * include_text = false    # let the prompt's text leave the machine (push only)
 * focus_ms = 5000         # no desktop notice for a session typed into this recently
 * ```
 */

/** Every notification setting, resolved. Times in ms. */
export interface NotifyOptions {
  desktop: boolean;
  terminal: boolean;
  title: boolean;
  done: boolean;
  command?: string;
  url?: string;
  format: 'json' | 'text';
  includeText: boolean;
  focusMs: number;
}

/** The defaults: desktop, terminal and title on; done, command and push off. */
export const NOTIFY_DEFAULTS: NotifyOptions = {
  desktop: true,
  terminal: true,
  title: true,
  done: false,
  format: 'json',
  includeText: false,
  focusMs: 5_000,
};

type Kind = 'boolean' | 'string' | 'format' | 'ms';
const KEYS: Record<string, { field: keyof NotifyOptions; kind: Kind }> = {
  desktop: { field: 'desktop', kind: 'boolean' },
  terminal: { field: 'terminal', kind: 'boolean' },
  title: { field: 'title', kind: 'boolean' },
  done: { field: 'done', kind: 'boolean' },
  command: { field: 'command', kind: 'string' },
  url: { field: 'url', kind: 'string' },
  format: { field: 'format', kind: 'format' },
  include_text: { field: 'includeText', kind: 'boolean' },
  focus_ms: { field: 'focusMs', kind: 'ms' },
};

/** A bad `[notify]` table; the message names the key and what was wrong. */
export class NotifyConfigError extends Error {
  override name = 'NotifyConfigError';
}

/**
 * Validates the `[notify]` table (a plain object from the TOML parser) into the settings it
 * gives. `where` prefixes the messages (the file's path).
 * @throws NotifyConfigError naming the key: an unknown key, a value of the wrong type, a
 *   format other than json/text, a url that is not http(s), focus_ms outside 0-600000.
 */
export function readNotifyTable(table: unknown, where = 'config'): Partial<NotifyOptions> {
  if (table === undefined) return {};
  if (typeof table !== 'object' || table === null || Array.isArray(table)) {
    throw new NotifyConfigError(`${where}: [notify] must be a table`);
  }
  const out: Partial<Record<keyof NotifyOptions, unknown>> = {};
  for (const [key, value] of Object.entries(table)) {
    const spec = KEYS[key];
    const at = `${where}: notify.${key}`;
    if (!spec) {
      throw new NotifyConfigError(
        `${where}: unknown key notify.${key} (known: ${Object.keys(KEYS).join(', ')})`,
      );
    }
    switch (spec.kind) {
      case 'boolean':
        if (typeof value !== 'boolean') {
          throw new NotifyConfigError(`${at} must be true or false`);
        }
        break;
      case 'string':
        if (typeof value !== 'string' || !value.trim()) {
          throw new NotifyConfigError(`${at} must be a non-empty string`);
        }
        if (key === 'url' && !/^https?:\/\/[^\s]+$/i.test(value)) {
          throw new NotifyConfigError(`${at} must be an http or https URL, got '${value}'`);
        }
        break;
      case 'format':
        if (value !== 'json' && value !== 'text') {
          throw new NotifyConfigError(`${at} must be "json" or "text"`);
        }
        break;
      case 'ms':
        if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 600_000) {
          throw new NotifyConfigError(`${at} must be a whole number of ms from 0 to 600000`);
        }
        break;
    }
    out[spec.field] = value;
  }
  return out as Partial<NotifyOptions>;
}

/** The settings in force: the defaults, then the config file's table, then the flags. */
export function resolveNotify(
  config: Partial<NotifyOptions>,
  flags: Partial<NotifyOptions>,
): NotifyOptions {
  const out = { ...NOTIFY_DEFAULTS };
  for (const layer of [config, flags]) {
    for (const [k, v] of Object.entries(layer)) {
      if (v !== undefined) (out as Record<string, unknown>)[k] = v;
    }
  }
  return out;
}
