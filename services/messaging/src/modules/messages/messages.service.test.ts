import { describe, expect, it } from 'vitest';
import { AppError } from '@msp/errors';
import { normaliseSendInput } from './messages.service.js';

const fieldOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return (err as AppError).errors?.[0]?.field;
  }
  throw new Error('expected a validation error');
};

describe('MSG-4 input rules (R16)', () => {
  it('trims the body and accepts `content` as its alias', () => {
    expect(normaliseSendInput({ body: '  hi  ' })).toEqual({ content: 'hi', resources: [] });
    expect(normaliseSendInput({ content: 'yo' })).toEqual({ content: 'yo', resources: [] });
  });

  it('accepts an empty body with resources, the single pair first', () => {
    expect(normaliseSendInput({ resources: [{ resourceType: 'PLAYLIST', resourceId: 2 }], resourceType: 'TRACK', resourceId: 1 })).toEqual({
      content: '',
      resources: [
        { resourceType: 'TRACK', resourceId: 1 },
        { resourceType: 'PLAYLIST', resourceId: 2 },
      ],
    });
  });

  it('refuses a blank body without resources, > 2000 chars, > 5 resources and a half pair', () => {
    expect(fieldOf(() => normaliseSendInput({ body: '   ' }))).toBe('body');
    expect(fieldOf(() => normaliseSendInput({ body: 'x'.repeat(2001) }))).toBe('body');
    expect(normaliseSendInput({ body: ` ${'x'.repeat(2000)} ` }).content).toHaveLength(2000);
    const five = Array.from({ length: 5 }, (_, i) => ({ resourceType: 'TRACK' as const, resourceId: i + 1 }));
    expect(fieldOf(() => normaliseSendInput({ resources: five, resourceType: 'TRACK', resourceId: 99 }))).toBe('resources');
    expect(fieldOf(() => normaliseSendInput({ body: 'x', resourceId: 1 }))).toBe('resourceType');
  });
});
