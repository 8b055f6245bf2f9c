import type { ProbeResult } from '../../clients/media.client.js';

export type AudioFormat = 'mp3' | 'wav' | 'flac' | 'aac' | 'm4a' | 'ogg';
export type ImageFormat = 'jpeg' | 'png' | 'webp';

/** Bytes needed to judge a file by its first bytes. */
export const SNIFF_BYTES = 12;

const ascii = (buf: Buffer, at: number, text: string) => buf.length >= at + text.length && buf.toString('latin1', at, at + text.length) === text;

/** R11: the first bytes decide, never the declared MIME type or the file name. */
export function sniffAudio(head: Buffer): AudioFormat | null {
  if (ascii(head, 0, 'ID3')) return 'mp3';
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return 'wav';
  if (ascii(head, 0, 'fLaC')) return 'flac';
  if (ascii(head, 0, 'OggS')) return 'ogg';
  if (ascii(head, 4, 'ftyp')) return 'm4a';
  if (head.length >= 2 && head[0] === 0xff) {
    const b1 = head[1]!;
    // ADTS: 12-bit sync, layer bits 00. MPEG audio frame: 11-bit sync, layer bits ≠ 00.
    if ((b1 & 0xf6) === 0xf0) return 'aac';
    if ((b1 & 0xe0) === 0xe0 && (b1 & 0x06) !== 0) return 'mp3';
  }
  return null;
}

export function sniffImage(head: Buffer): ImageFormat | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WEBP')) return 'webp';
  return null;
}

const CONTAINERS: Record<AudioFormat, { formats: RegExp; codecs: RegExp }> = {
  mp3: { formats: /^mp3$/, codecs: /^mp3$/ },
  wav: { formats: /^wav$/, codecs: /./ },
  flac: { formats: /^flac$/, codecs: /^flac$/ },
  aac: { formats: /^aac$/, codecs: /^aac$/ },
  m4a: { formats: /(^|,)(mp4|m4a|mov)(,|$)/, codecs: /^(aac|alac|mp3|flac|opus)$/ },
  ogg: { formats: /^ogg$/, codecs: /^(vorbis|opus|flac)$/ },
};

/** R11 second check: ffprobe finds exactly one audio stream of the sniffed format, with packets, and no video. */
export function probeMatches(format: AudioFormat, probe: ProbeResult): boolean {
  if (!probe.readable || !probe.formatName) return false;
  const rule = CONTAINERS[format];
  if (!rule.formats.test(probe.formatName)) return false;
  if (probe.videoStreams > 0 || probe.audioStreams.length !== 1) return false;
  const [stream] = probe.audioStreams;
  return !!stream && rule.codecs.test(stream.codecName) && stream.packets > 0;
}

export const AUDIO_CONTENT_TYPES: Record<AudioFormat, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  flac: 'audio/flac',
  aac: 'audio/aac',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
};
