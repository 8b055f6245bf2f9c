import { toPage, toUserSummary, type LikeResponse, type Page, type RepostResponse, type UserSummary } from '@msp/contracts';
import { AppError } from '@msp/errors';
import { ItemLiked, ItemReposted, ItemUnliked, ItemUnreposted, writeOutbox } from '@msp/events';
import type { Caller } from '@msp/http';
import type { UnitOfWork } from '@msp/db';
import { viewerOf } from '../users/viewer.js';
import type { Action, EngagementStore, TargetRow, TargetType } from './engagement.repository.js';

const NOUN: Record<TargetType, string> = { TRACK: 'Track', PLAYLIST: 'Playlist' };
const NOT_FOUND = { TRACK: 'TRACK_NOT_FOUND', PLAYLIST: 'PLAYLIST_NOT_FOUND' } as const;

export class EngagementService {
  constructor(
    private readonly repo: EngagementStore,
    private readonly transactions: UnitOfWork,
  ) {}

  async requireVisible(type: TargetType, id: number, caller: Caller | null, ignoreOwnerBan = false): Promise<TargetRow> {
    const item = await this.repo.findVisible(type, id, viewerOf(caller), ignoreOwnerBan);
    if (!item) throw new AppError(NOT_FOUND[type], `${NOUN[type]} not found.`);
    return item;
  }

  /**
   * ENG-1/2/7/8, idempotent; the answer carries the count after the call. Unliking also works on
   * an item hidden only by its owner's ban (R14), so a user can take back what they gave.
   */
  async like(type: TargetType, id: number, caller: Caller, on: boolean, correlationId: string): Promise<LikeResponse> {
    const item = await this.requireVisible(type, id, caller, !on);
    const likeCount = await this.change('like', type, item, caller, on, correlationId);
    const noun = NOUN[type];
    return { message: on ? `${noun} liked.` : `${noun} unliked.`, isLiked: on, likeCount };
  }

  /**
   * ENG-4/5/10/11, idempotent. Reposting one's own item is refused (SELF_ACTION_NOT_ALLOWED).
   * Removing a repost also works on an item hidden only by its owner's ban (R14).
   */
  async repost(type: TargetType, id: number, caller: Caller, on: boolean, correlationId: string): Promise<RepostResponse> {
    const item = await this.requireVisible(type, id, caller, !on);
    if (on && item.ownerId === caller.userId) {
      throw new AppError('SELF_ACTION_NOT_ALLOWED', `You cannot repost your own ${NOUN[type].toLowerCase()}.`);
    }
    const repostCount = await this.change('repost', type, item, caller, on, correlationId);
    const noun = NOUN[type];
    return { message: on ? `${noun} reposted.` : `${noun} repost removed.`, isReposted: on, repostCount };
  }

  /** The row change, the counter and the event with the new count commit in one transaction. */
  private change(action: Action, type: TargetType, item: TargetRow, caller: Caller, on: boolean, correlationId: string) {
    return this.transactions.run(async (tx) => {
      const [changed, count] = await this.repo.apply(tx, action, type, item.id, caller.userId, on);
      if (changed) {
        const base = { userId: caller.userId, targetType: type, targetId: item.id, ownerId: item.ownerId, at: new Date().toISOString() };
        if (action === 'like') {
          await writeOutbox(tx, on ? ItemLiked : ItemUnliked, { ...base, likeCount: count }, { correlationId });
        } else {
          await writeOutbox(tx, on ? ItemReposted : ItemUnreposted, { ...base, repostCount: count }, { correlationId });
        }
      }
      return count;
    });
  }

  /** ENG-3/6/9/12. R8: private likers and reposters are listed only for themselves and admins (in SQL, before paging). */
  async actors(action: Action, type: TargetType, id: number, caller: Caller | null, page: number, size: number): Promise<Page<UserSummary>> {
    await this.requireVisible(type, id, caller);
    const viewer = viewerOf(caller);
    const { rows, total } = await this.repo.actors(action, type, id, viewer, page, size);
    return toPage(
      rows.map((row) => toUserSummary(row, row.userId !== viewer.id && row.isFollowing)),
      total,
      page,
      size,
    );
  }
}
