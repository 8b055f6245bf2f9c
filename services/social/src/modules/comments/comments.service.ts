import { toPage, toUserSummary, type Comment, type Page, type Reply } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { CommentAdded, CommentDeleted, writeOutbox } from '@msp/events';
import type { Caller } from '@msp/http';
import type { UnitOfWork } from '@msp/db';
import type { EngagementRepository } from '../engagement/engagement.repository.js';
import { viewerOf } from '../users/viewer.js';
import type { CommentRow, CommentsRepository, CommentTarget } from './comments.repository.js';

function toComment(row: CommentRow, viewerId: number): Comment {
  return {
    id: row.id,
    trackId: row.trackId,
    user: toUserSummary(row, row.userId !== viewerId && row.isFollowing),
    body: row.body,
    timestampSeconds: row.timestampSeconds,
    replyToCommentId: row.replyToCommentId,
    replyCount: row.replyCount,
    createdAt: row.createdAt.toISOString(),
  };
}

/** R10: timestamped comments, one reply level, deletion by author, track artist or admin. */
export class CommentsService {
  constructor(
    private readonly repo: CommentsRepository,
    private readonly items: EngagementRepository,
    private readonly transactions: UnitOfWork,
  ) {}

  /** ENG-13. timestampSeconds is 0 … the track's duration (0 when omitted); beyond → INVALID_TIMESTAMP. */
  async add(trackId: number, input: { body: string; timestampSeconds?: number }, caller: Caller, correlationId: string): Promise<Comment> {
    const track = await this.items.findVisible('TRACK', trackId, viewerOf(caller));
    if (!track) throw new AppError('TRACK_NOT_FOUND', 'Track not found.');
    const timestampSeconds = input.timestampSeconds ?? 0;
    if (timestampSeconds > (track.durationSeconds ?? 0)) {
      throw new AppError('INVALID_TIMESTAMP', `timestampSeconds must be between 0 and the track's duration (${track.durationSeconds ?? 0} s).`, {
        errors: [{ field: 'timestampSeconds', message: 'Beyond the track duration.' }],
      });
    }
    const id = await this.create({ trackId, artistId: track.ownerId, parent: null, body: input.body, timestampSeconds }, caller, correlationId);
    return this.render(id, caller);
  }

  /** ENG-16. Only top-level comments take replies (REPLY_NOT_ALLOWED); a reply carries its parent's timestamp. */
  async reply(commentId: number, input: { body: string }, caller: Caller, correlationId: string): Promise<Reply> {
    const parent = await this.visibleComment(commentId, caller);
    if (parent.replyToCommentId !== null) throw new AppError('REPLY_NOT_ALLOWED', 'Replies cannot be replied to.');
    const id = await this.create(
      { trackId: parent.trackId, artistId: parent.artistId, parent, body: input.body, timestampSeconds: parent.timestampSeconds },
      caller,
      correlationId,
    );
    const reply = await this.render(id, caller);
    return { ...reply, replyToCommentId: parent.id, replyCount: 0 };
  }

  /** ENG-15. The author, the track's artist and admins may delete; replies go with the comment. */
  async delete(commentId: number, caller: Caller, correlationId: string): Promise<void> {
    const target = await this.repo.findTarget(commentId, viewerOf(caller));
    if (!target) throw new AppError('COMMENT_NOT_FOUND', 'Comment not found.');
    const allowed = caller.role === 'ADMIN' || target.userId === caller.userId || target.artistId === caller.userId;
    if (!allowed) {
      if (!target.visible) throw new AppError('COMMENT_NOT_FOUND', 'Comment not found.');
      throw new AppError('FORBIDDEN', 'Only the author, the track owner or an admin may delete this comment.');
    }
    await this.transactions.run(async (tx) => {
      const result = await this.repo.delete(tx, target);
      if (!result) return;
      await writeOutbox(tx, CommentDeleted, { commentId: target.id, trackId: target.trackId, ...result, at: new Date().toISOString() }, { correlationId });
    });
  }

  /** ENG-14: top-level comments, newest first. */
  async listForTrack(trackId: number, caller: Caller | null, page: number, size: number): Promise<Page<Comment>> {
    const viewer = viewerOf(caller);
    if (!(await this.items.findVisible('TRACK', trackId, viewer))) throw new AppError('TRACK_NOT_FOUND', 'Track not found.');
    const { rows, total } = await this.repo.list('track', trackId, viewer, page, size);
    return toPage(
      rows.map((row) => toComment(row, viewer.id)),
      total,
      page,
      size,
    );
  }

  /** ENG-17: replies, oldest first. */
  async listReplies(commentId: number, caller: Caller | null, page: number, size: number): Promise<Page<Reply>> {
    const parent = await this.visibleComment(commentId, caller);
    const viewer = viewerOf(caller);
    const { rows, total } = await this.repo.list('replies', parent.id, viewer, page, size);
    const items = rows.map((row) => ({ ...toComment(row, viewer.id), replyToCommentId: parent.id, replyCount: 0 as const }));
    return toPage(items, total, page, size);
  }

  private async visibleComment(commentId: number, caller: Caller | null): Promise<CommentTarget> {
    const target = await this.repo.findTarget(commentId, viewerOf(caller));
    if (!target || !target.visible) throw new AppError('COMMENT_NOT_FOUND', 'Comment not found.');
    return target;
  }

  private create(
    c: { trackId: number; artistId: number; parent: CommentTarget | null; body: string; timestampSeconds: number },
    caller: Caller,
    correlationId: string,
  ): Promise<number> {
    return this.transactions.run(async (tx) => {
      const created = await this.repo.insert(tx, {
        trackId: c.trackId,
        userId: caller.userId,
        body: c.body,
        timestampSeconds: c.timestampSeconds,
        replyToCommentId: c.parent?.id ?? null,
      });
      if (!created) throw new AppError('COMMENT_NOT_FOUND', 'Comment not found.');
      await writeOutbox(
        tx,
        CommentAdded,
        {
          commentId: created.id,
          trackId: c.trackId,
          trackOwnerId: c.artistId,
          authorId: caller.userId,
          replyToCommentId: c.parent?.id ?? null,
          parentAuthorId: c.parent?.userId ?? null,
          body: c.body,
          commentCount: created.commentCount,
          at: new Date().toISOString(),
        },
        { correlationId },
      );
      return created.id;
    });
  }

  private async render(id: number, caller: Caller): Promise<Comment> {
    const row = await this.repo.byId(id, caller.userId);
    if (!row) throw new AppError('COMMENT_NOT_FOUND', 'Comment not found.');
    return toComment(row, caller.userId);
  }
}
