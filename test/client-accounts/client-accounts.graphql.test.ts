import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHART_OF_ACCOUNTS } from '../../src/reference-data/index.ts';
import { startTestApp, targets, type TestApp, errorCode } from '../support/harness.ts';
import type { TestUser } from '../support/seed.ts';

const code = errorCode;
const ids = (rows: { id: number }[]) => rows.map((r) => r.id).sort((a, b) => a - b);

/** A random valid organization number (mod-11); unique enough for one test run. */
function orgNumber(): string {
  const weights = [3, 2, 7, 6, 5, 4, 3, 2];
  for (;;) {
    const base = Array.from({ length: 8 }, (_, i) => (i === 0 ? 8 + Math.floor(Math.random() * 2) : Math.floor(Math.random() * 10))).join('');
    const check = 11 - (weights.reduce((sum, w, i) => sum + w * Number(base[i]), 0) % 11);
    if (check === 10) continue;
    return base + (check === 11 ? 0 : check);
  }
}

const CA_FIELDS = `id displayName uniqueName organizationNumber industryCode isProvider vatLiable accountingCurrency lockDate defaultAutonomyLevel`;
const CREATE = `mutation($input: CreateClientAccountInput!) { createClientAccount(input: $input) {
  ${CA_FIELDS} memberships { role user { email } } providers { id } } }`;
const UPDATE = `mutation($id: Int!, $input: UpdateClientAccountInput!) { updateClientAccount(id: $id, input: $input) { ${CA_FIELDS} } }`;
const GRANT = `mutation($input: RoleAssignmentInput!) { grantRole(input: $input) { id clientAccountId role roleId user { email } } }`;
const REVOKE = `mutation($input: RoleAssignmentInput!) { revokeRole(input: $input) }`;
const LINK = `mutation($input: ProviderLinkInput!) { linkProvider(input: $input) { id providers { id } } }`;
const UNLINK = `mutation($input: ProviderLinkInput!) { unlinkProvider(input: $input) }`;

describe.each(targets())('client accounts GraphQL (%s)', (target) => {
  let app: TestApp;
  /** an accounting firm (69.201) serving `client` */
  let firm: { id: number; displayName: string };
  let client: { id: number; displayName: string };
  const staff: Record<'AA' | 'BK' | 'EM' | 'CA', TestUser> = {} as never;
  let clientOwner: TestUser;

  beforeAll(async () => {
    app = await startTestApp(target);
    firm = await app.seed.clientAccount({ industryCode: '69.201', name: 'Fjordbyrå Regnskap AS' });
    client = await app.seed.clientAccount({ name: 'Nordlys Kaffe AS' });
    await app.seed.linkProvider(firm.id, client.id);
    for (const role of ['AA', 'BK', 'EM', 'CA'] as const) {
      staff[role] = await app.seed.user();
      await app.seed.grantRole({ userId: staff[role].id, clientAccountId: firm.id, role });
    }
    clientOwner = await app.seed.user();
    await app.seed.grantRole({ userId: clientOwner.id, clientAccountId: client.id, role: 'CA' });
  });
  afterAll(() => app?.close());

  /** a client account with a CA user, optionally served by `firm` */
  const ownAccount = async (opts: { served?: boolean; industryCode?: string } = {}) => {
    const account = await app.seed.clientAccount({ industryCode: opts.industryCode });
    const owner = await app.seed.user();
    await app.seed.grantRole({ userId: owner.id, clientAccountId: account.id, role: 'CA' });
    if (opts.served) await app.seed.linkProvider(firm.id, account.id);
    return { account, owner };
  };

  const eligibleViaMe = async (user: TestUser) => {
    const res = await app.gql(user.readToken, `{ me { clientAccounts { id } } }`);
    expect(res.errors).toBeUndefined();
    return ids(res.data.me.clientAccounts);
  };
  const eligibleViaList = async (user: TestUser, args = '') => {
    const res = await app.gql(user.readToken, `{ clientAccounts(perPage: 100${args}) { nodes { id } meta { records } } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data.clientAccounts.meta.records).toBe(res.data.clientAccounts.nodes.length);
    return ids(res.data.clientAccounts.nodes);
  };

  describe('eligible accounts: "any role on the account, plus accounts served by a provider where the user holds AA or BK"', () => {
    it.each(['AA', 'BK'] as const)('"%s on a provider sees the accounts it serves" in me { clientAccounts } and clientAccounts', async (role) => {
      expect(await eligibleViaMe(staff[role])).toEqual(ids([firm, client]));
      expect(await eligibleViaList(staff[role])).toEqual(ids([firm, client]));
      const res = await app.gql(staff[role].token, `{ clientAccount(id: ${client.id}) { id displayName } }`);
      expect(res.data.clientAccount).toEqual({ id: client.id, displayName: client.displayName });
    });

    it.each(['EM', 'CA'] as const)('"%s on a provider sees only the provider, not the accounts it serves"', async (role) => {
      expect(await eligibleViaMe(staff[role])).toEqual([firm.id]);
      expect(await eligibleViaList(staff[role])).toEqual([firm.id]);
      expect(code(await app.gql(staff[role].token, `{ clientAccount(id: ${client.id}) { id } }`))).toBe('common.forbidden');
      expect(code(await app.gql(staff[role].token, `{ accounts(clientAccountId: ${client.id}) { meta { records } } }`))).toBe('common.forbidden');
    });

    it('"CA on a served account sees that account only, not its provider"', async () => {
      expect(await eligibleViaMe(clientOwner)).toEqual([client.id]);
      expect(await eligibleViaList(clientOwner)).toEqual([client.id]);
      expect(code(await app.gql(clientOwner.token, `{ clientAccount(id: ${firm.id}) { id } }`))).toBe('common.forbidden');
    });

    it('"providers and servedAccounts list only accounts the caller is eligible for"', async () => {
      const q = `{ a: clientAccount(id: ${client.id}) { providers { id } servedAccounts { id } } }`;
      expect((await app.gql(staff.AA.token, q)).data.a).toEqual({ providers: [{ id: firm.id }], servedAccounts: [] });
      expect((await app.gql(clientOwner.token, q)).data.a).toEqual({ providers: [], servedAccounts: [] });
      const f = await app.gql(staff.AA.token, `{ clientAccount(id: ${firm.id}) { isProvider servedAccounts { id } } }`);
      expect(f.data.clientAccount.isProvider).toBe(true);
      expect(ids(f.data.clientAccount.servedAccounts)).toContain(client.id);
      const em = await app.gql(staff.EM.token, `{ clientAccount(id: ${firm.id}) { servedAccounts { id } } }`);
      expect(em.data.clientAccount.servedAccounts).toEqual([]);
    });

    it('"memberships are visible to anyone eligible for the account"', async () => {
      const res = await app.gql(staff.EM.token, `{ clientAccount(id: ${firm.id}) { memberships { role roleId user { email } } } }`);
      expect(res.errors).toBeUndefined();
      expect(res.data.clientAccount.memberships.map((m: { role: string; user: { email: string } }) => `${m.role} ${m.user.email}`).sort()).toEqual(
        (['AA', 'BK', 'CA', 'EM'] as const).map((r) => `${r} ${staff[r].email}`).sort(),
      );
    });

    it('"clientAccounts filters by isProvider and freeText (name, unique name, organization number)"', async () => {
      expect(await eligibleViaList(staff.AA, ', isProvider: true')).toEqual([firm.id]);
      expect(await eligibleViaList(staff.AA, ', isProvider: false')).toEqual([client.id]);
      expect(await eligibleViaList(staff.AA, ', freeText: "nordlys"')).toEqual([client.id]);
      expect(await eligibleViaList(staff.AA, ', freeText: "FJORDBYRA"')).toEqual([firm.id]);
      const page = await app.gql(staff.AA.token, `{ clientAccounts(perPage: 1, page: 2) { nodes { id } meta { page pages perPage records } } }`);
      expect(page.data.clientAccounts.meta).toEqual({ page: 2, pages: 2, perPage: 1, records: 2 });
    });
  });

  describe('createClientAccount', () => {
    it('"any authenticated user with write may create one; the creator becomes CA"; it gets the default chart and the 30 standard tax codes', async () => {
      const user = await app.seed.user();
      const org = orgNumber();
      const res = await app.gql(user.token, CREATE, {
        input: { displayName: 'Ny Bedrift AS', organizationNumber: `${org.slice(0, 3)} ${org.slice(3, 6)} ${org.slice(6)}`, industryCode: '62.010', vatLiable: true, accountingCurrency: 'eur' },
      });
      expect(res.errors).toBeUndefined();
      const made = res.data.createClientAccount;
      expect(made).toMatchObject({
        displayName: 'Ny Bedrift AS',
        organizationNumber: org,
        industryCode: '62.010',
        isProvider: false,
        vatLiable: true,
        accountingCurrency: 'EUR',
        lockDate: null,
        defaultAutonomyLevel: 'NONE',
        memberships: [{ role: 'CA', user: { email: user.email } }],
        providers: [],
      });
      expect(made.uniqueName).toMatch(/^ny-bedrift-as(-\d+)?$/);
      const chart = await app.gql(user.token, `{ accounts(clientAccountId: ${made.id}) { meta { records } } taxCodes(clientAccountId: ${made.id}) { nodes { code } } }`);
      expect(chart.data.accounts.meta.records).toBe(DEFAULT_CHART_OF_ACCOUNTS.length);
      expect(chart.data.taxCodes.nodes).toHaveLength(30);
      expect(await eligibleViaMe(user)).toEqual([made.id]);
    });

    it.each(['AA', 'BK'] as const)('"with providerAccountId the caller must hold AA or BK on it, and the new account is linked": %s', async (role) => {
      const res = await app.gql(staff[role].token, CREATE, { input: { displayName: `Klient via ${role}`, providerAccountId: firm.id } });
      expect(res.errors).toBeUndefined();
      expect(res.data.createClientAccount).toMatchObject({ providers: [{ id: firm.id }], memberships: [{ role: 'CA', user: { email: staff[role].email } }] });
      const f = await app.gql(staff.AA.token, `{ clientAccount(id: ${firm.id}) { servedAccounts { id } } }`);
      expect(ids(f.data.clientAccount.servedAccounts)).toContain(res.data.createClientAccount.id);
    });

    it.each(['EM', 'CA'] as const)('"with providerAccountId the caller must hold AA or BK on it": %s is forbidden', async (role) => {
      const res = await app.gql(staff[role].token, CREATE, { input: { displayName: `Klient via ${role}`, providerAccountId: firm.id } });
      expect(code(res)).toBe('common.forbidden');
      const none = await app.gql(staff[role].token, `{ clientAccounts(freeText: "Klient via ${role}") { meta { records } } }`);
      expect(none.data.clientAccounts.meta.records).toBe(0);
    });

    it.each([
      ['"organization number mod-11"', { organizationNumber: '923609017' }, 'common.validation_error'],
      ['"organization number is 9 digits"', { organizationNumber: '12345' }, 'common.validation_error'],
      ['"industry code is SN2007"', { industryCode: '6920' }, 'common.validation_error'],
      ['"accounting currency is a known ISO 4217 code"', { accountingCurrency: 'XYZ' }, 'common.validation_error'],
      ['"unique name is lower-case letters, digits and -"', { uniqueName: 'Not OK!' }, 'common.validation_error'],
      ['"display name is 1 to 250 characters"', { displayName: '' }, 'common.validation_error'],
    ])('%s (400)', async (_rule, input, errorCode) => {
      const user = await app.seed.user();
      const res = await app.gql(user.token, CREATE, { input: { displayName: 'Feil AS', ...input } });
      expect(code(res)).toBe(errorCode);
    });

    it('"organization numbers are unique" (409 common.conflict)', async () => {
      const user = await app.seed.user();
      const org = orgNumber();
      expect((await app.gql(user.token, CREATE, { input: { displayName: 'First AS', organizationNumber: org } })).errors).toBeUndefined();
      expect(code(await app.gql(user.token, CREATE, { input: { displayName: 'Second AS', organizationNumber: org } }))).toBe('common.conflict');
    });

    it('a read-only token cannot create client accounts (insufficient_scope)', async () => {
      const user = await app.seed.user();
      expect(code(await app.gql(user.readToken, CREATE, { input: { displayName: 'Nope AS' } }))).toBe('insufficient_scope');
    });
  });

  describe('updateClientAccount: "managers only (CA/AA/BK on it, or AA/BK of a provider serving it)"', () => {
    it('CA changes the settings; "lockDate may move forward or back" and null clears it', async () => {
      const { account, owner } = await ownAccount();
      const org = orgNumber();
      const res = await app.gql(owner.token, UPDATE, {
        id: account.id,
        input: { displayName: 'Omdøpt AS', organizationNumber: org, industryCode: '47.291', vatLiable: true, lockDate: '2025-06-30', defaultAutonomyLevel: 'DRAFT' },
      });
      expect(res.errors).toBeUndefined();
      expect(res.data.updateClientAccount).toMatchObject({ displayName: 'Omdøpt AS', organizationNumber: org, industryCode: '47.291', vatLiable: true, lockDate: '2025-06-30', defaultAutonomyLevel: 'DRAFT' });
      const back = await app.gql(owner.token, UPDATE, { id: account.id, input: { lockDate: '2024-12-31' } });
      expect(back.data.updateClientAccount).toMatchObject({ lockDate: '2024-12-31', displayName: 'Omdøpt AS' });
      const cleared = await app.gql(owner.token, UPDATE, { id: account.id, input: { lockDate: null, organizationNumber: null } });
      expect(cleared.data.updateClientAccount).toMatchObject({ lockDate: null, organizationNumber: null });
    });

    it('the company itself (the isSelf business partner) follows a new name and organization number', async () => {
      const { account, owner } = await ownAccount();
      const org = orgNumber();
      await app.gql(owner.token, UPDATE, { id: account.id, input: { displayName: 'Nytt Navn AS', organizationNumber: org } });
      const self = await app.db.prisma.businessPartner.findFirstOrThrow({ where: { clientAccountId: account.id, isSelf: true } });
      expect(self).toMatchObject({ name: 'Nytt Navn AS', organizationNumber: org });
    });

    it.each(['AA', 'BK'] as const)('"%s of a provider serving it" may update it', async (role) => {
      const { account } = await ownAccount({ served: true });
      const res = await app.gql(staff[role].token, UPDATE, { id: account.id, input: { vatLiable: true } });
      expect(res.errors).toBeUndefined();
      expect(res.data.updateClientAccount.vatLiable).toBe(true);
    });

    it('"EM is not a manager" (common.forbidden); another tenant is forbidden; read-only token gets insufficient_scope', async () => {
      const { account, owner } = await ownAccount();
      const employee = await app.seed.user();
      await app.seed.grantRole({ userId: employee.id, clientAccountId: account.id, role: 'EM' });
      expect(code(await app.gql(employee.token, UPDATE, { id: account.id, input: { displayName: 'X' } }))).toBe('common.forbidden');
      expect(code(await app.gql(clientOwner.token, UPDATE, { id: account.id, input: { displayName: 'X' } }))).toBe('common.forbidden');
      expect(code(await app.gql(staff.EM.token, UPDATE, { id: firm.id, input: { displayName: 'X' } }))).toBe('common.forbidden');
      expect(code(await app.gql(owner.readToken, UPDATE, { id: account.id, input: { displayName: 'X' } }))).toBe('insufficient_scope');
    });

    it('"an industry code change that would make an account with AA/BK memberships a non-provider" is refused (400)', async () => {
      const { account: provider, owner } = await ownAccount({ industryCode: '69.202' });
      const accountant = await app.seed.user();
      await app.seed.grantRole({ userId: accountant.id, clientAccountId: provider.id, role: 'AA' });
      const res = await app.gql(owner.token, UPDATE, { id: provider.id, input: { industryCode: '47.291' } });
      expect(code(res)).toBe('common.validation_error');
      expect(res.errors?.[0].message).toMatch(/industryCode: .*AA\/BK memberships/);
      expect(code(await app.gql(owner.token, UPDATE, { id: provider.id, input: { industryCode: null } }))).toBe('common.validation_error');
      const stillProvider = await app.gql(owner.token, UPDATE, { id: provider.id, input: { industryCode: '69.209' } });
      expect(stillProvider.data.updateClientAccount).toMatchObject({ industryCode: '69.209', isProvider: true });
    });

    it('"a provider that serves accounts stays a provider" (400); one with no staff and no clients may change', async () => {
      const { account: provider, owner } = await ownAccount({ industryCode: '69.203' });
      const { account: served } = await ownAccount();
      await app.seed.linkProvider(provider.id, served.id);
      expect(code(await app.gql(owner.token, UPDATE, { id: provider.id, input: { industryCode: '47.291' } }))).toBe('common.validation_error');
      const { account: lone, owner: loneOwner } = await ownAccount({ industryCode: '69.203' });
      const res = await app.gql(loneOwner.token, UPDATE, { id: lone.id, input: { industryCode: '47.291' } });
      expect(res.data.updateClientAccount).toMatchObject({ industryCode: '47.291', isProvider: false });
    });

    it.each([
      [{ organizationNumber: '923609017' }],
      [{ industryCode: 'x' }],
      [{ displayName: null }],
      [{ vatLiable: null }],
    ])('invalid settings are refused (400): %j', async (input) => {
      const { account, owner } = await ownAccount();
      expect(code(await app.gql(owner.token, UPDATE, { id: account.id, input }))).toBe('common.validation_error');
    });
  });

  describe('grantRole / revokeRole: "managers only"', () => {
    it('a CA grants and revokes a role by email; the grantee then sees the account', async () => {
      const { account, owner } = await ownAccount();
      const newcomer = await app.seed.user();
      const res = await app.gql(owner.token, GRANT, { input: { email: newcomer.email.toUpperCase(), clientAccountId: account.id, role: 'EM' } });
      expect(res.errors).toBeUndefined();
      expect(res.data.grantRole).toMatchObject({ clientAccountId: account.id, role: 'EM', roleId: 5, user: { email: newcomer.email } });
      expect(await eligibleViaMe(newcomer)).toEqual([account.id]);
      const again = await app.gql(owner.token, GRANT, { input: { email: newcomer.email, clientAccountId: account.id, role: 'EM' } });
      expect(again.data.grantRole.id).toBe(res.data.grantRole.id);
      expect((await app.gql(owner.token, REVOKE, { input: { email: newcomer.email, clientAccountId: account.id, role: 'EM' } })).data.revokeRole).toBe(true);
      expect(await eligibleViaMe(newcomer)).toEqual([]);
    });

    it.each(['AA', 'BK'] as const)('"%s only on provider accounts" (400)', async (role) => {
      const { account, owner } = await ownAccount();
      const res = await app.gql(owner.token, GRANT, { input: { email: (await app.seed.user()).email, clientAccountId: account.id, role } });
      expect(code(res)).toBe('common.validation_error');
      const onProvider = await app.gql(staff.CA.token, GRANT, { input: { email: (await app.seed.user()).email, clientAccountId: firm.id, role } });
      expect(onProvider.errors).toBeUndefined();
    });

    it('"AA of a provider serving the account manages its memberships"', async () => {
      const { account } = await ownAccount({ served: true });
      const res = await app.gql(staff.AA.token, GRANT, { input: { email: (await app.seed.user()).email, clientAccountId: account.id, role: 'CA' } });
      expect(res.errors).toBeUndefined();
    });

    it('"revoking the last CA of an account that has no serving provider" is refused (400); with a second CA it is allowed', async () => {
      const { account, owner } = await ownAccount();
      const last = await app.gql(owner.token, REVOKE, { input: { email: owner.email, clientAccountId: account.id, role: 'CA' } });
      expect(code(last)).toBe('common.validation_error');
      expect(last.errors?.[0].message).toMatch(/without anyone able to manage it/);
      expect(await eligibleViaMe(owner)).toEqual([account.id]);
      const second = await app.seed.user();
      await app.gql(owner.token, GRANT, { input: { email: second.email, clientAccountId: account.id, role: 'CA' } });
      expect((await app.gql(owner.token, REVOKE, { input: { email: owner.email, clientAccountId: account.id, role: 'CA' } })).data.revokeRole).toBe(true);
    });

    it('"the last CA may go when a provider with AA/BK staff serves the account"', async () => {
      const { account, owner } = await ownAccount({ served: true });
      const res = await app.gql(owner.token, REVOKE, { input: { email: owner.email, clientAccountId: account.id, role: 'CA' } });
      expect(res.data?.revokeRole).toBe(true);
      expect(await eligibleViaMe(owner)).toEqual([]);
      const stillManaged = await app.gql(staff.BK.token, UPDATE, { id: account.id, input: { displayName: 'Managed by the firm' } });
      expect(stillManaged.errors).toBeUndefined();
    });

    it('"EM is not a manager" (forbidden); unknown email and a role not held are common.not_found; other tenant forbidden; read-only insufficient_scope', async () => {
      const { account, owner } = await ownAccount();
      const employee = await app.seed.user();
      await app.seed.grantRole({ userId: employee.id, clientAccountId: account.id, role: 'EM' });
      expect(code(await app.gql(employee.token, GRANT, { input: { email: employee.email, clientAccountId: account.id, role: 'CA' } }))).toBe('common.forbidden');
      expect(code(await app.gql(employee.token, REVOKE, { input: { email: owner.email, clientAccountId: account.id, role: 'CA' } }))).toBe('common.forbidden');
      expect(code(await app.gql(owner.token, GRANT, { input: { email: 'nobody@test.example', clientAccountId: account.id, role: 'EM' } }))).toBe('common.not_found');
      expect(code(await app.gql(owner.token, REVOKE, { input: { email: employee.email, clientAccountId: account.id, role: 'CA' } }))).toBe('common.not_found');
      expect(code(await app.gql(owner.token, GRANT, { input: { email: owner.email, clientAccountId: client.id, role: 'EM' } }))).toBe('common.forbidden');
      expect(code(await app.gql(owner.readToken, GRANT, { input: { email: employee.email, clientAccountId: account.id, role: 'CA' } }))).toBe('insufficient_scope');
      expect(code(await app.gql(owner.readToken, REVOKE, { input: { email: employee.email, clientAccountId: account.id, role: 'EM' } }))).toBe('insufficient_scope');
    });
  });

  describe('linkProvider / unlinkProvider: "the caller manages the client account AND holds AA or BK on the provider"', () => {
    it('a CA of the client who is AA on the provider links and unlinks it', async () => {
      const { account, owner } = await ownAccount();
      await app.seed.grantRole({ userId: owner.id, clientAccountId: firm.id, role: 'AA' });
      const res = await app.gql(owner.token, LINK, { input: { providerAccountId: firm.id, clientAccountId: account.id } });
      expect(res.errors).toBeUndefined();
      expect(res.data.linkProvider).toEqual({ id: account.id, providers: [{ id: firm.id }] });
      expect(await eligibleViaList(staff.BK)).toContain(account.id);
      expect((await app.gql(owner.token, UNLINK, { input: { providerAccountId: firm.id, clientAccountId: account.id } })).data.unlinkProvider).toBe(true);
      expect(await eligibleViaList(staff.BK)).not.toContain(account.id);
    });

    it('a CA of the client without AA/BK on the provider is forbidden', async () => {
      const { account, owner } = await ownAccount();
      expect(code(await app.gql(owner.token, LINK, { input: { providerAccountId: firm.id, clientAccountId: account.id } }))).toBe('common.forbidden');
      const served = await ownAccount({ served: true });
      expect(code(await app.gql(served.owner.token, UNLINK, { input: { providerAccountId: firm.id, clientAccountId: served.account.id } }))).toBe('common.forbidden');
    });

    it('AA on the provider who does not manage the client is forbidden', async () => {
      const { account } = await ownAccount();
      expect(code(await app.gql(staff.AA.token, LINK, { input: { providerAccountId: firm.id, clientAccountId: account.id } }))).toBe('common.forbidden');
    });

    it('"an account cannot serve itself" (400)', async () => {
      const res = await app.gql(staff.AA.token, LINK, { input: { providerAccountId: firm.id, clientAccountId: firm.id } });
      expect(code(res)).toBe('common.validation_error');
    });

    it('"unlinking may not leave the client without anyone able to manage it" (400); an unknown link is common.not_found', async () => {
      const { account, owner } = await ownAccount({ served: true });
      expect((await app.gql(owner.token, REVOKE, { input: { email: owner.email, clientAccountId: account.id, role: 'CA' } })).data.revokeRole).toBe(true);
      const res = await app.gql(staff.AA.token, UNLINK, { input: { providerAccountId: firm.id, clientAccountId: account.id } });
      expect(code(res)).toBe('common.validation_error');
      expect(await eligibleViaList(staff.AA)).toContain(account.id);
      const other = await ownAccount();
      await app.seed.grantRole({ userId: other.owner.id, clientAccountId: firm.id, role: 'BK' });
      expect(code(await app.gql(other.owner.token, UNLINK, { input: { providerAccountId: firm.id, clientAccountId: other.account.id } }))).toBe('common.not_found');
    });

    it('a read-only token cannot link or unlink (insufficient_scope)', async () => {
      const input = { providerAccountId: firm.id, clientAccountId: client.id };
      expect(code(await app.gql(staff.AA.readToken, LINK, { input }))).toBe('insufficient_scope');
      expect(code(await app.gql(staff.AA.readToken, UNLINK, { input }))).toBe('insufficient_scope');
    });
  });
});
