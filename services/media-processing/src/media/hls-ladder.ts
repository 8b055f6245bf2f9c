import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/** One rung of the adaptive HLS ladder: AAC-LC at a constant target bitrate. */
export interface Rung {
  kbps: number;
  /** File name of the rung's media playlist; its segments are `<name>_NNNN.ts`. */
  name: string;
}

/**
 * R4 and docs/sound.md: three AAC renditions, lowest first. The 256 kbps rung is the same encode
 * as the progressive file (one encoder feeds both muxers).
 */
export const LADDER: readonly Rung[] = [
  { kbps: 64, name: 'aac_64k' },
  { kbps: 128, name: 'aac_128k' },
  { kbps: 256, name: 'aac_256k' },
];

/** Segment length; every rung cuts at the same AAC frame, so segment times line up across rungs. */
export const HLS_SEGMENT_SECONDS = 6;

/** RFC 8216 CODECS value of AAC-LC. */
const AAC_LC = 'mp4a.40.2';

/** Muxer options of one rung (as ffmpeg `-hls_*` options, or `key=value` pairs inside a tee slave). */
export function hlsOptions(dir: string, rung: Rung): Record<string, string> {
  return {
    hls_time: String(HLS_SEGMENT_SECONDS),
    hls_playlist_type: 'vod',
    hls_list_size: '0',
    hls_segment_filename: path.join(dir, `${rung.name}_%04d.ts`),
  };
}

export interface RungStats {
  rung: Rung;
  /** Peak bit rate of a segment (bits/s), short trailing segments aside. */
  bandwidth: number;
  averageBandwidth: number;
  durationSeconds: number;
  segments: number;
}

/**
 * BANDWIDTH and AVERAGE-BANDWIDTH of a rung from its written segments (RFC 8216 §4.3.4.2: peak
 * and average segment bit rate, container overhead included). Segments shorter than one second
 * (the tail) count in the average but not in the peak: a few hundred bytes of headers over a few
 * milliseconds would claim a peak no segment really has.
 */
export async function rungStats(dir: string, rung: Rung): Promise<RungStats> {
  const playlist = await readFile(path.join(dir, `${rung.name}.m3u8`), 'utf8');
  const lines = playlist.split('\n').map((l) => l.trim());
  let duration = 0;
  let bits = 0;
  let peak = 0;
  let segments = 0;
  let pending: number | null = null;
  for (const line of lines) {
    const extinf = /^#EXTINF:([\d.]+)/.exec(line);
    if (extinf) {
      pending = Number(extinf[1]);
      continue;
    }
    if (!line || line.startsWith('#') || pending === null) continue;
    const size = (await stat(path.join(dir, line))).size * 8;
    duration += pending;
    bits += size;
    segments += 1;
    if (pending >= 1) peak = Math.max(peak, size / pending);
    pending = null;
  }
  if (segments === 0 || duration <= 0) throw new Error(`the ${rung.name} playlist has no segment`);
  const average = Math.ceil(bits / duration);
  return { rung, bandwidth: Math.ceil(Math.max(peak, average)), averageBandwidth: average, durationSeconds: duration, segments };
}

/** The master playlist: one EXT-X-STREAM-INF per rung, ascending BANDWIDTH (the order players try first). */
export function masterPlaylist(stats: readonly RungStats[]): string {
  const sorted = [...stats].sort((a, b) => a.bandwidth - b.bandwidth);
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-INDEPENDENT-SEGMENTS'];
  for (const s of sorted) {
    lines.push(`#EXT-X-STREAM-INF:BANDWIDTH=${s.bandwidth},AVERAGE-BANDWIDTH=${s.averageBandwidth},CODECS="${AAC_LC}"`, `${s.rung.name}.m3u8`);
  }
  return `${lines.join('\n')}\n`;
}
