import { describe, expect, it } from 'vitest';
import { gainDb, storedLoudness, trackLoudness, verdicts } from '../../src/modules/sound/loudness-rules.js';

const measured = (integratedLufs: number | null, truePeakDbtp: number | null, rangeLu: number | null = 8) => ({ integratedLufs, rangeLu, truePeakDbtp });

describe('loudness rules (docs/sound.md)', () => {
  it('brings a track to the target', () => {
    expect(gainDb(measured(-6, -3), -14)).toBe(-8);
    expect(gainDb(measured(-24, -12), -14)).toBe(10);
    expect(gainDb(measured(-14.04, -5), -14)).toBe(0);
  });

  it('never lets the true peak pass −1 dBTP after the gain', () => {
    expect(gainDb(measured(-24, -2), -14)).toBe(1);
    expect(gainDb(measured(-8, 0.4), -14)).toBe(-6);
    // Already over the ceiling and at target: turned down to it.
    expect(gainDb(measured(-14, 2), -14)).toBe(-3);
  });

  it('leaves digital silence alone', () => {
    expect(gainDb(measured(null, null, 0), -14)).toBe(0);
    expect(verdicts(measured(null, null, 0), -14).map((v) => v.code)).toEqual(['SILENT']);
  });

  it('reads only the stored shape', () => {
    expect(storedLoudness(null)).toBeNull();
    expect(storedLoudness('x')).toBeNull();
    expect(storedLoudness({ integratedLufs: 'loud', rangeLu: 3, truePeakDbtp: -1 })).toEqual({ integratedLufs: null, rangeLu: 3, truePeakDbtp: -1 });
    expect(trackLoudness({ integratedLufs: -8.2, rangeLu: 2.1, truePeakDbtp: 0.4 }, -14)).toEqual({
      integratedLufs: -8.2,
      rangeLu: 2.1,
      truePeakDbtp: 0.4,
      gainDb: -5.8,
    });
  });

  it('says what happens in plain words', () => {
    const loud = verdicts(measured(-7.8, 0.4, 2.1), -14);
    expect(loud.map((v) => v.code)).toEqual(['TURNED_DOWN', 'TRUE_PEAK_OVER', 'HEAVILY_COMPRESSED']);
    expect(loud[0]!.message).toBe('Streaming at −14 LUFS turns this down by 6.2 dB.');
    expect(loud[1]!.message).toBe('True peak +0.4 dBTP: expect clipping after lossy encoding; leave 1 dB of headroom.');
    expect(loud[2]!.message).toBe('Loudness range 2.1 LU: heavily compressed.');
    expect(verdicts(measured(-24, -2, 18), -14).map((v) => v.code)).toEqual(['TURNED_UP', 'PEAK_LIMITS_GAIN', 'WIDE_RANGE']);
    expect(verdicts(measured(-14.2, -3), -14).map((v) => v.code)).toEqual(['AT_TARGET']);
    expect(verdicts(null, -14).map((v) => v.code)).toEqual(['NOT_MEASURED']);
  });
});
