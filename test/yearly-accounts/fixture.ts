import { expect } from 'vitest';
import type { TestApp } from '../support/harness.ts';
import { randomOrganizationNumber, type Tenant } from '../support/seed.ts';

/**
 * A hand-computed ledger (posted through POST /journal-entries/): 2023 and 2024 of a small AS.
 *
 * 2023: share capital 30 000 (1920/2000); sales 50 000 on credit (1500/3000); rent 20 000 (6300/1920).
 *       Result 30 000. Balance 31.12.2023: 1500 50 000 + 1920 10 000 = 60 000 = equity 30 000 + result 30 000.
 * 2024: bank loan 60 000 (1920/2220); machine 40 000 (1200/1920); sales 100 000 + other income 20 000
 *       (1500/3000, 3900); goods 30 000 on credit (4300/2400); wages 25 000 (5000/1920); rent 12 000
 *       (6300/1920); depreciation 8 000 (6000/1200); interest income 500.50 (1920/8040); interest cost
 *       3 000.25 (8150/1920); tax 9 000 (8300/2500); loan to a shareholder 5 000 (1370/1920); customer
 *       payment 100 000 (1920/1500).
 *       Driftsinntekter 120 000; driftskostnader 30 000 + 25 000 + 8 000 + 12 000 = 75 000; driftsresultat
 *       45 000; resultat før skatt 45 000 + 500.50 − 3 000.25 = 42 500.25; årsresultat 33 500.25.
 *       Balance 31.12.2024: 1200 32 000 + 1370 5 000 = 37 000; 1500 70 000 + 1920 85 500.25 = 155 500.25;
 *       sum 192 500.25 = equity 30 000 + 30 000 + 33 500.25 = 93 500.25, 2220 60 000, 2400 30 000 + 2500 9 000.
 */
export const LEDGER: [string, [string, string, string][]][] = [
  ['2023-01-10', [['1920', '30000.00', '0'], ['2000', '0', '30000.00']]],
  ['2023-06-30', [['1500', '50000.00', '0'], ['3000', '0', '50000.00']]],
  ['2023-07-15', [['6300', '20000.00', '0'], ['1920', '0', '20000.00']]],
  ['2024-01-05', [['1920', '60000.00', '0'], ['2220', '0', '60000.00']]],
  ['2024-02-01', [['1200', '40000.00', '0'], ['1920', '0', '40000.00']]],
  ['2024-03-31', [['1500', '120000.00', '0'], ['3000', '0', '100000.00'], ['3900', '0', '20000.00']]],
  ['2024-04-30', [['4300', '30000.00', '0'], ['2400', '0', '30000.00']]],
  ['2024-05-31', [['5000', '25000.00', '0'], ['1920', '0', '25000.00']]],
  ['2024-06-30', [['6300', '12000.00', '0'], ['1920', '0', '12000.00']]],
  ['2024-07-01', [['1920', '100000.00', '0'], ['1500', '0', '100000.00']]],
  ['2024-08-15', [['1370', '5000.00', '0'], ['1920', '0', '5000.00']]],
  ['2024-09-30', [['1920', '500.50', '0'], ['8040', '0', '500.50']]],
  ['2024-10-31', [['8150', '3000.25', '0'], ['1920', '0', '3000.25']]],
  ['2024-12-31', [['6000', '8000.00', '0'], ['1200', '0', '8000.00']]],
  ['2024-12-31', [['8300', '9000.00', '0'], ['2500', '0', '9000.00']]],
];

/** Customer and supplier accounts (1500, 2400) need a business partner on every line. */
const PARTNER_ACCOUNTS = new Set(['1500', '2400']);

export async function post(app: TestApp, t: Tenant, date: string, lines: [string, string, string][], partnerId?: number): Promise<number> {
  const dimensions = (code: string) => (PARTNER_ACCOUNTS.has(code) && partnerId ? [{ type: 'businesspartner', id: partnerId }] : undefined);
  const res = await app.http('POST', '/api/v2/journal-entries/', {
    token: t.user.token,
    body: { client_account_id: t.account.id, description: `fixture ${date}`, lines: lines.map(([code, debit, credit]) => ({ posting_date: date, account_code: code, debit, credit, dimensions: dimensions(code) })) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** A tenant with an organization number, one employee and the ledger above. */
export async function companyWithLedger(app: TestApp, options: { ledger?: typeof LEDGER; orgNumber?: boolean } = {}): Promise<Tenant & { orgNumber: string | null }> {
  const t = await app.seed.tenant();
  const orgNumber = options.orgNumber === false ? null : randomOrganizationNumber();
  if (orgNumber) await app.seed.prisma.clientAccount.update({ where: { id: t.account.id }, data: { organizationNumber: orgNumber } });
  await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Ola Ansatt', isEmployee: true } });
  const partner = await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde og Leverandør AS', isCustomer: true, isSupplier: true } });
  for (const [date, lines] of options.ledger ?? LEDGER) await post(app, t, date, lines, partner.id);
  return { ...t, orgNumber };
}

/** Share capital 30 000 and a 50 000 loss in 2024: equity −20 000 (a going-concern note is required). */
export const NEGATIVE_EQUITY: typeof LEDGER = [
  ['2024-01-02', [['1920', '30000.00', '0'], ['2000', '0', '30000.00']]],
  ['2024-03-01', [['6300', '50000.00', '0'], ['2400', '0', '50000.00']]],
];
