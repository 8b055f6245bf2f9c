import { describe, expect, it } from 'vitest';
import { SAMPLES_PER_PIXEL, WaveformBuilder } from '../../src/media/waveform.js';

function pcm(values: number[]): Buffer {
  const buf = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => buf.writeInt16LE(v, i * 2));
  return buf;
}

describe('waveform from PCM', () => {
  it('keeps min/max per pixel (audiowaveform v2, 8 bits) across chunk boundaries', () => {
    const builder = new WaveformBuilder();
    const samples = Array.from(
      { length: SAMPLES_PER_PIXEL * 3 },
      (_, i) => (i % 2 ? 1 : -1) * (i < SAMPLES_PER_PIXEL ? 32767 : 256 * (1 + Math.floor(i / SAMPLES_PER_PIXEL))),
    );
    const bytes = pcm(samples);
    builder.push(bytes.subarray(0, 101)); // odd split: half a sample carried over
    builder.push(bytes.subarray(101));
    const json = builder.toAudiowaveform();
    expect(json).toMatchObject({ version: 2, channels: 1, bits: 8, samples_per_pixel: SAMPLES_PER_PIXEL, length: 3 });
    expect(json.data).toEqual([-128, 127, -2, 2, -3, 3]);
  });

  it('gives exactly the asked number of peaks in [0,1], the loudest at 1, also for short audio', () => {
    const builder = new WaveformBuilder();
    builder.push(pcm(Array.from({ length: SAMPLES_PER_PIXEL * 10 }, (_, i) => Math.round(Math.sin(i / 5) * 1000 * (1 + Math.floor(i / SAMPLES_PER_PIXEL))))));
    const peaks = builder.toPeaks(1000);
    expect(peaks).toHaveLength(1000);
    expect(Math.max(...peaks)).toBe(1);
    for (const p of peaks) expect(p >= 0 && p <= 1).toBe(true);
    expect(new Set(peaks).size).toBeGreaterThan(5);
    expect(new WaveformBuilder().toPeaks(1000)).toEqual(new Array(1000).fill(0));
  });
});
