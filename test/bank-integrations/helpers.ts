import { randomInt } from 'node:crypto';
import { createBankAccount } from '../../src/modules/bank-accounts/bank-accounts.service.ts';
import { isValidBankAccountNumber } from '../../src/shared/norwegian-ids.ts';
import type { TestApp } from '../support/harness.ts';
import { randomOrganizationNumber, type TestUser } from '../support/seed.ts';

/** A random valid Norwegian account number (mod 11) starting with `prefix` (the bank's clearing digits). */
export function randomAccountNumber(prefix = '1503'): string {
  for (;;) {
    const body = `${prefix}${String(randomInt(0, 10 ** (10 - prefix.length))).padStart(10 - prefix.length, '0')}`;
    for (let d = 0; d <= 9; d++) if (isValidBankAccountNumber(`${body}${d}`)) return `${body}${d}`;
  }
}

export interface Company {
  account: { id: number; displayName: string };
  organizationNumber: string | null;
  user: TestUser;
}

/** A client account (with an organization number unless `org: false`) and an owner (CA). */
export async function company(app: TestApp, opts: { org?: boolean; name?: string } = {}): Promise<Company> {
  const organizationNumber = opts.org === false ? null : randomOrganizationNumber();
  const account = await app.seed.clientAccount({ name: opts.name ?? `Bankkunde ${randomInt(1e6)} AS`, organizationNumber: organizationNumber ?? undefined });
  const user = await app.seed.user();
  await app.seed.grantRole({ userId: user.id, clientAccountId: account.id, role: 'CA' });
  return { account, organizationNumber, user };
}

/** One of the company's own bank accounts (bic null: none), active unless said. */
export async function ownBankAccount(app: TestApp, clientAccountId: number, bic: string | null, opts: { accountNumber?: string; isActive?: boolean; name?: string } = {}) {
  const created = await createBankAccount(app.seed.system, {
    input: { clientAccountId, accountNumber: opts.accountNumber ?? randomAccountNumber(), bic, name: opts.name ?? null },
  });
  if (opts.isActive === false) await app.seed.prisma.bankAccount.update({ where: { id: created.id }, data: { isActive: false } });
  return created;
}
