import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/modules/ledger-accounts/ledger-accounts.service.ts';
import type { RequestContext } from '../../src/shared/context.ts';
import { checkReferences, type Reference } from '../../src/shared/references.ts';
import { Issues } from '../../src/shared/validation.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// src/shared/references.ts: "every reference of an input is looked up with ONE query per referenced
// model, however many lines name one" — a 50-line input costs as many statements as a 5-line one.
describe.each(targets())('batched reference checks (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let ctx: RequestContext;
  let accounts: number[];
  let taxCodes: number[];
  let units: number[];
  let partner: number;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    ctx = app.seed.contextOf(t.user);
    accounts = (await app.db.prisma.account.findMany({ where: { clientAccountId: t.account.id }, select: { id: true }, orderBy: { id: 'asc' } })).map((a) => a.id);
    taxCodes = (await app.db.prisma.taxCode.findMany({ where: { clientAccountId: t.account.id }, select: { id: true }, orderBy: { id: 'asc' } })).map((c) => c.id);
    units = (await app.db.prisma.unit.findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map((u) => u.id);
    partner = (await app.db.prisma.businessPartner.findFirstOrThrow({ where: { clientAccountId: t.account.id, isSelf: true } })).id;
  });
  afterAll(() => app?.close());

  /** The references of an n-line voucher-like input: each line names an account, a tax code, a unit, a partner and a currency. */
  const lines = (n: number): Reference[] =>
    Array.from({ length: n }, (_, i) => [
      { path: ['lines', i, 'accountId'], model: 'account' as const, id: accounts[i % accounts.length] },
      { path: ['lines', i, 'taxCodeId'], model: 'taxCode' as const, id: taxCodes[i % taxCodes.length] },
      { path: ['lines', i, 'unitId'], model: 'unit' as const, id: units[i % units.length] },
      { path: ['lines', i, 'businessPartnerId'], model: 'businessPartner' as const, id: partner },
      { path: ['lines', i, 'currencyCode'], model: 'currency' as const, id: i % 2 ? 'NOK' : 'EUR' },
    ]).flat();

  const statementsOf = async (run: () => Promise<unknown>) => {
    app.statements.length = 0;
    await run();
    return app.statements.length;
  };

  it('250 references of 50 lines take one query per model (5), as 25 references of 5 lines do', async () => {
    const issues = new Issues();
    const small = await statementsOf(() => checkReferences(ctx, t.account.id, lines(5), issues));
    const large = await statementsOf(() => checkReferences(ctx, t.account.id, lines(50), issues));
    console.log(`[${target}] reference check: ${large} statements for 250 references (${small} for 25)`);
    expect(issues.list).toEqual([]);
    expect(large).toBe(small);
    expect(large).toBe(5);
  });

  it('every bad reference is reported at its path, in the same queries: missing rows and rows of another client account', async () => {
    const refs = lines(50);
    const theirs = await other.taxCode('3');
    refs[37 * 5 + 1] = { path: ['lines', 37, 'taxCodeId'], model: 'taxCode', id: theirs };
    refs[12 * 5 + 0] = { path: ['lines', 12, 'accountId'], model: 'account', id: 99999999 };
    refs[3 * 5 + 4] = { path: ['lines', 3, 'currencyCode'], model: 'currency', id: 'XYZ' };
    const issues = new Issues();
    expect(await statementsOf(() => checkReferences(ctx, t.account.id, refs, issues))).toBe(5);
    expect(issues.list).toEqual([
      { path: ['lines', '3', 'currencyCode'], message: "currency 'XYZ' does not exist" },
      { path: ['lines', '12', 'accountId'], message: `ledger account 99999999 does not exist in client account ${t.account.id}` },
      { path: ['lines', '37', 'taxCodeId'], message: `tax code ${theirs} does not exist in client account ${t.account.id}` },
    ]);
  });

  it('through a service: createAccount checks a whitelist of 30 tax codes in as many statements as one of 2', async () => {
    const create = (code: string, allowedTaxCodeIds: number[]) => () =>
      createAccount(ctx, { input: { clientAccountId: t.account.id, code, name: `Whitelist ${code}`, accountType: 'EXPENSE', allowedTaxCodeIds } });
    await create('6788', taxCodes.slice(0, 1))(); // the context learns its eligible accounts once (the request's memo)
    const small = await statementsOf(create('6701', taxCodes.slice(0, 2)));
    const large = await statementsOf(create('6702', taxCodes.slice(0, 30)));
    console.log(`[${target}] createAccount: ${large} statements with 30 whitelisted tax codes (${small} with 2)`);
    expect(large).toBe(small);
  });
});
