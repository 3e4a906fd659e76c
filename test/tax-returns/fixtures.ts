import type { Prisma } from '../../src/db/database.ts';
import { postEntry } from '../support/postings.ts';
import { randomOrganizationNumber, type Seed, type Tenant } from '../support/seed.ts';

/** A tenant whose client account has an organisation number (filing needs one). */
export async function filingTenant(seed: Seed): Promise<Tenant & { orgNumber: string }> {
  const t = await seed.tenant();
  const orgNumber = randomOrganizationNumber();
  await seed.prisma.clientAccount.update({ where: { id: t.account.id }, data: { organizationNumber: orgNumber } });
  return { ...t, orgNumber };
}

export async function account(prisma: Prisma, clientAccountId: number, code: string, name: string, accountType: 'ASSET' | 'EQUITY' | 'INCOME' | 'EXPENSE' | 'LIABILITY'): Promise<number> {
  const a = await prisma.account.create({ data: { clientAccountId, code, name, accountType } });
  return a.id;
}

const entry = (prisma: Prisma, t: Tenant, debit: number, credit: number, amount: string, options: { draft?: boolean } = {}) =>
  postEntry(prisma, t.account.id, [
    { accountId: debit, debit: amount },
    { accountId: credit, credit: amount },
  ], options);

/**
 * The hand-computed ledger (every line posted 2026-01-15 unless moved; the figures of 2026 in the
 * comments are what the næringsspesifikasjon must show):
 *
 *   1920/2000 100000.00 share capital paid in
 *   1500/3000 250000.00 sales                          → driftsinntekter 3000: 250000.00
 *   4300/2400  80000.00 goods (4300 groups to 4005)    → driftskostnader 4005: 80000.00
 *   6300/1920  36000.00 rent                           → driftskostnader 6300: 36000.00
 *   1920/8050   1234.56 interest earned                → finansinntekter 8050: 1234.56
 *   8150/1920    500.10 interest paid                  → finanskostnader 8150: 500.10
 *   1560/1920   1000.00 to an account with no SAF-T grouping: mapped by its number 1560
 *   6300/1920  99999.00 a DRAFT entry: left out
 *   1920/3000   5000.00 moved to 2025-06-30: last year's sale, not closed into equity
 *
 * 2026: driftsinntekter 250000.00, driftskostnader 116000.00, driftsresultat 134000.00, netto finans
 * 734.46, resultat før skatt 134734.46, skatt 0.00, årsresultat 134734.46.
 * Balance 31.12.2026: 1500 250000.00, 1560 1000.00, 1920 68734.46 (100000 − 36000 + 1234.56 − 500.10
 * − 1000 + 5000) = eiendeler 319734.46; egenkapital 2000 100000.00 + unclosed result 139734.46 (this
 * year's 134734.46 and last year's 5000.00) = 239734.46; kortsiktig gjeld 2400 80000.00; sum 319734.46.
 */
export async function postFixtureLedger(seed: Seed, t: Tenant): Promise<void> {
  const prisma = seed.prisma;
  const [bank, capital, receivables, sales, goods, payables, rent, interestIn, interestOut] = await Promise.all(
    ['1920', '2000', '1500', '3000', '4300', '2400', '6300', '8050', '8150'].map((c) => t.ledgerAccount(c)),
  );
  await prisma.account.deleteMany({ where: { clientAccountId: t.account.id, code: '1560' } });
  const other = await account(prisma, t.account.id, '1560', 'Andre fordringer uten gruppering', 'ASSET');
  await entry(prisma, t, bank, capital, '100000.00');
  await entry(prisma, t, receivables, sales, '250000.00');
  await entry(prisma, t, goods, payables, '80000.00');
  await entry(prisma, t, rent, bank, '36000.00');
  await entry(prisma, t, bank, interestIn, '1234.56');
  await entry(prisma, t, interestOut, bank, '500.10');
  await entry(prisma, t, other, bank, '1000.00');
  await entry(prisma, t, rent, bank, '99999.00', { draft: true });
  const lastYear = await entry(prisma, t, bank, sales, '5000.00');
  await prisma.journalEntryLine.updateMany({ where: { journalEntryId: lastYear }, data: { postingDate: new Date('2025-06-30') } });
}

/** A ledger whose balance sheet cannot balance on the form: 700.00 on an asset account no code exists for. */
export async function postUnmappedLedger(seed: Seed, t: Tenant): Promise<void> {
  const unmapped = await account(seed.prisma, t.account.id, '1599', 'Egen konto uten kode', 'ASSET');
  await entry(seed.prisma, t, unmapped, await t.ledgerAccount('2000'), '700.00');
}

/** A small ledger that passes every rule: 1000.00 share capital in the bank. */
export async function postCleanLedger(seed: Seed, t: Tenant): Promise<void> {
  await entry(seed.prisma, t, await t.ledgerAccount('1920'), await t.ledgerAccount('2000'), '1000.00');
}
