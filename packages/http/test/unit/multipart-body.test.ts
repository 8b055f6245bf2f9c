import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AppError } from '@msp/errors';
import { ClosingDelimiterScanner, multipartBoundary, multipartParts, type MultipartPartLike } from '../../src/multipart-body.js';

const BOUNDARY = 'Ab-12';

describe('multipartBoundary', () => {
  it('reads a token or a quoted boundary and keeps its case', () => {
    expect(multipartBoundary('multipart/form-data; boundary=Ab-12')).toBe('Ab-12');
    expect(multipartBoundary('multipart/form-data; charset=utf-8; BOUNDARY="a b;c"')).toBe('a b;c');
    expect(multipartBoundary('multipart/form-data')).toBeNull();
    expect(multipartBoundary(undefined)).toBeNull();
  });
});

describe('ClosingDelimiterScanner', () => {
  const closed = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\nxyz\r\n--${BOUNDARY}--\r\nepilogue`);

  it('finds the closing delimiter wherever the chunks split it', () => {
    for (let cut = 0; cut <= closed.length; cut++) {
      for (let second = cut; second <= closed.length; second += 7) {
        const scanner = new ClosingDelimiterScanner(BOUNDARY);
        scanner.feed(closed.subarray(0, cut));
        scanner.feed(closed.subarray(cut, second));
        scanner.feed(closed.subarray(second));
        expect(scanner.found, `cut at ${cut} and ${second}`).toBe(true);
      }
    }
  });

  it('finds it at the very start of a body without parts, fed byte by byte', () => {
    const scanner = new ClosingDelimiterScanner(BOUNDARY);
    for (const byte of Buffer.from(`--${BOUNDARY}--`)) scanner.feed(Buffer.from([byte]));
    expect(scanner.found).toBe(true);
  });

  it('does not take a part delimiter, a bare delimiter or another boundary for the closing one', () => {
    for (const body of [`--${BOUNDARY}\r\n\r\nx\r\n--${BOUNDARY}\r\n`, `--${BOUNDARY}\r\n\r\nx\r\n--${BOUNDARY}`, `x--${BOUNDARY}--`, `\r\n--${BOUNDARY}X--`]) {
      const scanner = new ClosingDelimiterScanner(BOUNDARY);
      for (const byte of Buffer.from(body)) scanner.feed(Buffer.from([byte]));
      expect(scanner.found, JSON.stringify(body)).toBe(false);
    }
  });
});

type FakePart = MultipartPartLike & { fieldname: string; file?: PassThrough };

/** A request body stream with headers, and a parser that yields the given parts then waits forever (as a stuck parser would). */
function setup(parts: FakePart[], options: { endParser?: boolean } = {}) {
  const body = Object.assign(new PassThrough(), {
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    complete: false,
  });
  async function* parser() {
    body.resume();
    for (const part of parts) yield part;
    if (options.endParser) return;
    await new Promise(() => undefined);
  }
  const finish = (text: string) => {
    body.complete = true;
    body.end(text);
  };
  return { body, finish, iterator: multipartParts(body, parser) };
}

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (err) {
    return err instanceof AppError ? err.code : `plain ${(err as Error).message}`;
  }
}

describe('multipartParts', () => {
  it('fails a waiting next() with VALIDATION_FAILED when the body ends without its closing delimiter', async () => {
    const { finish, iterator } = setup([{ type: 'field', fieldname: 'a' }]);
    expect((await iterator.next()).value).toMatchObject({ fieldname: 'a' });
    const waiting = iterator.next();
    finish(`--${BOUNDARY}\r\n\r\nx\r\n`);
    expect(await code(waiting)).toBe('VALIDATION_FAILED');
    expect(await code(iterator.next())).toBe('VALIDATION_FAILED');
  });

  it('fails the file stream being read with the same error', async () => {
    const file = new PassThrough();
    const { finish, iterator } = setup([{ type: 'file', fieldname: 'f', file }]);
    expect((await iterator.next()).value).toMatchObject({ fieldname: 'f' });
    const reading = (async () => {
      for await (const chunk of file) void chunk;
    })();
    file.write('half of a file');
    finish(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="x"\r\n\r\nhalf of a`);
    expect(await code(reading)).toBe('VALIDATION_FAILED');
  });

  it('fails when the parser ends quietly on a body without its closing delimiter', async () => {
    const { finish, iterator } = setup([], { endParser: true });
    finish('only a preamble');
    expect(await code(iterator.next())).toBe('VALIDATION_FAILED');
  });

  it('lets a closed body end the iteration normally', async () => {
    const { finish, iterator } = setup([{ type: 'field', fieldname: 'a' }], { endParser: true });
    const first = iterator.next();
    finish(`--${BOUNDARY}\r\n\r\nx\r\n--${BOUNDARY}--\r\n`);
    expect((await first).value).toMatchObject({ fieldname: 'a' });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('fails with MALFORMED_REQUEST when the client goes away mid-body', async () => {
    const { body, iterator } = setup([]);
    const waiting = iterator.next();
    await new Promise((resolve) => setImmediate(resolve));
    body.write(`--${BOUNDARY}\r\n`);
    body.destroy();
    expect(await code(waiting)).toBe('MALFORMED_REQUEST');
  });
});
