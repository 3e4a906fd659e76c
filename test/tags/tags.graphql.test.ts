import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

const TAG = 'id clientAccountId name isActive createdById updatedById';

// Tags are a journal-line dimension type (`tag`); spec 001 documents no REST paths for them, so
// they are GraphQL only: names unique per client account, deactivated by updateTag(isActive: false).
describe.each(targets())('tags GraphQL (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(() => app?.close());

  const createTag = (tenant: Tenant, input: Record<string, unknown>) =>
    app.gql(tenant.user.token, `mutation($input: CreateTagInput!) { createTag(input: $input) { ${TAG} } }`, { input: { clientAccountId: tenant.account.id, ...input } });

  it('createTag, tag, tags (isActive default true, by name, paged) and updateTag', async () => {
    const b = (await createTag(t, { name: 'Bravo' })).data.createTag;
    const a = (await createTag(t, { name: 'Alpha' })).data.createTag;
    expect(a).toMatchObject({ clientAccountId: t.account.id, name: 'Alpha', isActive: true, createdById: t.user.id });
    expect((await app.gql(t.user.token, `{ tag(id: ${a.id}) { name } }`)).data.tag).toEqual({ name: 'Alpha' });
    const off = await app.gql(t.user.token, `mutation { updateTag(id: ${b.id}, input: { isActive: false, name: "Bravo 2" }) { name isActive } }`);
    expect(off.data.updateTag).toEqual({ name: 'Bravo 2', isActive: false });
    const ids = async (args: string) => (await app.gql(t.user.token, `{ tags(clientAccountId: ${t.account.id}${args}) { nodes { id } meta { perPage records } } }`)).data.tags;
    expect(await ids('')).toEqual({ nodes: [{ id: a.id }], meta: { perPage: 50, records: 1 } });
    expect((await ids(', isActive: false')).nodes).toEqual([{ id: b.id }]);
    expect((await ids(', isActive: null')).nodes).toEqual([{ id: a.id }, { id: b.id }]);
    expect(await ids(', isActive: null, page: 2, perPage: 1')).toEqual({ nodes: [{ id: b.id }], meta: { perPage: 1, records: 2 } });
  });

  it('a tag name is unique within the client account: a clash is a validation error naming it; another account may use it', async () => {
    const first = (await createTag(t, { name: 'Felles' })).data.createTag;
    const dup = await createTag(t, { name: 'Felles' });
    expect(dup.errors?.[0]).toMatchObject({ message: `name: 'Felles' is already used by tag ${first.id}`, extensions: { code: 'common.validation_error' } });
    expect((await createTag(other, { name: 'Felles' })).errors).toBeUndefined();
    const second = (await createTag(t, { name: 'Annen' })).data.createTag;
    const renamed = await app.gql(t.user.token, `mutation { updateTag(id: ${second.id}, input: { name: "Felles" }) { id } }`);
    expect(renamed.errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
  });

  it('an empty or too long name and a changed clientAccountId are validation errors', async () => {
    expect((await createTag(t, { name: ' ' })).errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
    expect((await createTag(t, { name: 'x'.repeat(101) })).errors?.[0].extensions).toMatchObject({ code: 'common.validation_error' });
    const tag = (await createTag(t, { name: 'Fast' })).data.createTag;
    const moved = await app.gql(t.user.token, `mutation { updateTag(id: ${tag.id}, input: { clientAccountId: ${other.account.id} }) { id } }`);
    expect(moved.errors?.[0].message).toBe('clientAccountId: cannot be changed');
  });

  it("another account's tag or tags are forbidden; a missing tag is not found; a read-only token cannot write", async () => {
    const theirs = (await createTag(other, { name: 'Deres' })).data.createTag;
    expect((await app.gql(t.user.token, `{ tag(id: ${theirs.id}) { id } }`)).errors?.[0].extensions).toMatchObject({ code: 'common.forbidden' });
    expect((await app.gql(t.user.token, `{ tags(clientAccountId: ${other.account.id}) { meta { records } } }`)).errors?.[0].extensions).toMatchObject({ code: 'common.forbidden' });
    expect((await app.gql(t.user.token, `{ tag(id: 99999999) { id } }`)).errors?.[0].extensions).toMatchObject({ code: 'common.not_found' });
    const ro = await app.gql(t.user.readToken, `mutation { createTag(input: { clientAccountId: ${t.account.id}, name: "RO" }) { id } }`);
    expect(ro.errors?.[0].extensions).toMatchObject({ code: 'insufficient_scope' });
  });
});
