import { afterEach, describe, expect, it } from 'vitest';
import { OPERATIONS } from '@msp/contracts';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { createHttpApp } from '../../src/app.js';
import { contractOf, fastifyPath, operation } from '../../src/contract-route.js';

type App = Awaited<ReturnType<typeof createHttpApp>>;
let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** These tests are about the auth rule, not the answer: an empty 204 (no schema is declared for it). */
const noContent = (async (_request: unknown, reply: FastifyReply) => reply.code(204).send()) as never;

describe('routes registered from the contract (operation)', () => {
  it('takes method and path from the contract and turns {name} into :name', () => {
    expect(operation('INS-1')).toMatchObject({ method: 'GET', url: '/insights/tracks/:trackId', config: { operation: 'INS-1' } });
    expect(operation('FOL-3').schema.params).toBe(OPERATIONS['FOL-3'].params);
    expect(operation('FOL-3').schema).not.toHaveProperty('method');
    expect(fastifyPath('/a/{b}/c/{d}')).toBe('/a/:b/c/:d');
    expect(() => contractOf('NOPE-1')).toThrow(/not in the contract/);
  });

  it('FOL-3: a route registered with its declared schema starts; one that gives its own schema is refused at start', async () => {
    app = await createHttpApp({ service: 'test', logger: false });
    const empty = { content: [], pageNumber: 0, pageSize: 20, totalElements: 0, totalPages: 0, isLast: true };
    app.route({ ...operation('FOL-3'), handler: async () => empty });
    await app.ready();
    await app.close();
    app = await createHttpApp({ service: 'test', logger: false });
    const declared = operation('FOL-3').schema;
    expect(() => app!.route({ ...operation('FOL-3'), schema: { ...declared, querystring: z.object({}) }, handler: async () => empty })).toThrow(
      /gives its own schema: FOL-3's is declared in packages\/contracts/,
    );
    expect(() => app!.route({ ...operation('FOL-3'), schema: { ...declared, response: { 200: z.object({}) } }, handler: async () => ({}) })).toThrow(
      /own schema/,
    );
  });

  it('INS-2 (bearer): the service refuses an anonymous caller, answers a caller, documents id, summary, tag and security', async () => {
    app = await createHttpApp({ service: 'test', logger: false });
    app.route({ ...operation('INS-2'), handler: noContent });
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/insights/me' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'HEAD', url: '/insights/me' })).statusCode).toBe(401);
    const answered = await app.inject({ method: 'GET', url: '/insights/me', headers: { 'x-user-id': '7' } });
    expect(answered.statusCode).toBe(204);
    const document = app.swagger() as unknown as { paths: Record<string, Record<string, Record<string, unknown>>> };
    expect(document.paths['/insights/me']?.get).toMatchObject({
      operationId: 'INS-2',
      summary: contractOf('INS-2').summary,
      tags: ['Insights'],
      security: [{ bearerAuth: [] }],
    });
  });

  it('SND-1: the declared description reaches the OpenAPI document', async () => {
    app = await createHttpApp({ service: 'test', logger: false });
    app.route({ ...operation('SND-1'), handler: noContent });
    await app.ready();
    const document = app.swagger() as unknown as { paths: Record<string, Record<string, Record<string, unknown>>> };
    expect(document.paths['/tracks/{trackId}/loudness']?.get?.description).toBe(OPERATIONS['SND-1'].description);
    expect(OPERATIONS['SND-1'].description).toMatch(/EBU R 128/);
  });

  it('INS-3 (admin): a caller who is not an admin is refused before the body is validated', async () => {
    app = await createHttpApp({ service: 'test', logger: false });
    app.route({ ...operation('INS-3'), handler: noContent });
    await app.ready();
    expect((await app.inject({ method: 'POST', url: '/admin/plays/void', headers: { 'x-user-id': '7' } })).statusCode).toBe(403);
    // An admin reaches the declared input rules: the body is required.
    expect((await app.inject({ method: 'POST', url: '/admin/plays/void', headers: { 'x-user-id': '7', 'x-user-role': 'ADMIN' } })).statusCode).toBe(400);
  });

  it('MOD-10 (admin GET): its automatic HEAD twin is refused to a caller who is not an admin', async () => {
    app = await createHttpApp({ service: 'test', logger: false });
    app.route({ ...operation('MOD-10'), handler: noContent });
    await app.ready();
    expect((await app.inject({ method: 'HEAD', url: contractOf('MOD-10').path, headers: { 'x-user-id': '7' } })).statusCode).toBe(403);
    expect((await app.inject({ method: 'HEAD', url: contractOf('MOD-10').path, headers: { 'x-user-id': '7', 'x-user-role': 'ADMIN' } })).statusCode).toBe(204);
  });

  it('INS-4 (optional): anonymous callers pass; the document says the token is optional', async () => {
    app = await createHttpApp({ service: 'test', logger: false });
    app.route({ ...operation('INS-4'), handler: noContent });
    await app.ready();
    const progress = { position: 10, duration: 100 };
    expect((await app.inject({ method: 'POST', url: '/tracks/5/progress', payload: progress })).statusCode).toBe(204);
    const document = app.swagger() as unknown as { paths: Record<string, Record<string, Record<string, unknown>>> };
    expect(document.paths['/tracks/{trackId}/progress']?.post?.security).toEqual([{}, { bearerAuth: [] }]);
  });

  it('a route whose method differs from its contract fails at start', async () => {
    app = await createHttpApp({ service: 'test', logger: false });
    expect(() => app!.route({ ...operation('INS-2'), method: 'POST', handler: noContent })).toThrow(/differs from INS-2/);
  });

  it('a route that names a contract operation without being registered from it fails at start', async () => {
    app = await createHttpApp({ service: 'test', logger: false });
    expect(() => app!.get('/insights/me', { schema: { operationId: 'INS-2' } }, async () => ({}))).toThrow(/register it with operation\('INS-2'\)/);
  });
});
