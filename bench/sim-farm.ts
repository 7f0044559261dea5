/**
 * The simulated agents of bench/sweep.ts in one process (`node --import tsx bench/sim-farm.ts
 * SOCKET SPEED`, forked with an IPC channel): many {@link SimAgent}s cost a few hundred KB
 * each here, where one `sim-agent` node process costs about 40 MB. It listens on the Unix
 * socket SOCKET; what a connection says first decides what it gets:
 *
 * - `INDEX\n` (bench/relay.c, inside one of the host's PTYs): one agent (seed INDEX + 1),
 *   its screen bytes raw on the connection, the connection's bytes its keys; its true state
 *   changes go to the parent as IPC messages `{i, t, state}` (t: ms since the epoch, taken
 *   when the agent wrote that state's screen);
 * - `mux N\n` (the in-process synthetic case): N agents on this one connection, in frames
 *   of a 9-byte header (u32 agent index, u8 kind: 0 screen bytes / keys, 1 truth as JSON
 *   `{t, state}`, u32 payload length) and the payload, both ways; screen bytes and truth in
 *   the order they happened.
 *
 * Prints `ready` on IPC once listening. Ends when its parent disconnects.
 */
import { createServer, type Socket } from 'node:net';
import { SimAgent } from '../src/sim/agent.ts';
import { truthClock } from './sweep-common.ts';

const [socketPath, speedText] = process.argv.slice(2);
const speed = Number(speedText) || 1;
const ROWS = 32;
const COLS = 120;

/** A frame of the mux protocol. */
function frame(index: number, kind: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUInt32LE(index, 0);
  head.writeUInt8(kind, 4);
  head.writeUInt32LE(payload.length, 5);
  return Buffer.concat([head, payload]);
}

/** One agent on a relay connection. */
function serveOne(socket: Socket, index: number, rest: Buffer): void {
  const clock = truthClock();
  const agent = new SimAgent({
    seed: index + 1,
    speed,
    rows: ROWS,
    cols: COLS,
    write: (s) => {
      clock.wrote();
      if (!socket.destroyed) socket.write(s);
    },
    onState: (state, t) => process.send?.({ i: index, t: clock.stateAt(t), state }),
  });
  socket.on('data', (d: Buffer) => agent.key(d.toString('utf8')));
  socket.on('close', () => agent.end('hangup'));
  socket.on('error', () => {});
  agent.start();
  if (rest.length) agent.key(rest.toString('utf8'));
}

/** N agents multiplexed on one connection. */
function serveMux(socket: Socket, n: number, rest: Buffer): void {
  const agents: SimAgent[] = [];
  for (let i = 0; i < n; i++) {
    const clock = truthClock();
    agents.push(
      new SimAgent({
        seed: i + 1,
        speed,
        rows: ROWS,
        cols: COLS,
        write: (s) => {
          clock.wrote();
          if (!socket.destroyed) socket.write(frame(i, 0, Buffer.from(s)));
        },
        onState: (state, t) =>
          void (socket.destroyed ||
            socket.write(
              frame(i, 1, Buffer.from(JSON.stringify({ t: clock.stateAt(t), state }))),
            )),
      }),
    );
  }
  let pending = rest;
  socket.on('data', (d: Buffer) => {
    pending = pending.length ? Buffer.concat([pending, d]) : d;
    while (pending.length >= 9) {
      const len = pending.readUInt32LE(5);
      if (pending.length < 9 + len) break;
      const i = pending.readUInt32LE(0);
      agents[i]?.key(pending.subarray(9, 9 + len).toString('utf8'));
      pending = pending.subarray(9 + len);
    }
  });
  socket.on('close', () => agents.forEach((a) => a.end('hangup')));
  socket.on('error', () => {});
  for (const a of agents) a.start();
}

const server = createServer((socket) => {
  let head = Buffer.alloc(0);
  const onHead = (d: Buffer) => {
    head = Buffer.concat([head, d]);
    const nl = head.indexOf(10);
    if (nl < 0) return;
    socket.off('data', onHead);
    const line = head.subarray(0, nl).toString();
    const rest = head.subarray(nl + 1);
    const mux = /^mux (\d+)$/.exec(line);
    if (mux) serveMux(socket, Number(mux[1]), rest);
    else serveOne(socket, Number(line), rest);
  };
  socket.on('data', onHead);
});
server.listen(socketPath, () => process.send?.('ready'));
process.on('disconnect', () => process.exit(0));
