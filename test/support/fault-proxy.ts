import { type Server, type Socket, connect, createServer } from 'node:net';

/**
 * A loopback TCP proxy in front of a gRPC service, for failure tests. Armed with
 * `cutNextResponse()`, it forwards the next request and then, at the first HTTP/2 HEADERS frame the
 * service sends back (a gRPC server sends it only once the handler has returned, so after the work
 * was committed), closes the connection instead of passing the answer on: the caller sees a
 * transport failure for a change that was applied. Frames are parsed only to find that moment.
 */
const HEADERS_FRAME = 0x1;
const FRAME_HEADER_BYTES = 9;
export interface FaultProxy {
  readonly address: string;
  cutNextResponse(): void;
  /** How many answers were cut so far. */
  cuts(): number;
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const [host, port] = [upstream.slice(0, upstream.lastIndexOf(':')), Number(upstream.slice(upstream.lastIndexOf(':') + 1))];
  let armed = false;
  let requestSeenSinceArmed = false;
  let cutCount = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const service = connect(port, host);
    sockets.add(client).add(service);
    const drop = () => {
      client.destroy();
      service.destroy();
    };
    client.on('data', (chunk) => {
      if (armed) requestSeenSinceArmed = true;
      service.write(chunk);
    });
    let pending = Buffer.alloc(0);
    service.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      // Forward whole frames, one at a time, so the cut can fall exactly before a HEADERS frame.
      while (pending.length >= FRAME_HEADER_BYTES) {
        const size = FRAME_HEADER_BYTES + pending.readUIntBE(0, 3);
        if (pending.length < size) break;
        const frame = pending.subarray(0, size);
        pending = pending.subarray(size);
        if (armed && requestSeenSinceArmed && frame[3] === HEADERS_FRAME) {
          armed = false;
          requestSeenSinceArmed = false;
          cutCount++;
          drop();
          return;
        }
        client.write(frame);
      }
    });
    for (const socket of [client, service]) {
      socket.on('error', drop);
      socket.on('close', () => {
        sockets.delete(socket);
        drop();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    address: `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    cutNextResponse() {
      armed = true;
      requestSeenSinceArmed = false;
    },
    cuts: () => cutCount,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
