import type { LoudnessMeasurementData } from '@msp/events';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';

/** The report rows of SND-1 (cold path: Prisma). */
export class SoundRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async report(trackId: number): Promise<{ shortTermLufs: (number | null)[]; duplicateOf: number | null } | null> {
    const row = await this.prisma.trackSoundReport.findUnique({ where: { trackId }, select: { shortTermLufs: true, duplicateOf: true } });
    if (!row) return null;
    const series = Array.isArray(row.shortTermLufs) ? row.shortTermLufs : [];
    return { shortTermLufs: series.map((v) => (typeof v === 'number' ? v : null)), duplicateOf: row.duplicateOf };
  }

  /**
   * A processing run's measurement, in the transaction that marks the track FINISHED (before that
   * update, so the row it returns carries it): the Track record's figures and the report's series.
   * A rerun replaces both; a run without a measurement (it failed) clears them.
   */
  static async saveMeasurement(tx: Prisma.TransactionClient, trackId: number, loudness: LoudnessMeasurementData | null): Promise<void> {
    const figures = loudness ? { integratedLufs: loudness.integratedLufs, rangeLu: loudness.rangeLu, truePeakDbtp: loudness.truePeakDbtp } : Prisma.DbNull;
    await tx.track.update({ where: { id: trackId }, data: { loudness: figures }, select: { id: true } });
    const shortTermLufs = loudness?.shortTerm ?? [];
    await tx.trackSoundReport.upsert({
      where: { trackId },
      create: { trackId, shortTermLufs },
      update: { shortTermLufs },
      select: { trackId: true },
    });
  }
}
