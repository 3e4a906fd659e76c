import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { postEntry, requireDimension } from '../support/postings.ts';
import type { Tenant } from '../support/seed.ts';

const PROJECT = 'id clientAccountId sequenceNumber name description isActive createdById updatedById clientAccount { id uniqueName displayName }';

// The same rules as REST (spec 001 "Projects"), through /graphql.
describe.each(targets())('projects GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(() => app?.close());

  const createProject = (tenant: Tenant, input: Record<string, unknown>) =>
    app.gql(tenant.user.token, `mutation($input: CreateProjectInput!) { createProject(input: $input) { ${PROJECT} } }`, {
      input: { clientAccountId: tenant.account.id, ...input },
    });

  it('createProject, project, projects, updateProject and deactivateProject work over GraphQL with the client account', async () => {
    const created = await createProject(t, { name: 'Hytte', description: 'Fjellet' });
    expect(created.errors).toBeUndefined();
    const p = created.data.createProject;
    expect(p).toMatchObject({ clientAccountId: t.account.id, sequenceNumber: 1, name: 'Hytte', description: 'Fjellet', isActive: true, createdById: t.user.id, clientAccount: { id: t.account.id } });
    const updated = await app.gql(t.user.token, `mutation { updateProject(id: ${p.id}, input: { name: "Hytte 2" }) { name description } }`);
    expect(updated.data.updateProject).toEqual({ name: 'Hytte 2', description: 'Fjellet' });
    const one = await app.gql(t.user.token, `{ project(id: ${p.id}) { name } }`);
    expect(one.data.project).toEqual({ name: 'Hytte 2' });
    const page = await app.gql(t.user.token, `{ projects(clientAccountId: ${t.account.id}, name: "HYTTE") { nodes { id } meta { page pages perPage records } } }`);
    expect(page.data.projects).toEqual({ nodes: [{ id: p.id }], meta: { page: 1, pages: 1, perPage: 50, records: 1 } });
    const gone = await app.gql(t.user.token, `mutation { deactivateProject(id: ${p.id}) { isActive } }`);
    expect(gone.data.deactivateProject.isActive).toBe(false);
    const all = await app.gql(t.user.token, `{ projects(clientAccountId: ${t.account.id}, isActive: null) { meta { records } } }`);
    expect(all.data.projects.meta.records).toBe(1);
  });

  it('a used name and a missing one are validation errors (common.validation_error)', async () => {
    await createProject(t, { name: 'Samme' });
    const dup = await createProject(t, { name: 'Samme' });
    expect(dup.errors?.[0]).toMatchObject({ message: expect.stringContaining("'Samme' is already used by project"), extensions: { code: 'common.validation_error' } });
    expect((await createProject(t, { name: '' })).errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
  });

  it('deactivateProject with a balance on a mandatory-dimension account is a validation error listing it', async () => {
    const tenant = await app.seed.tenant();
    const p = (await createProject(tenant, { name: 'Saldo' })).data.createProject;
    const [receivables, bank] = [await tenant.ledgerAccount('1500'), await tenant.ledgerAccount('1920')];
    await requireDimension(app.db.prisma, receivables, 'PROJECT');
    await postEntry(app.db.prisma, tenant.account.id, [{ accountId: receivables, debit: '42.00', projectId: p.id }, { accountId: bank, credit: '42.00' }]);
    const res = await app.gql(tenant.user.token, `mutation { deactivateProject(id: ${p.id}) { isActive } }`);
    expect(res.errors?.[0]).toMatchObject({ message: expect.stringContaining(': 1500 42.00'), extensions: { code: 'common.validation_error' } });
  });

  it("another account's project is forbidden (common.forbidden); a missing one is common.not_found", async () => {
    const theirs = (await createProject(other, { name: 'Deres' })).data.createProject;
    expect((await app.gql(t.user.token, `{ project(id: ${theirs.id}) { id } }`)).errors?.[0].extensions).toMatchObject({ code: 'common.forbidden' });
    expect((await app.gql(t.user.token, `{ project(id: 99999999) { id } }`)).errors?.[0].extensions).toMatchObject({ code: 'common.not_found' });
    expect((await app.gql(t.user.token, `{ projects(clientAccountId: ${other.account.id}) { meta { records } } }`)).errors?.[0].extensions).toMatchObject({ code: 'common.forbidden' });
  });

  it('a read-only token cannot run mutations (insufficient_scope) but can query', async () => {
    expect((await app.gql(t.user.readToken, `mutation { deactivateProject(id: 1) { id } }`)).errors?.[0].extensions).toMatchObject({ code: 'insufficient_scope' });
    expect((await app.gql(t.user.readToken, `{ projects(clientAccountId: ${t.account.id}) { meta { records } } }`)).errors).toBeUndefined();
  });
});
