import { describe, expect, it } from 'vitest';
import { passwordProblem } from './passwords.js';
import { usernameBase, usernameProblem } from './username.js';

describe('R13 password policy (unit, no database)', () => {
  it('needs 8–128 characters, counted as code points', () => {
    expect(passwordProblem('short1!', 'a@b.c', 'ann')).toMatch(/8–128/);
    expect(passwordProblem('x'.repeat(129), 'a@b.c', 'ann')).toMatch(/8–128/);
    expect(passwordProblem('🎵🎵🎵🎵🎵🎵🎵🎵', 'a@b.c', 'ann')).toBeNull();
  });

  it('refuses common passwords whatever their case, and the e-mail or username as password', () => {
    expect(passwordProblem('PassWord123', 'a@b.c', 'ann')).toMatch(/too common/);
    expect(passwordProblem('Ann@Example.com', 'ann@example.com', null)).toMatch(/differ/);
    expect(passwordProblem('Listener42', 'x@y.z', 'listener42')).toMatch(/differ/);
    expect(passwordProblem('correct horse battery', 'x@y.z', 'listener42')).toBeNull();
  });
});

describe('R1 usernames (unit, no database)', () => {
  it('3–30 characters of a-z 0-9 . _ - with a letter, never a reserved path word', () => {
    expect(usernameProblem('dj.ann_2')).toBeNull();
    expect(usernameProblem('12345')).toMatch(/at least one letter/);
    expect(usernameProblem('ab')).not.toBeNull();
    expect(usernameProblem('Ann')).not.toBeNull();
    expect(usernameProblem('tracks')).toBe('This name is reserved.');
  });

  it('derives a valid base from any display name', () => {
    expect(usernameBase('Zoë  Keating')).toBe('zoe-keating');
    expect(usernameBase('1234')).toBe('user-1234');
    expect(usernameBase('!!')).toBe('user');
    expect(usernameBase('Tracks')).toBe('tracks-1');
    for (const name of ['Zoë  Keating', '1234', '!!', 'Tracks', 'x', 'A'.repeat(80)]) expect(usernameProblem(usernameBase(name)), name).toBeNull();
  });
});
