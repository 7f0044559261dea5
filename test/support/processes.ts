/** Facts about processes the tests started, read from the kernel. */

/** True while process `pid` exists (signal 0; EPERM: it exists, another user's). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
