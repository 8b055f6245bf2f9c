import type { FastifyReply } from 'fastify';
import { AppError, sendError } from '@msp/errors';
import type { ObjectStorage } from '@msp/storage';

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` (one range); anything else is ignored (RFC 9110: send it all). */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (match[2] !== '' && Number(match[2]) < start) return null;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}

/**
 * Streams an object from storage, honouring a Range header (206 + Content-Range; 416 when it
 * lies beyond the end). Never buffers the object.
 */
export async function sendObject(
  reply: FastifyReply,
  storage: ObjectStorage,
  key: string,
  options: { contentType: string; range?: string; headers?: Record<string, string> },
): Promise<FastifyReply> {
  const stat = await storage.stat(key);
  if (!stat) throw new AppError('TRACK_NOT_FOUND');
  reply.header('accept-ranges', 'bytes');
  reply.header('content-type', options.contentType);
  if (options.headers) reply.headers(options.headers);
  if (stat.etag) reply.header('etag', `"${stat.etag.replace(/"/g, '')}"`);
  const range = parseRange(options.range, stat.size);
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${stat.size}`);
    return sendError(reply.request, reply, 416, 'RANGE_NOT_SATISFIABLE', 'The requested range lies beyond the end of the file.', [
      { field: 'range', message: `The file has ${stat.size} bytes.` },
    ]);
  }
  if (range) {
    reply.code(206);
    reply.header('content-range', `bytes ${range.start}-${range.end}/${stat.size}`);
    reply.header('content-length', String(range.end - range.start + 1));
    return reply.send(await storage.get(key, range));
  }
  reply.header('content-length', String(stat.size));
  return reply.send(await storage.get(key));
}
