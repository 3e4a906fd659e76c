import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

const BANK = `id clientAccountId businessPartnerId own name accountNumber formattedAccountNumber bic currencyCode
  ledgerAccountId isActive businessPartner { id name } ledgerAccount { code } createdById updatedById`;
const CREATE = `mutation($input: CreateBankAccountInput!) { createBankAccount(input: $input) { ${BANK} } }`;
const UPDATE = `mutation($id: Int!, $input: UpdateBankAccountInput!) { updateBankAccount(id: $id, input: $input) { ${BANK} } }`;
const LIST = `query($clientAccountId: Int!, $businessPartnerId: Int, $own: Boolean, $isActive: Boolean = true) {
  bankAccounts(clientAccountId: $clientAccountId, businessPartnerId: $businessPartnerId, own: $own, isActive: $isActive) { nodes { id } }
}`;

/** Valid account numbers (mod-11) for one run; each test takes fresh ones. */
function* accountNumbers(): Generator<string> {
  const weights = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
  for (let n = 1203_00_0000; ; n++) {
    const body = String(n);
    const rest = weights.reduce((acc, w, i) => acc + w * Number(body[i]), 0) % 11;
    const check = rest === 0 ? 0 : 11 - rest;
    if (check === 10) continue;
    yield body + check;
  }
}

describe.each(targets())('bank accounts GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let partnerId: number;
  const numbers = accountNumbers();
  const nextNumber = () => numbers.next().value as string;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    partnerId = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Leverandør AS', isSupplier: true } })).id;
  });
  afterAll(() => app?.close());

  const create = (input: Record<string, unknown>, tenant = t, token = tenant.user.token) =>
    app.gql(token, CREATE, { input: { clientAccountId: tenant.account.id, ...input } });
  const created = async (input: Record<string, unknown>, tenant = t) => {
    const res = await create({ accountNumber: nextNumber(), ...input }, tenant);
    expect(res.errors).toBeUndefined();
    return res.data.createBankAccount;
  };
  const expectValidation = (res: { errors?: { message: string; extensions?: any }[] }, message: RegExp) => {
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
    expect(res.errors?.[0].message).toMatch(message);
  };

  it('an own account (no partner) accepts "1503.20.12342", stores the digits, defaults to NOK and ledger account 1920', async () => {
    const res = await create({ accountNumber: '1503.20.12342', name: 'Driftskonto', bic: 'DNBANOKK' });
    expect(res.errors).toBeUndefined();
    expect(res.data.createBankAccount).toMatchObject({
      clientAccountId: t.account.id,
      businessPartnerId: null,
      own: true,
      name: 'Driftskonto',
      accountNumber: '15032012342',
      formattedAccountNumber: '1503.20.12342',
      bic: 'DNBANOKK',
      currencyCode: 'NOK',
      ledgerAccountId: await t.ledgerAccount('1920'),
      ledgerAccount: { code: '1920' },
      isActive: true,
      businessPartner: null,
      createdById: t.user.id,
      updatedById: t.user.id,
    });
    const read = await app.gql(t.user.readToken, `{ bankAccount(id: ${res.data.createBankAccount.id}) { ${BANK} } }`);
    expect(read.data.bankAccount).toEqual(res.data.createBankAccount);
  });

  it('an own account may post to another asset account and use another currency; spaces and an 11-character BIC are accepted', async () => {
    const number = nextNumber();
    const spaced = `${number.slice(0, 4)} ${number.slice(4, 6)} ${number.slice(6)}`;
    const res = await create({ accountNumber: spaced, ledgerAccountId: await t.ledgerAccount('1940'), currencyCode: 'EUR', bic: 'DNBANOKKXXX' });
    expect(res.errors).toBeUndefined();
    expect(res.data.createBankAccount).toMatchObject({ accountNumber: number, ledgerAccount: { code: '1940' }, currencyCode: 'EUR', bic: 'DNBANOKKXXX' });
  });

  it("a partner's account has the partner and no ledger account", async () => {
    const acc = await created({ businessPartnerId: partnerId });
    expect(acc).toMatchObject({ businessPartnerId: partnerId, own: false, ledgerAccountId: null, ledgerAccount: null, businessPartner: { id: partnerId, name: 'Leverandør AS' } });
  });

  it('bankAccounts filters by partner, own and isActive (active by default, null for all)', async () => {
    const tenant = await app.seed.tenant();
    const partner = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: tenant.account.id, name: 'P AS' } })).id;
    const own = await created({}, tenant);
    const theirs = await created({ businessPartnerId: partner }, tenant);
    const closed = await created({}, tenant);
    await app.gql(tenant.user.token, `mutation { deactivateBankAccount(id: ${closed.id}) { id } }`);
    const ids = async (vars: Record<string, unknown>) => {
      const res = await app.gql(tenant.user.token, LIST, { clientAccountId: tenant.account.id, ...vars });
      expect(res.errors).toBeUndefined();
      return res.data.bankAccounts.nodes.map((b: { id: number }) => b.id);
    };
    expect(await ids({})).toEqual([own.id, theirs.id]);
    expect(await ids({ own: true })).toEqual([own.id]);
    expect(await ids({ own: false })).toEqual([theirs.id]);
    expect(await ids({ businessPartnerId: partner })).toEqual([theirs.id]);
    expect(await ids({ isActive: null })).toEqual([own.id, theirs.id, closed.id]);
    expect(await ids({ isActive: false })).toEqual([closed.id]);
    expectValidation(await app.gql(tenant.user.token, LIST, { clientAccountId: tenant.account.id, own: true, businessPartnerId: partner }), /own/);
  });

  it('updateBankAccount changes fields, moves an account between the company and a partner, and reactivates', async () => {
    const acc = await created({ name: 'Gammel' });
    const number = nextNumber();
    const renamed = await app.gql(t.user.token, UPDATE, { id: acc.id, input: { name: 'Ny', accountNumber: number, bic: 'NDEANOKK', clientAccountId: t.account.id } });
    expect(renamed.errors).toBeUndefined();
    expect(renamed.data.updateBankAccount).toMatchObject({ name: 'Ny', accountNumber: number, bic: 'NDEANOKK', ledgerAccount: { code: '1920' } });
    // to a partner: the ledger account goes
    const moved = await app.gql(t.user.token, UPDATE, { id: acc.id, input: { businessPartnerId: partnerId } });
    expect(moved.data.updateBankAccount).toMatchObject({ businessPartnerId: partnerId, ledgerAccountId: null });
    // back to the company: 1920 again unless another asset account is given
    const back = await app.gql(t.user.token, UPDATE, { id: acc.id, input: { businessPartnerId: null, ledgerAccountId: await t.ledgerAccount('1950') } });
    expect(back.data.updateBankAccount).toMatchObject({ businessPartnerId: null, ledgerAccount: { code: '1950' } });
    const off = await app.gql(t.user.token, `mutation { deactivateBankAccount(id: ${acc.id}) { isActive } }`);
    expect(off.data.deactivateBankAccount.isActive).toBe(false);
    const on = await app.gql(t.user.token, UPDATE, { id: acc.id, input: { isActive: true } });
    expect(on.data.updateBankAccount.isActive).toBe(true);
  });

  it('clientAccountId is immutable: a different value is a validation error (400)', async () => {
    const acc = await created({});
    expectValidation(await app.gql(t.user.token, UPDATE, { id: acc.id, input: { clientAccountId: other.account.id } }), /clientAccountId: cannot be changed/);
  });

  it('an account number is unique within the client account (common.conflict, 409), also when deactivated; other accounts may reuse it', async () => {
    const number = nextNumber();
    const first = await created({ accountNumber: number });
    const again = await create({ accountNumber: `${number.slice(0, 4)}.${number.slice(4, 6)}.${number.slice(6)}` });
    expect(again.errors?.[0].extensions).toMatchObject({ code: 'common.conflict' });
    expect(again.errors?.[0].message).toMatch(new RegExp(`already registered in client account ${t.account.id} \\(bank account ${first.id}\\)`));
    await app.gql(t.user.token, `mutation { deactivateBankAccount(id: ${first.id}) { id } }`);
    expect((await create({ accountNumber: number })).errors?.[0].extensions).toMatchObject({ code: 'common.conflict' });
    const second = await created({});
    expect((await app.gql(t.user.token, UPDATE, { id: second.id, input: { accountNumber: number } })).errors?.[0].extensions).toMatchObject({ code: 'common.conflict' });
    // updating an account to its own number is fine
    expect((await app.gql(t.user.token, UPDATE, { id: first.id, input: { accountNumber: number } })).errors).toBeUndefined();
    expect((await create({ accountNumber: number }, other)).errors).toBeUndefined();
  });

  describe('validation (extensions.code common.validation_error)', () => {
    it.each([
      ['an account number with a wrong mod-11 check digit', { accountNumber: '1503.20.12343' }, /accountNumber: must be an 11-digit Norwegian bank account number/],
      ['an account number of 10 digits', { accountNumber: '1503201234' }, /accountNumber/],
      ['an account number with letters', { accountNumber: '1503.20.1234A' }, /accountNumber/],
      ['a BIC of 9 characters', { bic: 'DNBANOKK1' }, /bic: must be a BIC/],
      ['a BIC in lower case', { bic: 'dnbanokk' }, /bic/],
      ['a BIC with punctuation', { bic: 'DNB-NOKK' }, /bic/],
      ['an unknown currency', { currencyCode: 'XYZ' }, /currencyCode: currency 'XYZ' does not exist/],
      ['a currency code of 4 letters', { currencyCode: 'NOKK' }, /currencyCode/],
      ['a name longer than 150', { name: 'x'.repeat(151) }, /name: must be at most 150/],
      ["a partner's account with a ledger account", { businessPartnerId: 'PARTNER', ledgerAccountId: 'L1920' }, /ledgerAccountId: must be omitted for a business partner/],
      ['an own account with ledgerAccountId null', { ledgerAccountId: null }, /ledgerAccountId: is required/],
      ['a ledger account that is not an asset', { ledgerAccountId: 'L3000' }, /must be a balance-sheet asset account.*3000 is of type INCOME/],
      ['a liability ledger account', { ledgerAccountId: 'L2400' }, /ledgerAccountId: must be a balance-sheet asset account/],
      ["another client account's ledger account", { ledgerAccountId: 'OTHER_L1920' }, /ledgerAccountId: ledger account \d+ does not exist in client account/],
      ["another client account's business partner", { businessPartnerId: 'OTHER_PARTNER' }, /businessPartnerId: business partner \d+ does not exist in client account/],
      ['the company itself as business partner', { businessPartnerId: 'SELF' }, /businessPartnerId: is the company itself/],
    ])('createBankAccount rejects %s', async (_rule, input, message) => {
      const resolved: Record<string, unknown> = { accountNumber: nextNumber() };
      for (const [key, value] of Object.entries(input)) {
        if (value === 'PARTNER') resolved[key] = partnerId;
        else if (value === 'OTHER_PARTNER') resolved[key] = (await app.seed.prisma.businessPartner.findFirstOrThrow({ where: { clientAccountId: other.account.id } })).id;
        else if (value === 'SELF') resolved[key] = (await app.seed.prisma.businessPartner.findFirstOrThrow({ where: { clientAccountId: t.account.id, isSelf: true } })).id;
        else if (typeof value === 'string' && value.startsWith('OTHER_L')) resolved[key] = await other.ledgerAccount(value.slice(7));
        else if (typeof value === 'string' && /^L\d+$/.test(value)) resolved[key] = await t.ledgerAccount(value.slice(1));
        else resolved[key] = value;
      }
      const res = await create(resolved);
      expect(res.data).toBeNull();
      expectValidation(res, message);
    });

    it('an own account needs a ledger account: without account 1920 in the chart and none given, creation is refused', async () => {
      const tenant = await app.seed.tenant();
      await app.seed.prisma.account.delete({ where: { id: await tenant.ledgerAccount('1920') } });
      expectValidation(await create({ accountNumber: nextNumber() }, tenant), /ledgerAccountId: is required .* no account 1920/);
      // a partner's account needs none
      const partner = (await app.seed.prisma.businessPartner.create({ data: { clientAccountId: tenant.account.id, name: 'Q AS' } })).id;
      expect((await create({ accountNumber: nextNumber(), businessPartnerId: partner }, tenant)).errors).toBeUndefined();
    });

    it('an inactive ledger account is refused', async () => {
      const tenant = await app.seed.tenant();
      const id = await tenant.ledgerAccount('1940');
      await app.seed.prisma.account.update({ where: { id }, data: { isActive: false } });
      expectValidation(await create({ accountNumber: nextNumber(), ledgerAccountId: id }, tenant), /ledger account 1940 is inactive/);
    });

    it.each([
      ['accountNumber', { accountNumber: '12345678901' }],
      ['bic', { bic: 'X' }],
      ['ledgerAccountId', { ledgerAccountId: null }],
    ])('updateBankAccount rejects an invalid %s', async (_field, input) => {
      const acc = await created({});
      expectValidation(await app.gql(t.user.token, UPDATE, { id: acc.id, input }), /./);
    });
  });

  describe('tenancy and scopes', () => {
    it("another client account's bank account is forbidden (common.forbidden) for read, update and deactivate", async () => {
      const theirs = await created({}, other);
      for (const q of [
        `{ bankAccount(id: ${theirs.id}) { id } }`,
        `mutation { updateBankAccount(id: ${theirs.id}, input: { name: "Mine" }) { id } }`,
        `mutation { deactivateBankAccount(id: ${theirs.id}) { id } }`,
        `{ bankAccounts(clientAccountId: ${other.account.id}) { nodes { id } } }`,
        `mutation { createBankAccount(input: { clientAccountId: ${other.account.id}, accountNumber: "${nextNumber()}" }) { id } }`,
      ]) {
        const res = await app.gql(t.user.token, q);
        expect(res.errors?.[0].extensions, q).toMatchObject({ code: 'common.forbidden' });
      }
    });

    it('a missing bank account is common.not_found', async () => {
      for (const q of [
        `{ bankAccount(id: 99999999) { id } }`,
        `mutation { updateBankAccount(id: 99999999, input: { name: "X" }) { id } }`,
        `mutation { deactivateBankAccount(id: 99999999) { id } }`,
      ]) {
        const res = await app.gql(t.user.token, q);
        expect(res.errors?.[0].extensions, q).toMatchObject({ code: 'common.not_found' });
      }
    });

    it('a read-only token can query but cannot run mutations (insufficient_scope)', async () => {
      const acc = await created({});
      for (const q of [
        `mutation { createBankAccount(input: { clientAccountId: ${t.account.id}, accountNumber: "${nextNumber()}" }) { id } }`,
        `mutation { updateBankAccount(id: ${acc.id}, input: { name: "Nei" }) { id } }`,
        `mutation { deactivateBankAccount(id: ${acc.id}) { id } }`,
      ]) {
        const res = await app.gql(t.user.readToken, q);
        expect(res.errors?.[0].extensions, q).toMatchObject({ code: 'insufficient_scope' });
      }
      const read = await app.gql(t.user.readToken, `{ bankAccounts(clientAccountId: ${t.account.id}) { nodes { id } } }`);
      expect(read.errors).toBeUndefined();
      expect(read.data.bankAccounts.nodes.map((b: { id: number }) => b.id)).toContain(acc.id);
    });
  });
});
