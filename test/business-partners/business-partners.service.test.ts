import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createBankAccount } from '../../src/modules/bank-accounts/bank-accounts.service.ts';
import { createBusinessPartner } from '../../src/modules/business-partners/business-partners.service.ts';
import { openTestDatabase, targets } from '../support/harness.ts';
import { createSeed } from '../support/seed.ts';

// The core create functions take a Prisma client (or a transaction's) and no actor: the admin CLI and
// the demo seed call them directly, so they must apply every rule themselves, not rely on GraphQL.
describe.each(targets())('business partner and bank account services without a request (%s)', (target) => {
  let db: Database;
  let accountId: number;

  beforeAll(async () => {
    db = await openTestDatabase(target);
    accountId = (await createSeed(db.prisma).clientAccount()).id;
  });
  afterAll(() => db?.close());

  it('createBusinessPartner without an actor records no creator and normalises the numbers', async () => {
    const p = await createBusinessPartner(db.prisma, { clientAccountId: accountId, name: '  Trimmet AS ', organizationNumber: '974.760.673', email: '' });
    expect(p).toMatchObject({ name: 'Trimmet AS', organizationNumber: '974760673', email: null, createdById: null, updatedById: null });
  });

  it.each([
    [{ name: '' }, /name/],
    [{ organizationNumber: '974760674' }, /organizationNumber: must be a valid 9-digit/],
    [{ nationalIdNumber: '01019010047' }, /nationalIdNumber/],
    [{ email: 'a@b' }, /email/],
    [{ addresses: [{ addressType: 'POSTAL' as const, countryCode: 'no' }] }, /addresses\.0\.countryCode/],
  ])('createBusinessPartner applies the field rules itself: %o', async (fields, message) => {
    await expect(createBusinessPartner(db.prisma, { clientAccountId: accountId, name: 'X AS', ...fields })).rejects.toMatchObject({
      code: 'common.validation_error',
      message: expect.stringMatching(message),
    });
  });

  it('a missing client account is not found (404)', async () => {
    await expect(createBusinessPartner(db.prisma, { clientAccountId: 99999999, name: 'X AS' })).rejects.toMatchObject({ code: 'common.not_found' });
    await expect(createBankAccount(db.prisma, { clientAccountId: 99999999, accountNumber: '15032012342' })).rejects.toMatchObject({ code: 'common.not_found' });
  });

  it("both work inside a caller's transaction, which rolls back as a whole", async () => {
    await expect(
      db.prisma.$transaction(async (tx) => {
        const p = await createBusinessPartner(tx, { clientAccountId: accountId, name: 'Rullet tilbake AS' });
        await createBankAccount(tx, { clientAccountId: accountId, businessPartnerId: p.id, accountNumber: '1234.56.78903' });
        await createBankAccount(tx, { clientAccountId: accountId, accountNumber: '1234.56.78904' }); // bad check digit
      }),
    ).rejects.toMatchObject({ code: 'common.validation_error' });
    expect(await db.prisma.businessPartner.count({ where: { clientAccountId: accountId, name: 'Rullet tilbake AS' } })).toBe(0);
    expect(await db.prisma.bankAccount.count({ where: { clientAccountId: accountId, accountNumber: '12345678903' } })).toBe(0);
  });
});
