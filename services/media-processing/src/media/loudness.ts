import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * Loudness of the decoded original (EBU R 128 / ITU-R BS.1770-4), as ffmpeg's `ebur128` filter
 * measures it: integrated loudness, loudness range, true peak, and the short-term (3-s window)
 * loudness sampled once a second. Measured, never applied: the renditions keep their level and a
 * player applies the gain catalog derives from these figures (docs/sound.md).
 */
export interface LoudnessMeasurement {
  /** Null when no 400-ms block passes the −70 LUFS absolute gate (digital silence). */
  integratedLufs: number | null;
  rangeLu: number | null;
  /** Highest true peak over all channels (4× oversampled); null for digital silence. */
  truePeakDbtp: number | null;
  /** Short-term loudness at the end of each second (index 0 = 1 s); null below −70 LUFS. */
  shortTerm: (number | null)[];
}

/** ebur128 reports −70 LUFS (its absolute gate) for an integrated loudness it cannot measure. */
const ABSOLUTE_GATE_LUFS = -70;

/**
 * The analysis branch of the processing run's filter graph: `[in]` is the first audio stream of
 * the original as decoded (no resampling or downmix before it; ebur128 itself resamples to 48 kHz
 * for its K-weighting and oversamples for the true peak). The per-100-ms metadata is printed to
 * `metadataFile` (read by `readLoudness`); nothing else leaves the branch.
 */
export function loudnessFilter(input: string, metadataFile: string): string {
  // The scratch path goes into the filter graph unescaped: refuse anything the graph parser would read as syntax.
  if (!/^[\w./-]+$/.test(metadataFile)) throw new Error(`unsupported characters in the scratch path ${metadataFile}`);
  return `[${input}]ebur128=peak=true:metadata=1,ametadata=mode=print:file=${metadataFile},anullsink`;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/** `lavfi.r128.true_peaks_chN` is linear (1.0 = full scale). */
function toDbtp(linear: number): number | null {
  return linear > 0 ? round1(20 * Math.log10(linear)) : null;
}

/**
 * Reads ebur128's printed metadata (blocks of `frame:N pts:P pts_time:T` followed by
 * `lavfi.r128.KEY=VALUE` lines, one block per 100 ms). The integrated loudness, range and true
 * peaks of the LAST block are the whole file's (they are running values); the short-term value is
 * taken at the last block of each second. Throws when the file holds no block.
 */
export async function readLoudness(metadataFile: string): Promise<LoudnessMeasurement> {
  const lines = createInterface({ input: createReadStream(metadataFile, { encoding: 'utf8' }), crlfDelay: Infinity });
  let blocks = 0;
  let time = 0;
  let shortTermNow = Number.NEGATIVE_INFINITY;
  let integrated = Number.NaN;
  let range = Number.NaN;
  const peaks = new Map<string, number>();
  const shortTerm: (number | null)[] = [];
  // The second the current block ends in (1-based): when the next block starts a later second,
  // the current block's short-term value is that second's sample.
  const flushSecond = () => {
    if (blocks === 0) return;
    const second = Math.round((time + 0.1) * 1000) / 1000;
    if (Number.isInteger(second) && second >= 1) {
      while (shortTerm.length < second - 1) shortTerm.push(null);
      shortTerm[second - 1] = shortTermNow > ABSOLUTE_GATE_LUFS ? round1(shortTermNow) : null;
    }
  };
  for await (const line of lines) {
    if (line.startsWith('frame:')) {
      flushSecond();
      blocks += 1;
      const match = /pts_time:(-?[\d.]+)/.exec(line);
      time = match ? Number(match[1]) : time + 0.1;
      continue;
    }
    const eq = line.indexOf('=');
    if (!line.startsWith('lavfi.r128.') || eq < 0) continue;
    const key = line.slice('lavfi.r128.'.length, eq);
    const value = Number(line.slice(eq + 1));
    if (!Number.isFinite(value)) continue;
    if (key === 'S') shortTermNow = value;
    else if (key === 'I') integrated = value;
    else if (key === 'LRA') range = value;
    else if (key.startsWith('true_peaks_ch')) peaks.set(key, value);
  }
  flushSecond();
  if (blocks === 0) throw new Error('ebur128 printed no measurement');
  const peak = peaks.size > 0 ? Math.max(...peaks.values()) : Number.NaN;
  const measurable = Number.isFinite(integrated) && integrated > ABSOLUTE_GATE_LUFS;
  return {
    integratedLufs: measurable ? round1(integrated) : null,
    rangeLu: Number.isFinite(range) ? round1(range) : null,
    truePeakDbtp: Number.isFinite(peak) ? toDbtp(peak) : null,
    shortTerm,
  };
}
