import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientAccount } from '../../src/modules/client-accounts/client-accounts.service.ts';
import { createItemCollection, createItemCollectionEntry } from '../../src/modules/item-collections/item-collections.service.ts';
import { createItem } from '../../src/modules/items/items.service.ts';
import { createTaxCode } from '../../src/modules/tax-codes/tax-codes.service.ts';
import { afterCommit, inTransaction, type RequestContext } from '../../src/shared/context.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// src/shared/context.ts inTransaction: "runs a block in one transaction with a context bound to it;
// when the context is already bound to one, the block joins it" — so one operation can call others
// and all of it commits or none does.
describe.each(targets())('services in one transaction (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let ctx: RequestContext;
  let piece: number;
  let vat: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
    ctx = app.seed.contextOf(t.user);
    piece = await app.seed.unitId('H87');
    vat = await t.taxCode('3');
  });
  afterAll(() => app?.close());

  const item = (itemNo: string, extra: Record<string, unknown> = {}) => ({
    input: { clientAccountId: t.account.id, itemNo, salesUnitId: piece, taxCodeId: vat, ...extra },
  });

  it('"a multi-step operation that fails halfway leaves nothing written": item and collection roll back with the failing entry', async () => {
    const failed = inTransaction(ctx, async (tx) => {
      const created = await createItem(tx, item('HALFWAY-1'));
      const collection = await createItemCollection(tx, { input: { clientAccountId: t.account.id, collectionType: 'TEMPLATE', name: 'Halfway' } });
      // the third step names a tax code that does not exist
      await createItemCollectionEntry(tx, {
        input: { itemCollectionId: collection.id, itemId: created.id, quantity: '1', price: '100', unitId: piece, taxCodeId: 99999999 },
      });
    });
    await expect(failed).rejects.toMatchObject({
      code: 'common.validation_error',
      issues: [{ path: ['taxCodeId'], message: `tax code 99999999 does not exist in client account ${t.account.id}` }],
    });
    expect(await app.db.prisma.item.count({ where: { clientAccountId: t.account.id, itemNo: 'HALFWAY-1' } })).toBe(0);
    expect(await app.db.prisma.itemCollection.count({ where: { clientAccountId: t.account.id, name: 'Halfway' } })).toBe(0);
  });

  it("an operation joins its caller's transaction: it sees what the caller wrote and rolls back with it", async () => {
    const failed = inTransaction(ctx, async (tx) => {
      const code = await createTaxCode(tx, { input: { clientAccountId: t.account.id, code: 'JOIN-1', standardTaxCode: '3', direction: 'OUTPUT', name: 'Joined' } });
      // createItem checks its tax code through the same transaction: the uncommitted code exists for it
      const joined = await createItem(tx, item('JOIN-1', { taxCodeId: code.id }));
      expect(joined.taxCodeId).toBe(code.id);
      // a nested block runs on the caller's transaction client, not a transaction of its own
      await inTransaction(tx, async (inner) => expect(inner.db).toBe(tx.db));
      throw new Error('the caller fails after both');
    });
    await expect(failed).rejects.toThrow('the caller fails after both');
    expect(await app.db.prisma.taxCode.count({ where: { clientAccountId: t.account.id, code: 'JOIN-1' } })).toBe(0);
    expect(await app.db.prisma.item.count({ where: { clientAccountId: t.account.id, itemNo: 'JOIN-1' } })).toBe(0);

    // the same block without the failure commits both
    await inTransaction(ctx, async (tx) => {
      const code = await createTaxCode(tx, { input: { clientAccountId: t.account.id, code: 'JOIN-2', standardTaxCode: '3', direction: 'OUTPUT', name: 'Joined' } });
      await createItem(tx, item('JOIN-2', { taxCodeId: code.id }));
    });
    const stored = await app.db.prisma.item.findFirstOrThrow({ where: { clientAccountId: t.account.id, itemNo: 'JOIN-2' }, include: { taxCode: true } });
    expect(stored.taxCode.code).toBe('JOIN-2');
  });

  it("the request's eligible accounts stay right inside a transaction: an account created in it can be written to in it", async () => {
    const user = await app.seed.user();
    const request = app.seed.contextOf(user);
    expect([...(await request.eligibleAccounts())]).toEqual([]); // memoised before the transaction

    const created = await inTransaction(request, async (tx) => {
      const account = await createClientAccount(tx, { input: { displayName: 'Opprettet i transaksjon AS' } });
      const taxCodeId = (await tx.db.taxCode.findFirstOrThrow({ where: { clientAccountId: account.id, code: '3' } })).id;
      // the caller became CA inside this transaction: tenancy is read through it
      await createItem(tx, { input: { clientAccountId: account.id, itemNo: 'NEW-1', salesUnitId: piece, taxCodeId } });
      return account;
    });
    expect([...(await request.eligibleAccounts())]).toEqual([created.id]);

    let rolledBackId = 0;
    const failed = inTransaction(request, async (tx) => {
      rolledBackId = (await createClientAccount(tx, { input: { displayName: 'Rullet tilbake AS' } })).id;
      throw new Error('rollback');
    });
    await expect(failed).rejects.toThrow('rollback');
    expect(await app.db.prisma.clientAccount.count({ where: { id: rolledBackId } })).toBe(0);
    expect([...(await request.eligibleAccounts())]).toEqual([created.id]);
  });
  it('afterCommit runs once the outermost transaction commits, with the context outside it; a run that lost a race forgets its registrations; a rollback runs nothing', async () => {
    const ran: string[] = [];
    let attempts = 0;
    const result = await inTransaction(ctx, async (tx) => {
      attempts++;
      await afterCommit(tx, (outside) => void ran.push(`attempt ${attempts}, in a transaction: ${outside.db !== tx.db && '$transaction' in outside.db}`));
      await inTransaction(tx, async (inner) => afterCommit(inner, () => void ran.push(`nested, attempt ${attempts}`)));
      expect(ran).toEqual([]); // nothing before the commit
      // the first run "loses a race" (a unique violation): inTransaction runs the block again
      if (attempts === 1) throw Object.assign(new Error('unique'), { code: 'P2002' });
      return 'done';
    });
    expect(result).toBe('done');
    expect(ran).toEqual(['attempt 2, in a transaction: true', 'nested, attempt 2']);

    ran.length = 0;
    await expect(inTransaction(ctx, async (tx) => {
      await afterCommit(tx, () => void ran.push('never'));
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    expect(ran).toEqual([]);

    // outside a transaction it runs at once; a failure is logged, not thrown
    await afterCommit(ctx, () => void ran.push('at once'));
    await expect(afterCommit(ctx, () => { throw new Error('listener down'); })).resolves.toBeUndefined();
    expect(ran).toEqual(['at once']);
  });
});
