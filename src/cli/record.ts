/**
 * `agentwatch record [--out DIR] [--name N] -- CMD ARGS...`: runs the command exactly like
 * `run` (same PTY handling, sweep, socket, notifications) and records the session in the
 * format of src/runtime/recording.ts: every PTY read, every key, every resize, and the
 * person's truth marks (the chord Ctrl-\ b/w/i, or `agentwatch mark SESSION STATE` from
 * another terminal).
 */
import { basename, resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import { type Command, stringOption, UserError } from './command.ts';
import { runCommand } from './run.ts';
import { splitCommand } from './argv.ts';
import {
  CHORD_HELP,
  MarkChords,
  packageVersion,
  Recorder,
  type TruthState,
} from '../runtime/recording.ts';
import { resolveCommand } from '../runtime/session.ts';

export const recordCommand: Command = {
  name: 'record',
  summary: 'run an agent like `run` and record its session (bytes, keys, sizes, your truth marks)',
  usage: 'record [--out DIR] [--name NAME] [run options] -- CMD ARGS...',
  passthrough: true,
  options: {
    out: { type: 'string' },
    ...runCommand.options,
  },
  placeholders: { out: 'DIR', ...runCommand.placeholders },
  help: {
    out: 'folder for NAME.bytes.jsonl, .input.jsonl, .truth.jsonl, .meta.json (default: .)',
    ...runCommand.help,
    name: "the recording's and the session's name (default: the command name and a time)",
  },
  async run(values, positionals, io) {
    const { command, args } = splitCommand(positionals);
    const dir = resolve(stringOption(values, 'out', '.')!);
    const name = stringOption(values, 'name') ??
      `${basename(command)}-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}`;
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name)) {
      throw new UserError(`--name ${JSON.stringify(name)}: use letters, digits, '.', '_', '-'`);
    }
    // a command that cannot start leaves no recording behind (resolveCommand throws, exit 127)
    const version = packageVersion(resolveCommand(command));
    try {
      mkdirSync(dir, { recursive: true });
    } catch (e) {
      throw new UserError(`--out ${dir}: cannot create (${(e as NodeJS.ErrnoException).code})`);
    }
    const stdout = process.stdout;
    const recorder = new Recorder(dir, name, {
      version,
      rows: stdout.rows || 32,
      cols: stdout.columns || 120,
      argv: [command, ...args],
      args,
    });
    process.on('exit', () => recorder.close()); // a signal ends run with process.exit
    io.stderr(
      `agentwatch record: recording to ${dir}/${name}.*; ${CHORD_HELP}, or agentwatch mark ${name} STATE\n`,
    );
    const chords = new MarkChords();
    const mark = (state: TruthState, why: string) => recorder.mark(state, why);
    const code = await runCommand.run({ ...values, name }, positionals, io, {
      started(session, host) {
        recorder.resized(session.terminal.rows, session.terminal.cols);
        session.onOutput((data) => recorder.output(data));
        // Every byte the agent is given: the person's keys (chords taken out), and what send,
        // answer or an attached board wrote through the control socket.
        session.onInput((data) => recorder.input(data));
        // The agent as soon as it is known, and whenever it changes: a session whose state
        // never changed (a Codex start screen and nothing more) still names its agent.
        recorder.agent(host.info(session.id).agent);
        host.onPublish((info) => {
          if (info.id === session.id) recorder.agent(info.agent);
        });
        host.setMarker(session.id, (state, note) => {
          if (state !== 'blocked' && state !== 'working' && state !== 'idle') {
            throw new UserError(`mark: state must be blocked, working or idle, got '${state}'`);
          }
          return mark(state, note || 'agentwatch mark');
        });
      },
      input(data) {
        const { pass, marks } = chords.feed(data);
        for (const state of marks) mark(state, 'key chord');
        return pass;
      },
      resized: (rows, cols) => recorder.resized(rows, cols),
      exited: (code) => recorder.close(code),
    });
    return code;
  },
};
