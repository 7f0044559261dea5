/**
 * agentwatch's entry point: runs the command line and exits with its code, after stdout
 * drains (at once, with 0, when its reader went away). The hook commands (`report`, `notify`) load only their own small module, so that
 * an agent's hook costs little more than starting Node; `notify --test` is not a hook, and
 * their `--help` is the app's, from hook-commands.ts.
 */
const argv = process.argv.slice(2);
const hook = (argv[0] === 'report' || argv[0] === 'notify') &&
  !argv.some((a) => a === '--test' || a === '--help' || a === '-h');
const run: Promise<number> = hook
  ? import('./hook.ts').then((m) => m.hookMain(argv))
  : import('./app.ts').then((m) => m.main(argv));

// The reader went away (`agentwatch watch --json | head -1`): end quietly, as a program that
// gets SIGPIPE does (Node ignores SIGPIPE, so the write fails with EPIPE instead), not with an
// unhandled 'error' event's stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}

run.then(
  (code) => process.stdout.write('', () => process.exit(code)),
  (e) => {
    process.stderr.write(`agentwatch: internal error: ${(e as Error)?.stack ?? e}\n`);
    process.exit(70);
  },
);
