import net from 'node:net';

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

const SLICES = 8;
const SLICE_SIZE = 1500; // 8 × 1500 ports in 20000–31999

/**
 * This process's slice of the port range: vitest's worker number (VITEST_POOL_ID) when there is one,
 * so test files running side by side in different workers never draw the same port; else by pid.
 */
function sliceStart(): number {
  const pool = Number(process.env.VITEST_POOL_ID);
  const slice = (Number.isInteger(pool) && pool > 0 ? pool - 1 : process.pid) % SLICES;
  return 20000 + slice * SLICE_SIZE;
}

/** Ports this process handed out: a fleet asks for ten before it listens on any. */
const handedOut = new Set<number>();

/**
 * A free TCP port for a server a test starts a moment later. Picked below Linux's ephemeral range
 * (32768–60999): a port the kernel hands out for an outgoing connection (a database pool, a NATS
 * client) can be taken between this call and the listen, which made fleets fail with EADDRINUSE;
 * ports from 20000–31999 are only ever taken by listeners. Never the same port twice in one
 * process, and a slice of the range per vitest worker, so two fleets starting side by side cannot
 * both be told the same port before either listens (seen: EADDRINUSE in CI).
 */
export async function freePort(): Promise<number> {
  const start = sliceStart();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = start + Math.floor(Math.random() * SLICE_SIZE);
    if (handedOut.has(port)) continue;
    if (await listenable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function answers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
