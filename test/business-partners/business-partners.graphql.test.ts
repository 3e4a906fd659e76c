import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

const PARTNER = `id clientAccountId name organizationNumber nationalIdNumber email phone
  isCustomer isSupplier isEmployee isShareholder isSelf isActive createdBy { email } updatedBy { email }
  addresses { addressType line1 line2 postalCode city countryCode }`;

const CREATE = `mutation($input: CreateBusinessPartnerInput!) { createBusinessPartner(input: $input) { ${PARTNER} } }`;
const UPDATE = `mutation($id: Int!, $input: UpdateBusinessPartnerInput!) { updateBusinessPartner(id: $id, input: $input) { ${PARTNER} } }`;
const LIST = `query($clientAccountId: Int!, $isCustomer: Boolean, $isSupplier: Boolean, $isEmployee: Boolean, $isShareholder: Boolean,
    $isActive: Boolean = true, $freeText: String, $orderBy: [String!], $page: Int, $perPage: Int) {
  businessPartners(clientAccountId: $clientAccountId, isCustomer: $isCustomer, isSupplier: $isSupplier, isEmployee: $isEmployee,
      isShareholder: $isShareholder, isActive: $isActive, freeText: $freeText, orderBy: $orderBy, page: $page, perPage: $perPage) {
    nodes { id name } meta { page perPage pages records }
  }
}`;

// A valid fødselsnummer (synthetic: 01.01.90, individual number 100, both check digits right).
const NATIONAL_ID = '01019010046';

describe.each(targets())('business partners GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(() => app?.close());

  const create = (input: Record<string, unknown>, tenant = t, token = tenant.user.token) =>
    app.gql(token, CREATE, { input: { clientAccountId: tenant.account.id, ...input } });
  const created = async (input: Record<string, unknown>, tenant = t) => {
    const res = await create(input, tenant);
    expect(res.errors).toBeUndefined();
    return res.data.createBusinessPartner;
  };
  const list = async (tenant: Tenant, vars: Record<string, unknown> = {}) => {
    const res = await app.gql(tenant.user.token, LIST, { clientAccountId: tenant.account.id, ...vars });
    expect(res.errors).toBeUndefined();
    return res.data.businessPartners;
  };

  it('createBusinessPartner stores the digits of organization and national id numbers, the addresses, and who created it', async () => {
    const p = await created({
      name: 'Kafé Lillebror AS',
      organizationNumber: '923 609 016',
      email: 'post@lillebror.example',
      phone: '+47 22 00 00 00',
      isCustomer: true,
      addresses: [
        { addressType: 'VISITING', line1: 'Storgata 1', postalCode: '0155', city: 'Oslo' },
        { addressType: 'POSTAL', line1: 'Postboks 12', postalCode: '0101', city: 'Oslo', countryCode: 'NO' },
      ],
    });
    expect(p).toMatchObject({
      clientAccountId: t.account.id,
      name: 'Kafé Lillebror AS',
      organizationNumber: '923609016',
      nationalIdNumber: null,
      isCustomer: true,
      isSupplier: false,
      isSelf: false,
      isActive: true,
      createdBy: { email: t.user.email },
      addresses: [
        { addressType: 'POSTAL', line1: 'Postboks 12', line2: null, postalCode: '0101', city: 'Oslo', countryCode: 'NO' },
        { addressType: 'VISITING', line1: 'Storgata 1', line2: null, postalCode: '0155', city: 'Oslo', countryCode: 'NO' },
      ],
    });
    const employee = await created({ name: 'Kari Nordmann', nationalIdNumber: '010190 10046', isEmployee: true });
    expect(employee.nationalIdNumber).toBe(NATIONAL_ID);

    const read = await app.gql(t.user.readToken, `{ businessPartner(id: ${p.id}) { ${PARTNER} } }`);
    expect(read.data.businessPartner).toEqual(p);
  });

  it('updateBusinessPartner changes the given fields and upserts the given address types in one transaction', async () => {
    const p = await created({
      name: 'Oppdater AS',
      isSupplier: true,
      addresses: [
        { addressType: 'POSTAL', line1: 'Gammel vei 1', postalCode: '5003', city: 'Bergen' },
        { addressType: 'DELIVERY', line1: 'Lager 2', postalCode: '5004', city: 'Bergen' },
      ],
    });
    const res = await app.gql(t.user.token, UPDATE, {
      id: p.id,
      input: {
        clientAccountId: t.account.id,
        name: 'Oppdatert AS',
        email: 'faktura@oppdatert.example',
        isCustomer: true,
        addresses: [
          { addressType: 'POSTAL', line1: 'Ny vei 9', postalCode: '0150', city: 'Oslo' },
          { addressType: 'VISITING', line1: 'Besøk 3', city: 'Stockholm', countryCode: 'SE' },
        ],
      },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.updateBusinessPartner).toMatchObject({
      name: 'Oppdatert AS',
      email: 'faktura@oppdatert.example',
      isCustomer: true,
      isSupplier: true,
      updatedBy: { email: t.user.email },
      addresses: [
        // replaced entirely: the given POSTAL address, with the fields it omits cleared
        { addressType: 'POSTAL', line1: 'Ny vei 9', line2: null, postalCode: '0150', city: 'Oslo', countryCode: 'NO' },
        // not given: kept
        { addressType: 'DELIVERY', line1: 'Lager 2', postalCode: '5004', city: 'Bergen', countryCode: 'NO' },
        { addressType: 'VISITING', line1: 'Besøk 3', postalCode: null, city: 'Stockholm', countryCode: 'SE' },
      ],
    });

    // an invalid address rolls back the whole update
    const bad = await app.gql(t.user.token, UPDATE, {
      id: p.id,
      input: { name: 'Skal ikke lagres', addresses: [{ addressType: 'POSTAL', line1: 'x' }, { addressType: 'POSTAL', line1: 'y' }] },
    });
    expect(bad.errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
    expect(bad.errors?.[0].message).toMatch(/addresses\.1\.addressType: POSTAL is given more than once/);
    const after = await app.gql(t.user.token, `{ businessPartner(id: ${p.id}) { name } }`);
    expect(after.data.businessPartner.name).toBe('Oppdatert AS');

    // clearing an optional field with null or ''
    const cleared = await app.gql(t.user.token, UPDATE, { id: p.id, input: { email: '', phone: null } });
    expect(cleared.data.updateBusinessPartner).toMatchObject({ email: null, phone: null });
  });

  it('clientAccountId is immutable: a different value is a validation error (400)', async () => {
    const p = await created({ name: 'Flytt AS' });
    const res = await app.gql(t.user.token, UPDATE, { id: p.id, input: { clientAccountId: other.account.id } });
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
    expect(res.errors?.[0].message).toMatch(/clientAccountId: cannot be changed/);
  });

  it('deactivateBusinessPartner keeps the record; lists show active partners unless isActive is null; updating isActive reactivates', async () => {
    const p = await created({ name: 'Borte AS' });
    const res = await app.gql(t.user.token, `mutation { deactivateBusinessPartner(id: ${p.id}) { id isActive } }`);
    expect(res.data.deactivateBusinessPartner).toEqual({ id: p.id, isActive: false });
    expect((await list(t, { freeText: 'Borte' })).meta.records).toBe(0);
    expect((await list(t, { freeText: 'Borte', isActive: null })).nodes).toEqual([{ id: p.id, name: 'Borte AS' }]);
    expect((await list(t, { freeText: 'Borte', isActive: false })).nodes).toEqual([{ id: p.id, name: 'Borte AS' }]);
    const back = await app.gql(t.user.token, UPDATE, { id: p.id, input: { isActive: true } });
    expect(back.data.updateBusinessPartner.isActive).toBe(true);
  });

  it('the company itself (isSelf, made with the client account) cannot be deactivated', async () => {
    const self = (await app.gql(t.user.token, `{ businessPartners(clientAccountId: ${t.account.id}, freeText: "${t.account.displayName}") { nodes { id isSelf } } }`))
      .data.businessPartners.nodes.find((n: { isSelf: boolean }) => n.isSelf);
    expect(self).toBeTruthy();
    const res = await app.gql(t.user.token, `mutation { deactivateBusinessPartner(id: ${self.id}) { id } }`);
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
  });

  it('businessPartners: role filters, freeText on name, email and organization number, orderBy and page type (50 by default, at most 100)', async () => {
    const tenant = await app.seed.tenant();
    const a = await created({ name: 'Alfa Kunde AS', isCustomer: true, email: 'post@alfa.example' }, tenant);
    const b = await created({ name: 'Beta Leverandør AS', isSupplier: true, organizationNumber: '974760673' }, tenant);
    const c = await created({ name: 'Cecilie Aksjonær', isShareholder: true, isEmployee: true }, tenant);
    const ids = async (vars: Record<string, unknown>) => (await list(tenant, vars)).nodes.map((n: { id: number }) => n.id);

    expect(await ids({ isCustomer: true })).toEqual([a.id]);
    expect(await ids({ isSupplier: true })).toEqual([b.id]);
    expect(await ids({ isEmployee: true })).toEqual([c.id]);
    expect(await ids({ isShareholder: true })).toEqual([c.id]);
    expect(await ids({ isCustomer: false, isSupplier: false, freeText: 'Cecilie' })).toEqual([c.id]);
    expect(await ids({ freeText: 'ALFA.EXAMPLE' })).toEqual([a.id]);
    expect(await ids({ freeText: '974 760' })).toEqual([b.id]);
    expect(await ids({ freeText: 'leverandør' })).toEqual([b.id]);
    // the company itself is a partner too, so there are four; by name by default
    const all = await list(tenant);
    expect(all.meta).toEqual({ page: 1, perPage: 50, pages: 1, records: 4 });
    expect(all.nodes.slice(0, 3).map((n: { id: number }) => n.id)).toEqual([a.id, b.id, c.id]);
    const mine = (list: number[]) => list.filter((id) => [a.id, b.id, c.id].includes(id));
    expect(mine(await ids({ orderBy: ['-name'] }))).toEqual([c.id, b.id, a.id]);
    expect(mine(await ids({ orderBy: ['-created_at'] }))).toEqual([c.id, b.id, a.id]);
    const page2 = await list(tenant, { perPage: 2, page: 2, orderBy: ['id'] });
    expect(page2.meta).toEqual({ page: 2, perPage: 2, pages: 2, records: 4 });
    expect((await list(tenant, { perPage: 1000 })).meta.perPage).toBe(100);
    const badOrder = await app.gql(tenant.user.token, LIST, { clientAccountId: tenant.account.id, orderBy: ['phone'] });
    expect(badOrder.errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
  });

  it('addresses and bankAccounts are relations of the partner', async () => {
    const p = await created({ name: 'Med konto AS', isSupplier: true, addresses: [{ addressType: 'POSTAL', city: 'Tromsø' }] });
    await app.gql(t.user.token, `mutation { createBankAccount(input: { clientAccountId: ${t.account.id}, businessPartnerId: ${p.id}, accountNumber: "1234.56.78903" }) { id } }`);
    const res = await app.gql(t.user.token, `{ businessPartner(id: ${p.id}) { addresses { city } bankAccounts { accountNumber businessPartnerId } } }`);
    expect(res.data.businessPartner).toEqual({ addresses: [{ city: 'Tromsø' }], bankAccounts: [{ accountNumber: '12345678903', businessPartnerId: p.id }] });
  });

  describe('validation (extensions.code common.validation_error)', () => {
    it.each([
      ['name empty', { name: '' }, /name/],
      ['name longer than 250', { name: 'x'.repeat(251) }, /name: must be at most 250/],
      ['organizationNumber with a wrong mod-11 check digit', { organizationNumber: '923609017' }, /organizationNumber: must be a valid 9-digit/],
      ['organizationNumber of 8 digits', { organizationNumber: '92360901' }, /organizationNumber/],
      ['organizationNumber with letters', { organizationNumber: '92360901A' }, /organizationNumber/],
      ['nationalIdNumber with a wrong first check digit', { nationalIdNumber: '01019010056' }, /nationalIdNumber: must be a valid 11-digit/],
      ['nationalIdNumber with a wrong second check digit', { nationalIdNumber: '01019010047' }, /nationalIdNumber/],
      ['nationalIdNumber of 10 digits', { nationalIdNumber: '0101901004' }, /nationalIdNumber/],
      ['email without @', { email: 'post.example.no' }, /email: must be a valid email/],
      ['email without domain dot', { email: 'post@example' }, /email/],
      ['countryCode in lower case', { addresses: [{ addressType: 'POSTAL', countryCode: 'no' }] }, /addresses\.0\.countryCode: must be an ISO 3166-1 alpha-2/],
      ['countryCode of three letters', { addresses: [{ addressType: 'POSTAL', countryCode: 'NOR' }] }, /countryCode/],
      ['countryCode that is not assigned', { addresses: [{ addressType: 'POSTAL', countryCode: 'XX' }] }, /countryCode/],
      ['the same address type twice', { addresses: [{ addressType: 'POSTAL' }, { addressType: 'POSTAL' }] }, /POSTAL is given more than once/],
      ['postalCode longer than 20', { addresses: [{ addressType: 'POSTAL', postalCode: '1'.repeat(21) }] }, /postalCode/],
    ])('createBusinessPartner rejects %s', async (_rule, input, message) => {
      const res = await create({ name: 'Ugyldig AS', ...input });
      expect(res.data).toBeNull();
      expect(res.errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
      expect(res.errors?.[0].message).toMatch(message);
    });

    it.each([
      ['organizationNumber', { organizationNumber: '123456789' }],
      ['nationalIdNumber', { nationalIdNumber: '12345678901' }],
      ['email', { email: 'nope' }],
      ['name', { name: '   ' }],
    ])('updateBusinessPartner rejects an invalid %s', async (_field, input) => {
      const p = await created({ name: 'Gyldig AS' });
      const res = await app.gql(t.user.token, UPDATE, { id: p.id, input });
      expect(res.errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
    });
  });

  describe('tenancy and scopes', () => {
    it("another client account's partner is forbidden (common.forbidden) for read, update and deactivate", async () => {
      const theirs = await created({ name: 'Deres AS' }, other);
      for (const q of [
        `{ businessPartner(id: ${theirs.id}) { id } }`,
        `mutation { updateBusinessPartner(id: ${theirs.id}, input: { name: "Mine" }) { id } }`,
        `mutation { deactivateBusinessPartner(id: ${theirs.id}) { id } }`,
      ]) {
        const res = await app.gql(t.user.token, q);
        expect(res.errors?.[0].extensions, q).toMatchObject({ code: 'common.forbidden' });
      }
      const listed = await app.gql(t.user.token, `{ businessPartners(clientAccountId: ${other.account.id}) { meta { records } } }`);
      expect(listed.errors?.[0].extensions).toMatchObject({ code: 'common.forbidden' });
      const createdThere = await app.gql(t.user.token, CREATE, { input: { clientAccountId: other.account.id, name: 'Inntrenger AS' } });
      expect(createdThere.errors?.[0].extensions).toMatchObject({ code: 'common.forbidden' });
    });

    it('a missing partner is common.not_found (404)', async () => {
      for (const q of [
        `{ businessPartner(id: 99999999) { id } }`,
        `mutation { updateBusinessPartner(id: 99999999, input: { name: "X" }) { id } }`,
        `mutation { deactivateBusinessPartner(id: 99999999) { id } }`,
      ]) {
        const res = await app.gql(t.user.token, q);
        expect(res.errors?.[0].extensions, q).toMatchObject({ code: 'common.not_found' });
      }
    });

    it('a read-only token can query but cannot run mutations (insufficient_scope)', async () => {
      const p = await created({ name: 'Lesbar AS' });
      for (const q of [
        `mutation { createBusinessPartner(input: { clientAccountId: ${t.account.id}, name: "Nei AS" }) { id } }`,
        `mutation { updateBusinessPartner(id: ${p.id}, input: { name: "Nei" }) { id } }`,
        `mutation { deactivateBusinessPartner(id: ${p.id}) { id } }`,
      ]) {
        const res = await app.gql(t.user.readToken, q);
        expect(res.errors?.[0].extensions, q).toMatchObject({ code: 'insufficient_scope' });
      }
      const read = await app.gql(t.user.readToken, `{ businessPartner(id: ${p.id}) { name } }`);
      expect(read.data.businessPartner.name).toBe('Lesbar AS');
    });
  });
});
