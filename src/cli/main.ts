/**
 * agentwatch's entry point: runs the command line and exits with its code, after stdout
 * drains. The hook commands (`report`, `notify`) load only their own small module, so that
 * an agent's hook costs little more than starting Node; `notify --test` is not a hook, and
 * their `--help` is the app's, from hook-commands.ts.
 */
const argv = process.argv.slice(2);
// The reader of our output went away (`agentwatch watch --json | head -1`): end quietly, as
// other CLIs do on SIGPIPE, instead of an uncaught EPIPE's stack trace. Output we can no longer
// deliver is not an error of ours; stderr's own errors have nowhere to go.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
process.stderr.on('error', () => {});
const hook = (argv[0] === 'report' || argv[0] === 'notify') &&
  !argv.some((a) => a === '--test' || a === '--help' || a === '-h');
const run: Promise<number> = hook
  ? import('./hook.ts').then((m) => m.hookMain(argv))
  : import('./app.ts').then((m) => m.main(argv));

run.then(
  (code) => process.stdout.write('', () => process.exit(code)),
  (e) => {
    process.stderr.write(`agentwatch: internal error: ${(e as Error)?.stack ?? e}\n`);
    process.exit(70);
  },
);
