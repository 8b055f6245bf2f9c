import type { Readable } from 'node:stream';

/** Sample rate of the mono PCM ffmpeg hands the waveform builder (enough for peaks, cheap to scan). */
export const WAVEFORM_SAMPLE_RATE = 8000;
/** 10 ms per pixel in the audiowaveform data: fine enough for any player width. */
export const SAMPLES_PER_PIXEL = 80;
/** Points of the normalized array the clients draw (R11: 1000 numbers in [0,1]). */
export const WAVEFORM_POINTS = 1000;

/** BBC audiowaveform JSON, version 2 (https://github.com/bbc/audiowaveform/blob/master/doc/DataFormat.md). */
export interface AudiowaveformJson {
  version: 2;
  channels: 1;
  sample_rate: number;
  samples_per_pixel: number;
  bits: 8;
  length: number;
  data: number[];
}

/**
 * Reads signed 16-bit little-endian mono PCM and keeps one min/max pair per pixel: memory grows
 * with the duration (2 numbers per 10 ms), never with the sample count.
 */
export class WaveformBuilder {
  private readonly mins: number[] = [];
  private readonly maxs: number[] = [];
  private curMin = 0;
  private curMax = 0;
  private inPixel = 0;
  private carry: Buffer | null = null;

  push(chunk: Buffer): void {
    let buf = chunk;
    if (this.carry) {
      buf = Buffer.concat([this.carry, chunk]);
      this.carry = null;
    }
    const usable = buf.length - (buf.length % 2);
    for (let i = 0; i < usable; i += 2) {
      const v = buf.readInt16LE(i);
      if (this.inPixel === 0) {
        this.curMin = v;
        this.curMax = v;
      } else {
        if (v < this.curMin) this.curMin = v;
        if (v > this.curMax) this.curMax = v;
      }
      this.inPixel += 1;
      if (this.inPixel === SAMPLES_PER_PIXEL) this.flushPixel();
    }
    if (usable < buf.length) this.carry = buf.subarray(usable);
  }

  async consume(stream: Readable): Promise<void> {
    for await (const chunk of stream) this.push(chunk as Buffer);
  }

  private flushPixel(): void {
    this.mins.push(this.curMin);
    this.maxs.push(this.curMax);
    this.inPixel = 0;
  }

  get pixels(): number {
    return this.mins.length + (this.inPixel > 0 ? 1 : 0);
  }

  private finish(): void {
    if (this.inPixel > 0) this.flushPixel();
  }

  /** audiowaveform v2 with 8-bit values (−128…127), interleaved min/max per pixel. */
  toAudiowaveform(): AudiowaveformJson {
    this.finish();
    const data: number[] = new Array(this.mins.length * 2);
    for (let i = 0; i < this.mins.length; i++) {
      data[2 * i] = Math.max(-128, Math.round(this.mins[i]! / 256));
      data[2 * i + 1] = Math.min(127, Math.round(this.maxs[i]! / 256));
    }
    return {
      version: 2,
      channels: 1,
      sample_rate: WAVEFORM_SAMPLE_RATE,
      samples_per_pixel: SAMPLES_PER_PIXEL,
      bits: 8,
      length: this.mins.length,
      data,
    };
  }

  /**
   * `points` peaks in [0,1]: the loudest pixel of each slice, scaled so the track's loudest peak is 1
   * (silence stays 0). Always exactly `points` values, also for audio shorter than `points` pixels.
   */
  toPeaks(points = WAVEFORM_POINTS): number[] {
    this.finish();
    const n = this.mins.length;
    const amp = (i: number) => Math.max(Math.abs(this.mins[i]!), Math.abs(this.maxs[i]!));
    const raw: number[] = new Array(points).fill(0);
    if (n > 0) {
      for (let p = 0; p < points; p++) {
        const from = Math.floor((p * n) / points);
        const to = Math.max(from + 1, Math.floor(((p + 1) * n) / points));
        let peak = 0;
        for (let i = from; i < Math.min(to, n); i++) peak = Math.max(peak, amp(i));
        raw[p] = peak;
      }
    }
    const max = Math.max(...raw);
    if (max === 0) return raw;
    return raw.map((v) => Math.round((v / max) * 10_000) / 10_000);
  }
}
