import type { Redis } from 'ioredis';
import { UploadStatusMessageSchema, type UploadStatusMessage } from '@msp/contracts';

/** WS-2: the last status is kept 10 minutes for late subscribers. */
export const LAST_STATUS_TTL_SECONDS = 600;

const keyOf = (uploadId: string) => `notification:upload-status:${uploadId.toLowerCase()}`;

const STATE_ORDER: Record<UploadStatusMessage['trackState'], number> = { UPLOADING: 0, PROCESSING: 1, FINISHED: 2, FAILED: 2 };

/**
 * Orders statuses of one upload: by updatedAt, then state and progress for equal timestamps.
 * Events of one upload may be handled out of order (redelivery after a failure, or two replicas
 * sharing the durable consumer), and an older status must neither replace nor follow a newer one.
 */
export function statusRank(status: UploadStatusMessage): number {
  const tie = STATE_ORDER[status.trackState] * 101 + (status.progressPercentage ?? 0);
  return Date.parse(status.updatedAt) * 1000 + tie;
}

// Compare-and-set on the rank stored in front of the value, atomically across replicas.
const SAVE_IF_NEWER = `
local current = redis.call('GET', KEYS[1])
if current then
  local sep = string.find(current, '|', 1, true)
  if sep then
    local rank = tonumber(string.sub(current, 1, sep - 1))
    if rank and rank > tonumber(ARGV[1]) then return 0 end
  end
end
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[2], 'EX', tonumber(ARGV[3]))
return 1
`;

export interface StoredStatus {
  artistId: number;
  status: UploadStatusMessage;
}

/** The last Upload status message per uploadId, in Redis so every replica can replay it. */
export class TrackStatusStore {
  constructor(private readonly redis: Redis) {}

  /** Stores the status unless a newer one is stored; true when it was stored (and should be sent). */
  async saveIfNewer(uploadId: string, artistId: number, status: UploadStatusMessage): Promise<boolean> {
    const value = JSON.stringify({ artistId, status } satisfies StoredStatus);
    const stored = await this.redis.eval(SAVE_IF_NEWER, 1, keyOf(uploadId), String(statusRank(status)), value, String(LAST_STATUS_TTL_SECONDS));
    return stored === 1;
  }

  async last(uploadId: string): Promise<StoredStatus | null> {
    const raw = await this.redis.get(keyOf(uploadId));
    if (raw === null) return null;
    const sep = raw.indexOf('|');
    try {
      const parsed = JSON.parse(raw.slice(sep + 1)) as { artistId?: unknown; status?: unknown };
      const status = UploadStatusMessageSchema.safeParse(parsed.status);
      if (typeof parsed.artistId !== 'number' || !status.success) return null;
      return { artistId: parsed.artistId, status: status.data };
    } catch {
      return null;
    }
  }
}

/** What a subscriber sees before any status exists (WS-2). */
export function placeholderStatus(uploadId: string, now = new Date()): UploadStatusMessage {
  return {
    uploadId,
    trackId: null,
    trackState: 'UPLOADING',
    status: 'UPLOADING',
    progressPercentage: 0,
    progressPercent: 0,
    stepName: 'Waiting for server...',
    errorMessage: null,
    trackResponse: null,
    updatedAt: now.toISOString(),
  };
}
