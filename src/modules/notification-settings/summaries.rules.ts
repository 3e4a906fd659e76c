import type { Role } from '../../generated/prisma/enums.ts';

/**
 * The scheduled summaries' pure parts: which period a run covers (calendar days in Norway,
 * Europe/Oslo, whatever the server's zone) and the text of each mail (Norwegian, as the product's
 * other mail).
 */

const osloFormat = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Oslo', year: 'numeric', month: '2-digit', day: '2-digit' });

/** The calendar date in Norway at an instant, YYYY-MM-DD. */
export const osloDate = (at: Date): string => osloFormat.format(at);

const DAY = 86_400_000;
const utc = (date: string) => Date.parse(`${date}T00:00:00Z`);
export const addDays = (date: string, days: number): string => new Date(utc(date) + days * DAY).toISOString().slice(0, 10);

/** WEEKLY_TODO: the Monday (Norwegian date) of the week `now` falls in; one summary per week. */
export function weekOf(now: Date): string {
  const today = osloDate(now);
  const weekday = (new Date(utc(today)).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return addDays(today, -weekday);
}

/** ORGANIZATIONAL_ROLE_CHANGES: the day before `now` (Norwegian date): "yesterday's" changes. */
export const dayBefore = (now: Date): string => addDays(osloDate(now), -1);

/** ISO 8601 week number of a date (the number Norwegian calendars show). */
export function isoWeek(date: string): number {
  const d = new Date(utc(date));
  const thursday = new Date(d.getTime() + (3 - ((d.getUTCDay() + 6) % 7)) * DAY);
  const firstThursday = new Date(Date.UTC(thursday.getUTCFullYear(), 0, 4));
  return 1 + Math.round((thursday.getTime() - firstThursday.getTime() - 3 * DAY + ((firstThursday.getUTCDay() + 6) % 7) * DAY) / (7 * DAY));
}

/** 30.11.2026 */
export const norwegianDate = (date: string): string => `${date.slice(8, 10)}.${date.slice(5, 7)}.${date.slice(0, 4)}`;

const WEEKDAYS = ['søndag', 'mandag', 'tirsdag', 'onsdag', 'torsdag', 'fredag', 'lørdag'];
const weekday = (date: string) => WEEKDAYS[new Date(utc(date)).getUTCDay()];

export const ROLE_NAMES: Record<Role, string> = {
  AA: 'regnskapsfører (AA)',
  CA: 'eier (CA)',
  BK: 'bokfører (BK)',
  EM: 'ansatt (EM)',
};

export interface Recipient {
  email: string;
  firstName: string | null;
  lastName: string | null;
}

const greeting = (r: Recipient) => `Hei${r.firstName ? ` ${r.firstName}` : ''},`;
const personName = (p: Recipient) => [p.firstName, p.lastName].filter(Boolean).join(' ');
export const mailAddress = (r: Recipient) => (personName(r) ? { name: personName(r), address: r.email } : r.email);

const settingPath = (baseUrl: string, clientAccountId: number, type: string) => `${baseUrl}/api/v2/client-accounts/${clientAccountId}/notification-settings/${type}`;
const footer = (baseUrl: string, clientAccountId: number, type: string) =>
  `Vil du ikke ha denne e-posten? Slå den av med PUT ${settingPath(baseUrl, clientAccountId, type)} og {"email_enabled": false, "push_enabled": false}.\n\nDette er en automatisk melding.\n`;

/** What needs attention in a client account (WEEKLY_TODO). */
export interface TodoCounts {
  openTasks: number;
  unreconciledBankTransactions: number;
  openVoucherQuestions: number;
  draftVouchers: number;
  draftJournalEntries: number;
}

/** Each count's line: its words and where to look (the API's list, filtered to what is counted). */
const TODO_LINES: { key: keyof TodoCounts; text: string; path: (id: number) => string }[] = [
  { key: 'openTasks', text: 'Åpne oppgaver', path: (id) => `/api/v2/tasks?client_account_id=${id}` },
  { key: 'unreconciledBankTransactions', text: 'Banktransaksjoner som ikke er avstemt', path: (id) => `/api/v2/bank-transactions?client_account_id=${id}` },
  { key: 'openVoucherQuestions', text: 'Ubesvarte spørsmål om bilag', path: (id) => `/api/v2/vouchers?client_account_id=${id}&with=questions` },
  { key: 'draftVouchers', text: 'Bilag i kladd', path: (id) => `/api/v2/vouchers?client_account_id=${id}&status=DRAFT` },
  { key: 'draftJournalEntries', text: 'Føringer i kladd (ikke bokført)', path: (id) => `/api/v2/journal-entries?client_account_id=${id}&include_drafts=true` },
];

export const needsAttention = (c: TodoCounts): boolean => TODO_LINES.some((l) => c[l.key] > 0);

export function weeklyTodoMail(a: { recipient: Recipient; account: { id: number; displayName: string }; counts: TodoCounts; monday: string; baseUrl: string }) {
  const week = isoWeek(a.monday);
  const lines = TODO_LINES.filter((l) => a.counts[l.key] > 0).map((l) => `• ${l.text}: ${a.counts[l.key]}\n  ${a.baseUrl}${l.path(a.account.id)}`);
  return {
    subject: `Ukens gjøremål for ${a.account.displayName} (uke ${week})`,
    text:
      `${greeting(a.recipient)}\n\ndette venter i ${a.account.displayName} denne uken (uke ${week}, fra mandag ${norwegianDate(a.monday)}):\n\n` +
      `${lines.join('\n')}\n\n` +
      `Du får denne oversikten hver mandag når noe venter, som eier av ${a.account.displayName}.\n` +
      footer(a.baseUrl, a.account.id, 'WEEKLY_TODO'),
  };
}

/** One role added or removed at a client, with the people's names. */
export interface RoleChangeLine {
  role: Role;
  change: 'ADDED' | 'REMOVED';
  person: Recipient;
  changedBy: Recipient | null;
}

export function roleChangesMail(a: {
  recipient: Recipient;
  provider: { id: number; displayName: string };
  day: string;
  clients: { displayName: string; organizationNumber: string | null; changes: RoleChangeLine[] }[];
  baseUrl: string;
}) {
  const person = (p: Recipient) => (personName(p) ? `${personName(p)} <${p.email}>` : p.email);
  const blocks = a.clients.map(
    (c) =>
      `${c.displayName}${c.organizationNumber ? ` (org.nr. ${c.organizationNumber})` : ''}\n` +
      c.changes
        .map(
          (ch) =>
            `  ${ch.change === 'ADDED' ? '+' : '−'} ${person(ch.person)} ${ch.change === 'ADDED' ? 'fikk rollen' : 'mistet rollen'} ${ROLE_NAMES[ch.role]}` +
            (ch.changedBy ? ` (endret av ${person(ch.changedBy)})` : ''),
        )
        .join('\n'),
  );
  return {
    subject: `Rolleendringer hos kundene til ${a.provider.displayName} ${norwegianDate(a.day)}`,
    text:
      `${greeting(a.recipient)}\n\ndisse rollene ble lagt til eller fjernet hos kundene til ${a.provider.displayName} ${weekday(a.day)} ${norwegianDate(a.day)}:\n\n` +
      `${blocks.join('\n\n')}\n\n` +
      `Du får denne oversikten dagen etter hver dag med endringer, som bruker av ${a.provider.displayName}.\n` +
      footer(a.baseUrl, a.provider.id, 'ORGANIZATIONAL_ROLE_CHANGES'),
  };
}
