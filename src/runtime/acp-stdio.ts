/**
 * An ACP agent's stdio as the SDK's message stream (@agentclientprotocol/sdk 2.4's
 * `ndJsonStream`: JSON-RPC, one JSON object per line): its stdout read as web stream input, its
 * stdin written as output, with a tap that reports lines that are not JSON (the SDK answers
 * them with a parse error and reads on) and lines over {@link MAX_LINE} (protocol.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { lineReader } from './protocol.ts';

/** What the tap reports. */
export interface StdioTap {
  /** A line of the agent's stdout that is not JSON. */
  onBadLine: (line: string) => void;
  /** A line longer than MAX_LINE (nothing after it is checked). */
  onOverLong: () => void;
}

/**
 * The SDK stream over `child`'s stdout and stdin (both must be pipes). Once the SDK closes the
 * connection (it cancels the input), later output is dropped: an enqueue on a closed stream
 * throws, and that must not crash the host.
 */
export function stdioStream(child: ChildProcess, tap: StdioTap): ReturnType<typeof ndJsonStream> {
  const check = lineReader((line) => {
    try {
      JSON.parse(line);
    } catch {
      tap.onBadLine(line);
    }
  }, tap.onOverLong);
  let open = true;
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      const safe = (f: () => void) => {
        if (!open) return;
        try {
          f();
        } catch {
          open = false;
        }
      };
      child.stdout!.on('data', (d: Buffer) => {
        check(d);
        safe(() => controller.enqueue(new Uint8Array(d)));
      });
      child.stdout!.on('end', () => safe(() => controller.close()));
      child.stdout!.on('error', (e) => safe(() => controller.error(e)));
    },
    cancel() {
      open = false;
    },
  });
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      return new Promise((resolve, reject) =>
        child.stdin!.write(chunk, (e) => (e ? reject(e) : resolve()))
      );
    },
  });
  return ndJsonStream(output, input);
}
