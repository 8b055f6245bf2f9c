/// <reference path="./vendor-types.d.ts" />
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { freePort } from './ports.js';

export interface S3rverHandle {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  close(): Promise<void>;
}

/** An embedded S3-compatible server (s3rver) on a free local port, storing in a temp folder. */
export async function startS3rver(options: { port?: number; directory?: string } = {}): Promise<S3rverHandle> {
  const port = options.port ?? (await freePort());
  const directory = options.directory ?? (await mkdtemp(path.join(os.tmpdir(), 's3rver-')));
  const server = new S3rver({ port, address: '127.0.0.1', silent: true, directory, resetOnClose: !options.directory });
  await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    async close() {
      const closing = server.close();
      // Connections still streaming (a body a test never read, a client gone mid-download) would hold
      // the close forever: end them, the test is over.
      (server as unknown as { httpServer?: { closeAllConnections?: () => void } }).httpServer?.closeAllConnections?.();
      await closing;
      if (!options.directory) await rm(directory, { recursive: true, force: true });
    },
  };
}
