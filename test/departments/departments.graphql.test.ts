import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { postEntry, requireDimension } from '../support/postings.ts';
import type { Tenant } from '../support/seed.ts';

const DEPARTMENT = 'id clientAccountId sequenceNumber name isActive autonomyLevel createdById clientAccount { id uniqueName displayName }';

// The same rules as REST (spec 001 "Departments"), through /graphql.
describe.each(targets())('departments GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(() => app?.close());

  const createDepartment = (tenant: Tenant, input: Record<string, unknown>) =>
    app.gql(tenant.user.token, `mutation($input: CreateDepartmentInput!) { createDepartment(input: $input) { ${DEPARTMENT} } }`, {
      input: { clientAccountId: tenant.account.id, ...input },
    });

  it('createDepartment, department, departments, updateDepartment and deactivateDepartment work over GraphQL', async () => {
    const created = await createDepartment(t, { name: 'Drift', autonomyLevel: 'DRAFT' });
    expect(created.errors).toBeUndefined();
    const d = created.data.createDepartment;
    expect(d).toMatchObject({ sequenceNumber: 1, name: 'Drift', isActive: true, autonomyLevel: 'DRAFT', createdById: t.user.id, clientAccount: { id: t.account.id } });
    const updated = await app.gql(t.user.token, `mutation { updateDepartment(id: ${d.id}, input: { autonomyLevel: FULL, isActive: false }) { autonomyLevel isActive } }`);
    expect(updated.data.updateDepartment).toEqual({ autonomyLevel: 'FULL', isActive: false });
    const back = await app.gql(t.user.token, `mutation { updateDepartment(id: ${d.id}, input: { isActive: true }) { isActive } }`);
    expect(back.data.updateDepartment.isActive).toBe(true);
    expect((await app.gql(t.user.token, `{ department(id: ${d.id}) { name } }`)).data.department).toEqual({ name: 'Drift' });
    const page = await app.gql(t.user.token, `{ departments(clientAccountId: ${t.account.id}) { nodes { id } meta { page pages perPage records } } }`);
    expect(page.data.departments).toEqual({ nodes: [{ id: d.id }], meta: { page: 1, pages: 1, perPage: 50, records: 1 } });
    expect((await app.gql(t.user.token, `mutation { deactivateDepartment(id: ${d.id}) { isActive } }`)).data.deactivateDepartment.isActive).toBe(false);
    expect((await app.gql(t.user.token, `{ departments(clientAccountId: ${t.account.id}, isActive: null) { meta { records } } }`)).data.departments.meta.records).toBe(1);
  });

  it('updateDepartment isActive false with a balance is a validation error listing the account', async () => {
    const tenant = await app.seed.tenant();
    const d = (await createDepartment(tenant, { name: 'Saldo' })).data.createDepartment;
    const [sales, bank] = [await tenant.ledgerAccount('3000'), await tenant.ledgerAccount('1920')];
    await requireDimension(app.db.prisma, sales, 'DEPARTMENT');
    await postEntry(app.db.prisma, tenant.account.id, [{ accountId: bank, debit: '10.00' }, { accountId: sales, credit: '10.00', departmentId: d.id }]);
    const res = await app.gql(tenant.user.token, `mutation { updateDepartment(id: ${d.id}, input: { isActive: false }) { isActive } }`);
    expect(res.errors?.[0]).toMatchObject({ message: expect.stringContaining(': 3000 -10.00'), extensions: { code: 'common.validation_error' } });
  });

  it('a changed clientAccountId and an empty name are validation errors', async () => {
    const d = (await createDepartment(t, { name: 'Immutable' })).data.createDepartment;
    const moved = await app.gql(t.user.token, `mutation { updateDepartment(id: ${d.id}, input: { clientAccountId: ${other.account.id} }) { id } }`);
    expect(moved.errors?.[0]).toMatchObject({ message: 'clientAccountId: cannot be changed', extensions: { code: 'common.validation_error' } });
    expect((await createDepartment(t, { name: '' })).errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
  });

  it("another account's department is forbidden (common.forbidden); a missing one is common.not_found", async () => {
    const theirs = (await createDepartment(other, { name: 'Deres' })).data.createDepartment;
    expect((await app.gql(t.user.token, `{ department(id: ${theirs.id}) { id } }`)).errors?.[0].extensions).toMatchObject({ code: 'common.forbidden' });
    expect((await app.gql(t.user.token, `{ department(id: 99999999) { id } }`)).errors?.[0].extensions).toMatchObject({ code: 'common.not_found' });
  });

  it('a read-only token cannot run mutations (insufficient_scope) but can query', async () => {
    expect((await app.gql(t.user.readToken, `mutation { deactivateDepartment(id: 1) { id } }`)).errors?.[0].extensions).toMatchObject({ code: 'insufficient_scope' });
    expect((await app.gql(t.user.readToken, `{ departments(clientAccountId: ${t.account.id}) { meta { records } } }`)).errors).toBeUndefined();
  });
});
