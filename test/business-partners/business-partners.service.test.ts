import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createBankAccount } from '../../src/modules/bank-accounts/bank-accounts.service.ts';
import { createBusinessPartner } from '../../src/modules/business-partners/business-partners.service.ts';
import { inTransaction, systemContext, type RequestContext } from '../../src/shared/context.ts';
import { openTestDatabase, targets } from '../support/harness.ts';
import { createSeed } from '../support/seed.ts';

// The services are what the admin CLI and the demo seed call too, with a system context and no
// request: they must apply every rule themselves, not rely on GraphQL.
describe.each(targets())('business partner and bank account services without a request (%s)', (target) => {
  let db: Database;
  let system: RequestContext;
  let accountId: number;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    system = systemContext(db.prisma);
    accountId = (await createSeed(db.prisma).clientAccount()).id;
  });
  afterAll(() => db?.close());

  it('createBusinessPartner without an acting user records no creator and normalises the numbers', async () => {
    const p = await createBusinessPartner(system, { input: { clientAccountId: accountId, name: '  Trimmet AS ', organizationNumber: '974.760.673', email: '' } });
    expect(p).toMatchObject({ name: 'Trimmet AS', organizationNumber: '974760673', email: null, createdById: null, updatedById: null });
  });

  it.each([
    [{ name: '' }, /name/],
    [{ organizationNumber: '974760674' }, /organizationNumber: must be a valid 9-digit/],
    [{ nationalIdNumber: '01019010047' }, /nationalIdNumber/],
    [{ email: 'a@b' }, /email/],
    [{ addresses: [{ addressType: 'POSTAL' as const, countryCode: 'no' }] }, /addresses\.0\.countryCode/],
  ])('createBusinessPartner applies the field rules itself: %o', async (fields, message) => {
    await expect(createBusinessPartner(system, { input: { clientAccountId: accountId, name: 'X AS', ...fields } })).rejects.toMatchObject({
      code: 'common.validation_error',
      message: expect.stringMatching(message),
    });
  });

  it('a missing client account is not found (404)', async () => {
    await expect(createBusinessPartner(system, { input: { clientAccountId: 99999999, name: 'X AS' } })).rejects.toMatchObject({ code: 'common.not_found' });
    await expect(createBankAccount(system, { input: { clientAccountId: 99999999, accountNumber: '15032012342' } })).rejects.toMatchObject({ code: 'common.not_found' });
  });

  it("both join a caller's transaction, which rolls back as a whole", async () => {
    await expect(
      inTransaction(system, async (tx) => {
        const p = await createBusinessPartner(tx, { input: { clientAccountId: accountId, name: 'Rullet tilbake AS' } });
        await createBankAccount(tx, { input: { clientAccountId: accountId, businessPartnerId: p.id, accountNumber: '1234.56.78903' } });
        await createBankAccount(tx, { input: { clientAccountId: accountId, accountNumber: '1234.56.78904' } }); // bad check digit
      }),
    ).rejects.toMatchObject({ code: 'common.validation_error' });
    expect(await db.prisma.businessPartner.count({ where: { clientAccountId: accountId, name: 'Rullet tilbake AS' } })).toBe(0);
    expect(await db.prisma.bankAccount.count({ where: { clientAccountId: accountId, accountNumber: '12345678903' } })).toBe(0);
  });
});
