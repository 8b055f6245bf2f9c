import type { SoundVerdict, TrackLoudness } from '@msp/contracts';

/**
 * The pure loudness rules (docs/sound.md): the playback gain of a track and the plain-words
 * verdicts of its report. No I/O; unit-tested with plain numbers (`test/unit/loudness-rules.test.ts`).
 */

/** What the processing run measured on the original (the `tracks.loudness` column). */
export interface StoredLoudness {
  integratedLufs: number | null;
  rangeLu: number | null;
  truePeakDbtp: number | null;
}

/** The true peak a player's gain may raise a track to: 1 dB of headroom for lossy decoders. */
export const PEAK_CEILING_DBTP = -1;
/** At or above this true peak, lossy encoding is expected to clip. */
export const TRUE_PEAK_WARNING_DBTP = -1;
/** Below this loudness range a master is heavily compressed. */
export const COMPRESSED_RANGE_LU = 4;
/** Above this loudness range quiet passages may get lost on phones and in cars. */
export const WIDE_RANGE_LU = 15;
/** Gains smaller than this (either way) are "at target". */
export const AT_TARGET_DB = 0.5;

const round1 = (value: number) => Math.round(value * 10) / 10;

/** Reads the jsonb column defensively: anything else than the stored shape is "not measured". */
export function storedLoudness(value: unknown): StoredLoudness | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  return { integratedLufs: num(v.integratedLufs), rangeLu: num(v.rangeLu), truePeakDbtp: num(v.truePeakDbtp) };
}

/**
 * The gain a player applies: target − integrated loudness, but never so much that the true peak
 * would pass −1 dBTP (gain ≤ −1 − truePeak). Digital silence (no integrated loudness) gets 0.
 */
export function gainDb(loudness: StoredLoudness, targetLufs: number): number {
  if (loudness.integratedLufs === null) return 0;
  let gain = targetLufs - loudness.integratedLufs;
  if (loudness.truePeakDbtp !== null) gain = Math.min(gain, PEAK_CEILING_DBTP - loudness.truePeakDbtp);
  return round1(gain) || 0;
}

/** The Track record's `loudness` (null when not measured). */
export function trackLoudness(value: unknown, targetLufs: number): TrackLoudness | null {
  const stored = storedLoudness(value);
  return stored ? { ...stored, gainDb: gainDb(stored, targetLufs) } : null;
}

const fmt = (value: number) => `${value < 0 ? '−' : value > 0 ? '+' : ''}${Math.abs(value).toFixed(1)}`;

/** The report's findings, in plain words, most important first. */
export function verdicts(loudness: StoredLoudness | null, targetLufs: number): SoundVerdict[] {
  if (!loudness) {
    return [{ code: 'NOT_MEASURED', message: 'The loudness of this track was not measured. Retrying processing measures it.' }];
  }
  if (loudness.integratedLufs === null) {
    return [{ code: 'SILENT', message: 'This track is digital silence: there is no loudness to measure, and players leave it as it is.' }];
  }
  const out: SoundVerdict[] = [];
  const gain = gainDb(loudness, targetLufs);
  const wanted = round1(targetLufs - loudness.integratedLufs);
  const target = `${targetLufs < 0 ? '−' : ''}${Math.abs(targetLufs)} LUFS`;
  if (gain <= -AT_TARGET_DB) {
    out.push({ code: 'TURNED_DOWN', message: `Streaming at ${target} turns this down by ${Math.abs(gain).toFixed(1)} dB.` });
  } else if (gain >= AT_TARGET_DB) {
    out.push({ code: 'TURNED_UP', message: `Streaming at ${target} turns this up by ${gain.toFixed(1)} dB.` });
  } else {
    out.push({ code: 'AT_TARGET', message: `This track is already at the ${target} streaming level: players leave it as it is.` });
  }
  if (wanted - gain >= AT_TARGET_DB) {
    out.push({
      code: 'PEAK_LIMITS_GAIN',
      message: `Its true peak keeps it ${(wanted - gain).toFixed(1)} dB below ${target}: it will sound quieter than other tracks. Lower the peaks (a limiter) to let it come up.`,
    });
  }
  if (loudness.truePeakDbtp !== null && loudness.truePeakDbtp > TRUE_PEAK_WARNING_DBTP) {
    out.push({
      code: 'TRUE_PEAK_OVER',
      message: `True peak ${fmt(loudness.truePeakDbtp)} dBTP: expect clipping after lossy encoding; leave 1 dB of headroom.`,
    });
  }
  if (loudness.rangeLu !== null && loudness.rangeLu < COMPRESSED_RANGE_LU) {
    out.push({ code: 'HEAVILY_COMPRESSED', message: `Loudness range ${loudness.rangeLu.toFixed(1)} LU: heavily compressed.` });
  } else if (loudness.rangeLu !== null && loudness.rangeLu > WIDE_RANGE_LU) {
    out.push({
      code: 'WIDE_RANGE',
      message: `Loudness range ${loudness.rangeLu.toFixed(1)} LU: very dynamic; quiet passages may get lost on phones and in cars.`,
    });
  }
  return out;
}
