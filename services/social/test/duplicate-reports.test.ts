import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { CopyrightHoldDismissed, createEnvelope, TrackChanged, TrackDeleted, TrackDuplicateFound } from '@msp/events';
import { FeedItemSchema, pageSchema, ReportSchema, type Report } from '@msp/contracts';
import { waitFor } from '@msp/testing';
import { as, outbox, seedTrack, seedUsers, startSocial, type Harness } from './support.js';

/**
 * Duplicate detection in social (docs/fingerprints.md): catalog's `heldBack` hides a track from
 * feeds and engagement like a private one; catalog.track.duplicate-found.v1 of another artist's
 * track files a COPYRIGHT report with no reporter and the evidence (MOD-4, MOD-6); MOD-7 setting it
 * DISMISSED publishes social.copyright-hold.dismissed.v1, which releases the track in catalog;
 * catalog.track.deleted.v1 of the held-back track closes it (RESOLVED, resolution 'track removed').
 */
let h: Harness;
const COPIER = 60;
const ORIGINAL = 61;
const FAN = 62;
const ADMIN = 69;
const COPY = 600;
const SOURCE = 601;
const OWN = 602;
const REMOVED = 603;
const FeedPage = pageSchema(FeedItemSchema);

async function publish(envelope: { id: string; type: string }) {
  await jetstream(h.app.infra.nc).publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id });
}

const snapshot = (heldBack: boolean) =>
  createEnvelope(TrackChanged, {
    trackId: COPY,
    artistId: COPIER,
    title: 'Glacier Copy',
    trackSlug: `track-${COPY}`,
    state: 'FINISHED',
    isPrivate: false,
    access: 'PLAYABLE',
    durationSeconds: 60,
    coverUrl: null,
    genre: 'Techno',
    publishedAt: new Date().toISOString(),
    createdAt: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    heldBack,
  });

const found = (trackId: number, artistId: number, sameArtist: boolean) =>
  createEnvelope(TrackDuplicateFound, {
    trackId,
    artistId,
    title: 'Glacier Copy',
    duplicateOfTrackId: SOURCE,
    duplicateArtistId: ORIGINAL,
    duplicateTitle: 'Glacier Hymn',
    sameArtist,
    heldBack: !sameArtist,
    evidence: { trackStartSeconds: 0, trackEndSeconds: 54.3, duplicateStartSeconds: 5.1, duplicateEndSeconds: 59.4, coverage: 0.97, score: 0.91 },
    at: new Date().toISOString(),
  });

async function feedIds(userId: number): Promise<number[]> {
  const res = await h.app.inject({ method: 'GET', url: '/api/feed', headers: as(userId) });
  expect(res.statusCode).toBe(200);
  return FeedPage.parse(res.json()).content.map((i) => i.resource.id);
}

async function copyrightReports(): Promise<Report[]> {
  const res = await h.app.inject({ method: 'GET', url: '/api/admin/reports/all?size=100', headers: as(ADMIN, 'ADMIN') });
  expect(res.statusCode).toBe(200);
  return (res.json() as { content: unknown[] }).content.map((r) => ReportSchema.strict().parse(r)).filter((r) => r.reason === 'COPYRIGHT');
}

beforeAll(async () => {
  h = await startSocial('social_duplicates');
  await seedUsers(h.app, [
    { id: COPIER, username: 'cosmo', role: 'ARTIST' },
    { id: ORIGINAL, username: 'orla', role: 'ARTIST' },
    { id: FAN, username: 'fan' },
  ]);
  await seedTrack(h.app, { id: COPY, artistId: COPIER, title: 'Glacier Copy' });
  await seedTrack(h.app, { id: SOURCE, artistId: ORIGINAL, title: 'Glacier Hymn' });
  await seedTrack(h.app, { id: REMOVED, artistId: COPIER, title: 'Glacier Copy Again' });
  expect((await h.app.inject({ method: 'POST', url: `/api/users/${COPIER}/follow`, headers: as(FAN) })).statusCode).toBeLessThan(300);
});

afterAll(async () => {
  await h?.close();
});

describe('DSC-1, ENG held-back track (catalog.track.changed.v1 heldBack)', () => {
  it('leaves feeds and refuses likes while held back; its artist still reaches it', async () => {
    expect(await feedIds(FAN)).toContain(COPY);
    await publish(snapshot(true));
    await waitFor(async () => (await h.app.infra.prisma.trackRef.findUniqueOrThrow({ where: { trackId: COPY } })).heldBack, { message: 'held back copied' });
    expect(await feedIds(FAN)).not.toContain(COPY);
    expect((await h.app.inject({ method: 'POST', url: `/api/tracks/${COPY}/like`, headers: as(FAN) })).statusCode).toBe(404);
    expect((await h.app.inject({ method: 'GET', url: `/api/tracks/${COPY}/comments`, headers: as(COPIER) })).statusCode).toBe(200);
  });
});

describe('MOD-4, MOD-6, MOD-7 COPYRIGHT report from duplicate detection (catalog.track.duplicate-found.v1)', () => {
  it('files one report with no reporter and the evidence; the same artist gets none', async () => {
    await publish(found(OWN, ORIGINAL, true));
    const event = found(COPY, COPIER, false);
    await publish(event);
    await publish(event); // redelivery: still one report
    await waitFor(async () => (await copyrightReports()).length > 0, { message: 'report filed' });
    const reports = await copyrightReports();
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      reporterId: null,
      reporterUsername: null,
      targetType: 'TRACK',
      targetId: COPY,
      reason: 'COPYRIGHT',
      status: 'OPEN',
      targetUserId: COPIER,
      targetUsername: 'cosmo',
      targetTitle: 'Glacier Copy',
      evidence: {
        matchedTrackId: SOURCE,
        matchedArtistId: ORIGINAL,
        trackStartSeconds: 0,
        trackEndSeconds: 54.3,
        matchedStartSeconds: 5.1,
        matchedEndSeconds: 59.4,
        coverage: 0.97,
        score: 0.91,
      },
    });
    const one = await h.app.inject({ method: 'GET', url: `/api/admin/reports/${reports[0]!.id}`, headers: as(ADMIN, 'ADMIN') });
    expect(ReportSchema.strict().parse(one.json()).evidence?.matchedTrackId).toBe(SOURCE);
  });

  it('DISMISSED publishes social.copyright-hold.dismissed.v1 (once per change to DISMISSED); RESOLVED does not', async () => {
    const [report] = await copyrightReports();
    const patch = (status: string) =>
      h.app.inject({ method: 'PATCH', url: `/api/admin/reports/${report!.id}`, headers: as(ADMIN, 'ADMIN'), payload: { status } });
    expect((await patch('RESOLVED')).statusCode).toBe(200);
    expect(await outbox(h.app, CopyrightHoldDismissed.type)).toEqual([]);
    const dismissed = await patch('DISMISSED');
    expect(dismissed.statusCode).toBe(200);
    expect(dismissed.json().report).toMatchObject({ status: 'DISMISSED', reporterId: null });
    expect((await patch('DISMISSED')).statusCode).toBe(200);
    expect(await outbox(h.app, CopyrightHoldDismissed.type)).toEqual([expect.objectContaining({ reportId: report!.id, trackId: COPY })]);
  });

  it("catalog's release brings the track back into feeds", async () => {
    await publish(snapshot(false));
    await waitFor(async () => !(await h.app.infra.prisma.trackRef.findUniqueOrThrow({ where: { trackId: COPY } })).heldBack, { message: 'released' });
    expect(await feedIds(FAN)).toContain(COPY);
  });
});

describe('MOD-11 deleting a held-back track closes its COPYRIGHT report (catalog.track.deleted.v1)', () => {
  it("sets the platform's report RESOLVED with resolution 'track removed'; a user's report on it stays open", async () => {
    const byFan = await h.app.inject({
      method: 'POST',
      url: `/api/tracks/${REMOVED}/report`,
      headers: as(FAN),
      payload: { reason: 'COPYRIGHT', description: 'Sounds like Glacier Hymn.' },
    });
    expect(byFan.statusCode).toBe(201);
    await publish(found(REMOVED, COPIER, false));
    const onRemoved = async () => (await copyrightReports()).filter((r) => r.targetId === REMOVED);
    await waitFor(async () => (await onRemoved()).some((r) => r.reporterId === null), { message: 'report filed' });
    expect((await onRemoved()).every((r) => r.status === 'OPEN' && r.resolution === undefined)).toBe(true);

    const deleted = createEnvelope(TrackDeleted, { trackId: REMOVED, artistId: COPIER, byAdmin: true });
    await publish(deleted);
    await waitFor(async () => (await onRemoved()).some((r) => r.reporterId === null && r.status === 'RESOLVED'), { message: 'report closed' });
    const reports = await onRemoved();
    expect(reports).toHaveLength(2);
    const platform = reports.find((r) => r.reporterId === null)!;
    expect(platform).toMatchObject({ status: 'RESOLVED', resolution: 'track removed', evidence: { matchedTrackId: SOURCE } });
    expect(reports.find((r) => r.reporterId === FAN)).toMatchObject({ status: 'OPEN' });
    expect(reports.find((r) => r.reporterId === FAN)?.resolution).toBeUndefined();
    // Closing is not a dismissal: the track stays held back, no release is published.
    expect(await outbox(h.app, CopyrightHoldDismissed.type)).not.toContainEqual(expect.objectContaining({ trackId: REMOVED }));

    // An admin's later decision replaces the platform's resolution.
    const reopened = await h.app.inject({
      method: 'PATCH',
      url: `/api/admin/reports/${platform.id}`,
      headers: as(ADMIN, 'ADMIN'),
      payload: { status: 'IN_REVIEW' },
    });
    expect(reopened.statusCode).toBe(200);
    const report = ReportSchema.strict().parse(reopened.json().report);
    expect(report.status).toBe('IN_REVIEW');
    expect(report.resolution).toBeUndefined();
  });
});
