import { describe, expect, it } from 'vitest';
import type { Caller } from '@msp/http';
import type { UnitOfWork } from '@msp/db';
import type { EngagementRepository, TargetRow } from '../engagement/engagement.repository.js';
import type { CommentsRepository, CommentTarget } from './comments.repository.js';
import { CommentsService } from './comments.service.js';

const ann: Caller = { userId: 1, role: 'LISTENER', tier: 'FREE', sessionId: 's', username: 'ann' };
const noTransactions: UnitOfWork = {
  run: () => {
    throw new Error('no write expected');
  },
};

function service(track: TargetRow | null, comment: CommentTarget | null = null): CommentsService {
  const items = { findVisible: async () => track } as unknown as EngagementRepository;
  const comments = { findTarget: async () => comment } as unknown as CommentsRepository;
  return new CommentsService(comments, items, noTransactions);
}

const track = (durationSeconds: number | null): TargetRow => ({ id: 7, ownerId: 3, durationSeconds, likeCount: 0, repostCount: 0 });
const comment = (overrides: Partial<CommentTarget> = {}): CommentTarget => ({
  id: 40,
  trackId: 7,
  userId: 2,
  replyToCommentId: null,
  timestampSeconds: 12,
  artistId: 3,
  visible: true,
  ...overrides,
});

describe('R10: comment timestamps', () => {
  it("refuses a timestamp past the track's duration with INVALID_TIMESTAMP and the field", async () => {
    await expect(service(track(60)).add(7, { body: 'hi', timestampSeconds: 61 }, ann, 'c')).rejects.toMatchObject({
      code: 'INVALID_TIMESTAMP',
      errors: [{ field: 'timestampSeconds', message: expect.any(String) }],
    });
  });

  it('accepts only 0 while the duration is unknown', async () => {
    await expect(service(track(null)).add(7, { body: 'hi', timestampSeconds: 1 }, ann, 'c')).rejects.toMatchObject({ code: 'INVALID_TIMESTAMP' });
  });

  it('answers TRACK_NOT_FOUND for a track the caller may not see', async () => {
    await expect(service(null).add(7, { body: 'hi' }, ann, 'c')).rejects.toMatchObject({ code: 'TRACK_NOT_FOUND' });
  });
});

describe('R10: one level of replies', () => {
  it('refuses a reply to a reply with REPLY_NOT_ALLOWED', async () => {
    await expect(service(track(60), comment({ replyToCommentId: 39 })).reply(40, { body: 'hi' }, ann, 'c')).rejects.toMatchObject({
      code: 'REPLY_NOT_ALLOWED',
    });
  });

  it('answers COMMENT_NOT_FOUND for a comment hidden from the caller (R7, R14)', async () => {
    await expect(service(track(60), comment({ visible: false })).reply(40, { body: 'hi' }, ann, 'c')).rejects.toMatchObject({ code: 'COMMENT_NOT_FOUND' });
  });
});

describe('R10: who may delete', () => {
  it('refuses someone else with FORBIDDEN, and with COMMENT_NOT_FOUND when the comment is hidden from them', async () => {
    await expect(service(track(60), comment()).delete(40, ann, 'c')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(service(track(60), comment({ visible: false })).delete(40, ann, 'c')).rejects.toMatchObject({ code: 'COMMENT_NOT_FOUND' });
  });
});
