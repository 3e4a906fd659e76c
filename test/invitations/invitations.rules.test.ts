import { describe, expect, it } from 'vitest';
import { invitationMail } from '../../src/modules/invitations/invitations.mail.ts';
import { acceptRefusal, canBeAccepted, effectiveStatus, invitationLink, isExpired, isPending, mailLanguage, ROLE_BY_ID } from '../../src/modules/invitations/invitations.rules.ts';

// spec 002 "Invitation": is_expired, is_pending, can_be_accepted "Computed"; roles 2 AA, 3 CA, 4 BK,
// 5 EM; "Accept-Language: no or en picks the email template (NO, NB, NN all Norwegian)".
const now = new Date('2026-06-01T12:00:00Z');
const future = new Date('2026-06-08T12:00:00Z');
const past = new Date('2026-06-01T11:59:59Z');

describe('invitation rules', () => {
  it.each<[string, 'PENDING' | 'ACCEPTED' | 'EXPIRED' | 'CANCELLED', Date, string, boolean, boolean, boolean, string | null]>([
    ['pending, in time', 'PENDING', future, 'PENDING', false, true, true, null],
    ['pending, past expires_at: EXPIRED before the job stores it', 'PENDING', past, 'EXPIRED', true, false, false, 'This invitation expired at 2026-06-01T11:59:59.000Z: ask for a new one'],
    ['pending, expiring this very moment', 'PENDING', now, 'EXPIRED', true, false, false, 'This invitation expired at 2026-06-01T12:00:00.000Z: ask for a new one'],
    ['stored EXPIRED', 'EXPIRED', past, 'EXPIRED', true, false, false, 'This invitation expired at 2026-06-01T11:59:59.000Z: ask for a new one'],
    ['accepted, in time', 'ACCEPTED', future, 'ACCEPTED', false, false, false, 'This invitation has already been accepted'],
    ['accepted long ago', 'ACCEPTED', past, 'ACCEPTED', true, false, false, 'This invitation has already been accepted'],
    ['cancelled', 'CANCELLED', future, 'CANCELLED', false, false, false, 'This invitation has been cancelled'],
    ['cancelled and past expires_at', 'CANCELLED', past, 'CANCELLED', true, false, false, 'This invitation has been cancelled'],
  ])('%s: status %s… is_expired, is_pending, can_be_accepted, the refusal', (_name, status, expiresAt, shown, expired, pending, acceptable, refusal) => {
    const i = { status, expiresAt };
    expect(effectiveStatus(i, now)).toBe(shown);
    expect(isExpired(i, now)).toBe(expired);
    expect(isPending(i, now)).toBe(pending);
    expect(canBeAccepted(i, now)).toBe(acceptable);
    expect(acceptRefusal(i, now)).toBe(refusal);
  });

  it('role ids: 2 AA, 3 CA, 4 BK, 5 EM', () => {
    expect([...ROLE_BY_ID]).toEqual([
      [2, 'AA'],
      [3, 'CA'],
      [4, 'BK'],
      [5, 'EM'],
    ]);
  });

  it.each<[string | undefined, 'nb' | 'en']>([
    [undefined, 'nb'],
    ['', 'nb'],
    ['no', 'nb'],
    ['nb', 'nb'],
    ['nn', 'nb'],
    ['NN-no', 'nb'],
    ['en', 'en'],
    ['EN-us', 'en'],
    ['*', 'nb'],
    ['fr, de;q=0.9', 'nb'],
    ['fr, en;q=0.1', 'en'],
    ['en;q=0.5, nb;q=0.6', 'nb'],
    ['nb;q=0.5, en;q=0.5', 'nb'],
    ['en;q=0.5, nb;q=0.5', 'en'],
    ['en;q=0', 'nb'],
    ['en;q=garbage', 'en'],
    [' en ; q=1.0 ', 'en'],
    ['sv,da,en-GB;q=0.3', 'en'],
  ])('Accept-Language %j → %s', (header, language) => {
    expect(mailLanguage(header)).toBe(language);
  });

  it('the link puts the token where the template says', () => {
    expect(invitationLink('https://app.example/i/{token}?utm=mail', 'abc')).toBe('https://app.example/i/abc?utm=mail');
  });

  it.each([
    ['nb' as const, 'Invitasjon til Fjord AS', 'Kari Nordmann har invitert deg til Fjord AS som regnskapsfører.', '3. desember 2026 kl. 14:05'],
    ['en' as const, 'Invitation to Fjord AS', 'Kari Nordmann has invited you to Fjord AS as accountant.', '3 December 2026 at 14:05 (Norwegian time)'],
  ])('the %s e-mail: subject, who invites to what as which role, the link, the expiry in Norwegian time', (language, subject, line, expiry) => {
    const mail = invitationMail(language, { accountName: 'Fjord AS', role: 'AA', inviterName: 'Kari Nordmann', link: 'https://x/i/t', expiresAt: new Date('2026-12-03T13:05:00Z') });
    expect(mail.subject).toBe(subject);
    expect(mail.text).toContain(line);
    expect(mail.text).toContain('\nhttps://x/i/t\n');
    expect(mail.text).toContain(expiry);
  });

  it('without an inviter (gone, or the system) the e-mail says who is invited, not by whom', () => {
    expect(invitationMail('nb', { accountName: 'Fjord AS', role: 'EM', inviterName: null, link: 'l', expiresAt: now }).text).toContain('Du er invitert til Fjord AS som ansatt.');
    expect(invitationMail('en', { accountName: 'Fjord AS', role: 'CA', inviterName: null, link: 'l', expiresAt: now }).text).toContain('You have been invited to Fjord AS as client account owner.');
  });
});
