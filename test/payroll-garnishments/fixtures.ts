import { randomInt } from 'node:crypto';
import { isValidNationalIdNumber } from '../../src/shared/norwegian-ids.ts';
import { derivedOrder } from '../../src/integrations/taxauthority/garnishments.sandbox.ts';
import { createIntegrations } from '../../src/integrations/integrations.ts';
import { loadConfig } from '../../src/config.ts';
import { Decimal } from '../../src/shared/scalars.ts';
import { randomOrganizationNumber, type Seed, type Tenant } from '../support/seed.ts';

/** A random valid national identity number (fødselsnummer, both check digits). */
export function randomNationalId(): string {
  for (;;) {
    const day = String(randomInt(1, 29)).padStart(2, '0');
    const month = String(randomInt(1, 13)).padStart(2, '0');
    const year = String(randomInt(0, 100)).padStart(2, '0');
    const individual = String(randomInt(0, 1000)).padStart(3, '0');
    const base = `${day}${month}${year}${individual}`;
    for (let k1 = 0; k1 <= 9; k1++) for (let k2 = 0; k2 <= 9; k2++) if (isValidNationalIdNumber(`${base}${k1}${k2}`)) return `${base}${k1}${k2}`;
  }
}

/** A person number whose derived order at the employer is of this kind (or none). */
export function personWith(org: string, kind: 'FIXED' | 'PERCENTAGE' | 'NONE'): string {
  for (;;) {
    const p = randomNationalId();
    const o = derivedOrder(org, p);
    if ((o?.deduction_type ?? 'NONE') === kind) return p;
  }
}

/** A tenant whose client account has an organisation number (the authority is asked on its behalf). */
export async function employerTenant(seed: Seed): Promise<Tenant & { orgNumber: string }> {
  const t = await seed.tenant();
  const orgNumber = randomOrganizationNumber();
  await seed.prisma.clientAccount.update({ where: { id: t.account.id }, data: { organizationNumber: orgNumber } });
  return { ...t, orgNumber };
}

export async function employee(seed: Seed, clientAccountId: number, nationalIdNumber: string | null, name = 'Ansatt Testesen', isEmployee = true) {
  return seed.prisma.businessPartner.create({ data: { clientAccountId, name, nationalIdNumber, isEmployee } });
}

/** A garnishment row written directly (the API has no create): for the list and get contract tests. */
export async function storedGarnishment(seed: Seed, clientAccountId: number, businessPartnerId: number, data: Partial<{ externalId: string; priority: number; status: 'ACTIVE' | 'EXPIRED' | 'CANCELLED'; deductionType: 'FIXED' | 'PERCENTAGE'; amount: string | null; percentage: string | null }> = {}) {
  const fixed = (data.deductionType ?? 'FIXED') === 'FIXED';
  return seed.prisma.payrollGarnishment.create({
    data: {
      clientAccountId,
      businessPartnerId,
      externalId: data.externalId ?? `EXT-${randomInt(1e9)}`,
      garnishmentType: fixed ? 'UTLEGGSTREKK' : 'BIDRAGSTREKK',
      deductionType: data.deductionType ?? 'FIXED',
      amount: fixed ? new Decimal(data.amount ?? '1500') : null,
      percentage: fixed ? null : new Decimal(data.percentage ?? '12.5'),
      priority: data.priority ?? 2,
      validFrom: new Date('2026-01-01'),
      status: data.status ?? 'ACTIVE',
      externalVersion: 1,
      sequenceNumber: 1,
      rawResponse: { source: 'test' },
    },
  });
}

/** The taxauthority sandbox's controls (the sandbox runs in this process, as the app's connector finds it). */
const authority = createIntegrations(loadConfig({ DATA_DIR: '/tmp/unused' }).integrations).connector('taxauthority');
export const sandboxControls = {
  add: async (org: string, order: Record<string, unknown>) => (await authority.post<Record<string, any>>(`/sandbox/garnishments/${org}`, order)).body,
  change: async (org: string, orderId: string, changes: Record<string, unknown>) =>
    (await authority.request<Record<string, any>>('PATCH', `/sandbox/garnishments/${org}/${encodeURIComponent(orderId)}`, { body: changes })).body,
  lift: (org: string, orderId: string, personNumber?: string) =>
    authority.request('DELETE', `/sandbox/garnishments/${org}/${encodeURIComponent(orderId)}`, { query: { person_number: personNumber } }),
};
