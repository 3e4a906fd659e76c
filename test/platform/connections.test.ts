import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { postEntry } from '../support/postings.ts';
import type { Tenant } from '../support/seed.ts';

// Issue 30: every list is a Relay connection (first/after, last/before; edges, nodes, pageInfo,
// totalCount; cursors stable under inserts), and a missing or forbidden record at a nullable lookup
// is null with a coded error at its path while the rest of the response is kept, HTTP 200.
describe.each(targets())('GraphQL connections and partial data (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(() => app?.close());

  const createTag = async (tenant: Tenant, name: string): Promise<number> => {
    const res = await app.gql(tenant.user.token, `mutation($input: CreateTagInput!) { createTag(input: $input) { id } }`, { input: { clientAccountId: tenant.account.id, name } });
    return res.data.createTag.id;
  };
  const TAGS = `query($account: Int!, $first: Int, $after: String, $last: Int, $before: String) {
    tags(clientAccountId: $account, first: $first, after: $after, last: $last, before: $before) {
      edges { cursor node { id name } } nodes { id } totalCount meta { page }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }`;
  const tags = async (vars: Record<string, unknown>) => {
    const res = await app.gql(t.user.token, TAGS, { account: t.account.id, ...vars });
    expect(res.errors).toBeUndefined();
    return res.data.tags;
  };

  it('forward with first/after walks the whole list once, in its order; an insert before the cursor neither repeats nor skips a row', async () => {
    const names = ['C', 'E', 'G', 'I', 'K', 'M', 'O'];
    for (const n of names) await createTag(t, n);
    const first = await tags({ first: 3 });
    expect(first.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['C', 'E', 'G']);
    expect(first.nodes).toEqual(first.edges.map((e: { node: { id: number } }) => ({ id: e.node.id })));
    expect(first).toMatchObject({ totalCount: 7, meta: null, pageInfo: { hasNextPage: true, hasPreviousPage: false, startCursor: first.edges[0].cursor, endCursor: first.edges[2].cursor } });
    await createTag(t, 'A'); // sorts before the cursor: an offset page 2 would now repeat G
    const second = await tags({ first: 3, after: first.pageInfo.endCursor });
    expect(second.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['I', 'K', 'M']);
    expect(second.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const third = await tags({ first: 3, after: second.pageInfo.endCursor });
    expect(third.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['O']);
    expect(third).toMatchObject({ totalCount: 8, pageInfo: { hasNextPage: false } });
  });

  it('backward with last/before reads the rows before the cursor, still in the list order', async () => {
    const last = await tags({ last: 2 });
    expect(last.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['M', 'O']);
    expect(last.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const before = await tags({ last: 3, before: last.pageInfo.startCursor });
    expect(before.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['G', 'I', 'K']);
    expect(before.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    const start = await tags({ last: 5, before: before.pageInfo.startCursor });
    expect(start.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['A', 'C', 'E']);
    expect(start.pageInfo.hasPreviousPage).toBe(false);
  });

  it('page arguments keep answering meta; page and cursor arguments, or both directions, do not mix (400 naming the argument); a foreign cursor is refused', async () => {
    const paged = (await app.gql(t.user.token, `{ tags(clientAccountId: ${t.account.id}, page: 2, perPage: 3) { nodes { id } meta { page perPage records pages } totalCount pageInfo { hasNextPage hasPreviousPage } } }`)).data.tags;
    expect(paged).toMatchObject({ meta: { page: 2, perPage: 3, records: 8, pages: 3 }, totalCount: 8, pageInfo: { hasNextPage: true, hasPreviousPage: true } });
    const mixed = await app.gql(t.user.token, `{ tags(clientAccountId: ${t.account.id}, page: 2, first: 3) { totalCount } }`);
    expect(mixed.errors?.[0]).toMatchObject({ message: expect.stringMatching(/^page: cannot be combined with first/), extensions: { code: 'common.validation_error' } });
    const both = await app.gql(t.user.token, `{ tags(clientAccountId: ${t.account.id}, first: 3, last: 2) { totalCount } }`);
    expect(both.errors?.[0].message).toMatch(/^last: cannot be combined with first\/after/);
    const bad = await app.gql(t.user.token, `{ tags(clientAccountId: ${t.account.id}, after: "bm90LWEtY3Vyc29y") { totalCount } }`);
    expect(bad.errors?.[0]).toMatchObject({ message: expect.stringMatching(/^after: is not a cursor of this list/), extensions: { code: 'common.validation_error' } });
  });

  it('a list ordered on a nullable column (journal entries: drafts have no number, last) pages by cursor exactly as by page', async () => {
    const cash = await t.ledgerAccount('1920');
    const income = await t.ledgerAccount('3000');
    for (let i = 0; i < 5; i++) {
      await postEntry(app.db.prisma, t.account.id, [{ accountId: cash, debit: '10' }, { accountId: income, credit: '10' }], { draft: i % 2 === 1 });
    }
    const all = (await app.gql(t.user.token, `{ journalEntries(clientAccountId: ${t.account.id}, includeDrafts: true, perPage: 100) { nodes { id } } }`)).data.journalEntries.nodes;
    expect(all).toHaveLength(5);
    const seen: number[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 10; guard++) {
      const page: any = (await app.gql(t.user.token, `query($after: String) { journalEntries(clientAccountId: ${t.account.id}, includeDrafts: true, first: 2, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }`, { after })).data.journalEntries;
      seen.push(...page.nodes.map((n: { id: number }) => n.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(all.map((n: { id: number }) => n.id));
  });

  it('a list read by SQL of its own (the general ledger, in account and date order) pages by cursor exactly as by page', async () => {
    const q = (args: string) =>
      app.gql(t.user.token, `{ generalLedger(clientAccountId: ${t.account.id}, dateFrom: "2026-01-01", dateTo: "2026-12-31", includeDrafts: true, ${args}) { nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount } }`);
    const all = (await q('perPage: 1000')).data.generalLedger;
    expect(all.totalCount).toBe(10);
    const ids = all.nodes.map((n: { id: number }) => n.id);
    const first = (await q('first: 4')).data.generalLedger;
    const next = (await q(`first: 4, after: "${first.pageInfo.endCursor}"`)).data.generalLedger;
    const rest = (await q(`first: 4, after: "${next.pageInfo.endCursor}"`)).data.generalLedger;
    expect([...first.nodes, ...next.nodes, ...rest.nodes].map((n: { id: number }) => n.id)).toEqual(ids);
    expect(rest.pageInfo.hasNextPage).toBe(false);
    const back = (await q(`last: 3, before: "${rest.pageInfo.startCursor}"`)).data.generalLedger;
    expect(back.nodes.map((n: { id: number }) => n.id)).toEqual(ids.slice(5, 8));
  });

  it("a list computed in memory (the equity share classes) is a connection too, its cursors on each row's key", async () => {
    const q = (args: string) => app.gql(t.user.token, `{ equityShareClasses${args} { nodes { value } shareClasses { value } totalCount pageInfo { hasNextPage endCursor } } }`);
    const all = (await q('')).data.equityShareClasses;
    expect(all.nodes).toEqual(all.shareClasses);
    const first = (await q('(first: 1)')).data.equityShareClasses;
    expect(first.nodes).toEqual(all.nodes.slice(0, 1));
    const rest = (await q(`(first: 100, after: "${first.pageInfo.endCursor}")`)).data.equityShareClasses;
    expect([...first.nodes, ...rest.nodes]).toEqual(all.nodes);
    expect(rest.pageInfo.hasNextPage).toBe(false);
    expect((await q('(after: "bm9wZQ")')).errors?.[0].message).toMatch(/^after: is not a cursor of this list/);
  });

  it('partial data: `{ me { … } tag(id: missing) { id } }` answers 200 with me, tag null and a coded error at its path', async () => {
    const res = await app.http('POST', '/graphql', { token: t.user.token, body: { query: '{ me { user { id } } missing: tag(id: 99999999) { id } }' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ me: { user: { id: t.user.id } }, missing: null });
    expect(res.body.errors).toEqual([expect.objectContaining({ path: ['missing'], extensions: expect.objectContaining({ code: 'common.not_found' }) })]);
  });

  it("partial data: another account's record is null with common.forbidden at its path, beside the caller's own", async () => {
    const theirs = await createTag(other, 'Deres');
    const mine = await createTag(t, 'Mitt');
    const res = await app.http('POST', '/graphql', { token: t.user.token, body: { query: `{ mine: tag(id: ${mine}) { name } theirs: tag(id: ${theirs}) { name } }` } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ mine: { name: 'Mitt' }, theirs: null });
    expect(res.body.errors[0]).toMatchObject({ path: ['theirs'], extensions: { code: 'common.forbidden' } });
  });

  it('without any data the error keeps its status (a non-null list refused: 403), and REST keeps answering 404 and 403 from the same errors', async () => {
    const res = await app.http('POST', '/graphql', { token: t.user.token, body: { query: `{ tags(clientAccountId: ${other.account.id}) { totalCount } }` } });
    expect(res.status).toBe(403);
    expect(res.body.data).toBeNull();
    expect((await app.http('GET', '/api/v2/projects/99999999', { token: t.user.token })).status).toBe(404);
    const theirs = (await app.http('POST', '/api/v2/projects', { token: other.user.token, body: { client_account_id: other.account.id, name: 'P' } })).body;
    expect((await app.http('GET', `/api/v2/projects/${theirs.id}`, { token: t.user.token })).status).toBe(403);
  });
});
