import type { Role } from '../../generated/prisma/enums.ts';
import type { MailLanguage } from './invitations.rules.ts';

/** What an invitation e-mail says: who invites, to which account and role, the link and its expiry. */
export interface InvitationMailModel {
  accountName: string;
  role: Role;
  /** the inviter's name, or null when the inviter is gone (or was the system) */
  inviterName: string | null;
  link: string;
  expiresAt: Date;
}

const ROLE_WORDS: Record<MailLanguage, Record<Role, string>> = {
  nb: { AA: 'regnskapsfører', CA: 'eier av klientkontoen', BK: 'bokfører', EM: 'ansatt' },
  en: { AA: 'accountant', CA: 'client account owner', BK: 'bookkeeper', EM: 'employee' },
};

/** The expiry in Norwegian time, as a reader there expects it ("3. desember 2026 kl. 14:05" / "3 December 2026 at 14:05"). */
function expiry(language: MailLanguage, at: Date): string {
  const locale = language === 'nb' ? 'nb-NO' : 'en-GB';
  const day = new Intl.DateTimeFormat(locale, { timeZone: 'Europe/Oslo', day: 'numeric', month: 'long', year: 'numeric' }).format(at);
  const time = new Intl.DateTimeFormat(locale, { timeZone: 'Europe/Oslo', hour: '2-digit', minute: '2-digit', hour12: false }).format(at);
  return language === 'nb' ? `${day} kl. ${time}` : `${day} at ${time} (Norwegian time)`;
}

/** The invitation e-mail in Norwegian (bokmål) or English: subject and plain text. */
export function invitationMail(language: MailLanguage, m: InvitationMailModel): { subject: string; text: string } {
  const role = ROLE_WORDS[language][m.role];
  if (language === 'nb') {
    return {
      subject: `Invitasjon til ${m.accountName}`,
      text:
        `Hei,\n\n${m.inviterName ?? 'Du'} ${m.inviterName ? 'har invitert deg' : 'er invitert'} til ${m.accountName} som ${role}.\n\n` +
        `Godta invitasjonen og opprett brukeren din her:\n${m.link}\n\n` +
        `Lenken gjelder til ${expiry(language, m.expiresAt)}. Har du ikke ventet denne invitasjonen, kan du se bort fra e-posten.\n\n` +
        'Dette er en automatisk melding.\n',
    };
  }
  return {
    subject: `Invitation to ${m.accountName}`,
    text:
      `Hello,\n\n${m.inviterName ? `${m.inviterName} has invited you` : 'You have been invited'} to ${m.accountName} as ${role}.\n\n` +
      `Accept the invitation and create your user here:\n${m.link}\n\n` +
      `The link is valid until ${expiry(language, m.expiresAt)}. If you did not expect this invitation, you can ignore this e-mail.\n\n` +
      'This is an automatic message.\n',
  };
}
