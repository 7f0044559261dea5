/** agentwatch's entry point: runs the command line and exits with its code, after stdout drains. */
import { main } from './app.ts';

main(process.argv.slice(2)).then(
  (code) => process.stdout.write('', () => process.exit(code)),
  (e) => {
    process.stderr.write(`agentwatch: internal error: ${(e as Error)?.stack ?? e}\n`);
    process.exit(70);
  },
);
