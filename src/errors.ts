/**
 * The one error type every layer above `vt`/`detect` throws for bad input: its message names
 * what was wrong and where (`FILE: no such file`). The CLI prints it without a stack trace
 * and exits with `exitCode`.
 */
export class UserError extends Error {
  override name = 'UserError';
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}
