import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

const ASSET = 'id clientAccountId name description acquisitionDate isActive createdById';

// Assets are a journal-line dimension type (`asset`); spec 001 documents no REST paths for them, so
// they are GraphQL only: deactivated by updateAsset(isActive: false).
describe.each(targets())('assets GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(() => app?.close());

  const createAsset = (tenant: Tenant, input: Record<string, unknown>) =>
    app.gql(tenant.user.token, `mutation($input: CreateAssetInput!) { createAsset(input: $input) { ${ASSET} } }`, { input: { clientAccountId: tenant.account.id, ...input } });

  it('createAsset, asset, assets (isActive default true, by name, paged) and updateAsset', async () => {
    const van = (await createAsset(t, { name: 'Varebil', description: 'EL 12345', acquisitionDate: '2025-03-01' })).data.createAsset;
    expect(van).toMatchObject({ clientAccountId: t.account.id, name: 'Varebil', description: 'EL 12345', acquisitionDate: '2025-03-01', isActive: true, createdById: t.user.id });
    const press = (await createAsset(t, { name: 'Kaffemaskin' })).data.createAsset;
    expect(press).toMatchObject({ description: null, acquisitionDate: null });
    expect((await app.gql(t.user.token, `{ asset(id: ${van.id}) { name } }`)).data.asset).toEqual({ name: 'Varebil' });
    const sold = await app.gql(t.user.token, `mutation { updateAsset(id: ${van.id}, input: { isActive: false, acquisitionDate: null, description: "" }) { isActive acquisitionDate description name } }`);
    expect(sold.data.updateAsset).toEqual({ isActive: false, acquisitionDate: null, description: null, name: 'Varebil' });
    const ids = async (args: string) => (await app.gql(t.user.token, `{ assets(clientAccountId: ${t.account.id}${args}) { nodes { id } meta { perPage records } } }`)).data.assets;
    expect(await ids('')).toEqual({ nodes: [{ id: press.id }], meta: { perPage: 50, records: 1 } });
    expect((await ids(', isActive: false')).nodes).toEqual([{ id: van.id }]);
    expect((await ids(', isActive: null')).nodes).toEqual([{ id: press.id }, { id: van.id }]);
  });

  it('an empty name, a too long description, a bad date and a changed clientAccountId are errors', async () => {
    expect((await createAsset(t, { name: '' })).errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
    expect((await createAsset(t, { name: 'X', description: 'x'.repeat(1001) })).errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
    expect((await createAsset(t, { name: 'X', acquisitionDate: '2025-02-30' })).errors).toBeDefined();
    const a = (await createAsset(t, { name: 'Fast' })).data.createAsset;
    const moved = await app.gql(t.user.token, `mutation { updateAsset(id: ${a.id}, input: { clientAccountId: ${other.account.id} }) { id } }`);
    expect(moved.errors?.[0].message).toBe('clientAccountId: cannot be changed');
  });

  it("another account's asset or assets are forbidden; a missing asset is not found; a read-only token cannot write", async () => {
    const theirs = (await createAsset(other, { name: 'Deres' })).data.createAsset;
    expect((await app.gql(t.user.token, `{ asset(id: ${theirs.id}) { id } }`)).errors?.[0].extensions).toMatchObject({ code: 'common.forbidden' });
    expect((await app.gql(t.user.token, `{ assets(clientAccountId: ${other.account.id}) { meta { records } } }`)).errors?.[0].extensions).toMatchObject({ code: 'common.forbidden' });
    expect((await app.gql(t.user.token, `{ asset(id: 99999999) { id } }`)).errors?.[0].extensions).toMatchObject({ code: 'common.not_found' });
    const ro = await app.gql(t.user.readToken, `mutation { createAsset(input: { clientAccountId: ${t.account.id}, name: "RO" }) { id } }`);
    expect(ro.errors?.[0].extensions).toMatchObject({ code: 'insufficient_scope' });
  });
});
