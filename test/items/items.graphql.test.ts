import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

const ITEM = `id clientAccountId itemNo name itemType price metadata isActive autonomyLevel effectiveAutonomyLevel
  salesUnit { unEceRec20Code } taxCode { code rate } createdBy { email }`;

// The same rules as REST (spec 001 "Items and units"), through /graphql.
describe.each(targets())('items GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let piece: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    piece = await app.seed.unitId('H87');
  });
  afterAll(() => app?.close());

  const createItem = async (tenant: Tenant, input: Record<string, unknown>) =>
    app.gql(tenant.user.token, `mutation($input: CreateItemInput!) { createItem(input: $input) { ${ITEM} } }`, {
      input: { clientAccountId: tenant.account.id, salesUnitId: piece, taxCodeId: await tenant.taxCode('3'), ...input },
    });

  it('createItem, item, items, updateItem and deactivateItem work over GraphQL with relations', async () => {
    const created = await createItem(t, { itemNo: 'G-1', name: 'Kopp', price: '12.5', metadata: { a: 1 } });
    expect(created.errors).toBeUndefined();
    const item = created.data.createItem;
    expect(item).toMatchObject({
      itemNo: 'G-1', price: '12.500000', metadata: { a: 1 }, isActive: true, autonomyLevel: null,
      effectiveAutonomyLevel: 'NONE', salesUnit: { unEceRec20Code: 'H87' }, taxCode: { code: '3', rate: '25.00' }, createdBy: { email: t.user.email },
    });
    const updated = await app.gql(t.user.token, `mutation { updateItem(id: ${item.id}, input: { name: "Krus", autonomyLevel: FULL }) { name effectiveAutonomyLevel } }`);
    expect(updated.data.updateItem).toEqual({ name: 'Krus', effectiveAutonomyLevel: 'FULL' });
    const page = await app.gql(t.user.token, `{ items(clientAccountId: ${t.account.id}, freeText: "krus") { nodes { id } meta { page pages perPage records } } }`);
    expect(page.data.items).toEqual({ nodes: [{ id: item.id }], meta: { page: 1, pages: 1, perPage: 50, records: 1 } });
    const gone = await app.gql(t.user.token, `mutation { deactivateItem(id: ${item.id}) { isActive } }`);
    expect(gone.data.deactivateItem.isActive).toBe(false);
    const all = await app.gql(t.user.token, `{ items(clientAccountId: ${t.account.id}, isActive: null) { meta { records } } }`);
    expect(all.data.items.meta.records).toBe(1);
  });

  it('validation errors carry extensions.code common.validation_error', async () => {
    const res = await createItem(t, { itemNo: '' });
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
  });

  it("another account's item is forbidden (common.forbidden, 403); a missing one is common.not_found", async () => {
    const theirs = (await createItem(other, { itemNo: 'THEIRS' })).data.createItem;
    const res = await app.gql(t.user.token, `{ item(id: ${theirs.id}) { id } }`);
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'common.forbidden' });
    const missing = await app.gql(t.user.token, `{ item(id: 99999999) { id } }`);
    expect(missing.errors?.[0].extensions).toMatchObject({ code: 'common.not_found' });
  });

  it('a read-only token cannot run mutations (insufficient_scope) but can query', async () => {
    const res = await app.gql(t.user.readToken, `mutation { deactivateItem(id: 1) { id } }`);
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'insufficient_scope' });
    const q = await app.gql(t.user.readToken, `{ items(clientAccountId: ${t.account.id}) { meta { records } } }`);
    expect(q.errors).toBeUndefined();
  });

  it('an order_by the list does not know is a validation error naming it (test/platform/errors.test.ts checks masking)', async () => {
    const res = await app.gql(t.user.token, `{ items(clientAccountId: ${t.account.id}, orderBy: ["nope"]) { meta { records } } }`);
    expect(res.errors?.[0].extensions?.code).toBe('common.validation_error');
    expect(res.errors?.[0].message).toContain('nope');
  });
});
