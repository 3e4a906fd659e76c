import { randomInt } from 'node:crypto';
import { isValidNationalIdNumber } from '../../src/shared/norwegian-ids.ts';
import { randomOrganizationNumber, type Seed, type Tenant } from '../support/seed.ts';

/** A tenant whose client account has an organisation number (tax cards and end reports need one). */
export async function payrollTenant(seed: Seed, opts: { orgNumber?: boolean } = {}): Promise<Tenant & { orgNumber: string | null }> {
  const t = await seed.tenant();
  const orgNumber = opts.orgNumber === false ? null : randomOrganizationNumber();
  if (orgNumber) await seed.prisma.clientAccount.update({ where: { id: t.account.id }, data: { organizationNumber: orgNumber } });
  return { ...t, orgNumber };
}

/**
 * A valid national identity number (fødselsnummer) born in the 1900s with the given individual number
 * (digits 7–9; '000' is a person the taxauthority sandbox does not know), else a random one 001–499.
 */
export function nationalIdNumber(individual?: string): string {
  for (;;) {
    const day = String(1 + randomInt(28)).padStart(2, '0');
    const month = String(1 + randomInt(12)).padStart(2, '0');
    const year = String(randomInt(100)).padStart(2, '0');
    const ind = individual ?? String(1 + randomInt(499)).padStart(3, '0');
    const nine = `${day}${month}${year}${ind}`;
    for (let k1 = 0; k1 <= 9; k1++) {
      for (let k2 = 0; k2 <= 9; k2++) {
        const candidate = `${nine}${k1}${k2}`;
        if (isValidNationalIdNumber(candidate)) return candidate;
      }
    }
  }
}

/** A business partner of the tenant's account: an employee with a national id number unless told otherwise. */
export async function partner(seed: Seed, t: Tenant, opts: { isEmployee?: boolean; nationalIdNumber?: string | null; name?: string } = {}) {
  return seed.prisma.businessPartner.create({
    data: {
      clientAccountId: t.account.id,
      name: opts.name ?? 'Kari Nordmann',
      isEmployee: opts.isEmployee ?? true,
      nationalIdNumber: opts.nationalIdNumber === undefined ? nationalIdNumber() : opts.nationalIdNumber,
    },
  });
}

/** The smallest valid create body. */
export const minimalBody = (t: Tenant, businessPartnerId: number, extra: Record<string, unknown> = {}) => ({
  client_account_id: t.account.id,
  business_partner_id: businessPartnerId,
  employment_type: 'ordinaertArbeidsforhold',
  start_date: '2026-01-01',
  salary_type: 'MONTHLY_FIXED',
  monthly_salary: '50000.00',
  ...extra,
});

/** The jobs a contract operation queued (pg-boss's table), by name and the employee or contract in their data. */
export async function queuedJobs(seed: Seed, name: string, key: { businessPartnerId?: number; contractId?: number }) {
  const [field, value] = key.businessPartnerId !== undefined ? ['businessPartnerId', key.businessPartnerId] : ['contractId', key.contractId];
  return seed.prisma.$queryRawUnsafe<{ id: string; data: Record<string, unknown>; state: string; retry_count: number }[]>(
    `SELECT id::text AS id, data, state::text AS state, retry_count FROM pgboss.job WHERE name = $1 AND data->>'${field}' = $2 ORDER BY created_on`,
    name,
    String(value),
  );
}
