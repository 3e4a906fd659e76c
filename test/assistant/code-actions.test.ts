import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// spec 002 "Chat": "Code blocks in message text: codeaction (run in preview mode; if no errors and
// nothing needs approval, re-run automatically in write mode; a coderesult block is added and posted
// as a new message), approvecodeaction (runs the last codeaction block of the thread in write mode;
// result posted as a message holding only a coderesult block), coderesult (generated output). In
// responses the content of codeaction and coderesult blocks is replaced by a hidden-content marker,
// and preview objects become action_items ({type, needs_approval, id}) with action_mode."
describe.each(targets())('chat code actions (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let customer: number;
  let vat25: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
    await app.db.prisma.clientAccount.update({ where: { id: t.account.id }, data: { vatLiable: true } });
    customer = (await app.db.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde AS', email: 'faktura@kunde.example' } })).id;
    vat25 = await t.taxCode('3');
  });
  afterAll(() => app?.close());

  const newThread = async () => {
    const res = await app.http('POST', '/api/v2/chat/threads', { token: t.user.token, body: { client_account_id: t.account.id, subject: 'Code actions' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as number;
  };
  const say = (threadId: number, body: Record<string, unknown>, token = t.user.token) => app.http('POST', `/api/v2/chat/threads/${threadId}/messages`, { token, body });
  const messages = async (threadId: number) => {
    const res = await app.http('GET', `/api/v2/chat/threads/${threadId}/messages?per_page=100`, { token: t.user.token });
    expect(res.status).toBe(200);
    return (res.body.data as any[]).sort((a, b) => a.id - b.id);
  };
  const block = (kind: string, content: string) => `\`\`\`${kind}\n${content}\n\`\`\``;
  /** the coderesult JSON as stored (responses hide it) */
  const storedResult = async (messageId: number) => {
    const row = await app.db.prisma.chatMessage.findUniqueOrThrow({ where: { id: messageId } });
    return JSON.parse(/```coderesult\n([\s\S]*)\n```/.exec(row.message!)![1]);
  };
  const invoice = (extra = '') => `mutation { createDocument(input: { clientAccountId: ${t.account.id}, documentType: ARINV, businessPartnerId: ${customer},
      documentDate: "2026-04-01", itemLines: [{ itemName: "Kurs", price: "1200.00", quantity: "1", taxCodeId: ${vat25} }] ${extra} }) { id documentStatus } }`;
  const counts = async () => ({
    documents: await app.db.prisma.document.count({ where: { clientAccountId: t.account.id } }),
    entries: await app.db.prisma.journalEntry.count({ where: { clientAccountId: t.account.id } }),
    projects: await app.db.prisma.project.count({ where: { clientAccountId: t.account.id } }),
    // the sending of documents this test's user asked for (other test files share PostgreSQL's queue)
    jobs: Number((await app.db.prisma.$queryRawUnsafe<{ n: bigint }[]>("SELECT count(*) AS n FROM pgboss.job WHERE name = 'documents.send' AND data->>'userId' = $1", String(t.user.id)))[0].n),
  });

  it('"codeaction (run in preview mode …)": a change that needs approval leaves the database as it was — documents, ledger and queued mail counted before and after', async () => {
    const thread = await newThread();
    const before = await counts();
    const posted = await say(thread, { message: `Fakturer kurset:\n${block('codeaction', invoice(', sendDocument: true'))}` });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    expect(posted.body.message).toBe(`Fakturer kurset:\n${block('codeaction', '[hidden]')}`);
    expect(await counts()).toEqual(before);
    const [, result] = await messages(thread);
    expect(result).toMatchObject({
      from_user_id: null,
      message: block('coderesult', '[hidden]'),
      action_mode: 'preview',
      action_error: false,
      action_items: [{ type: 'Document', needs_approval: true, id: expect.any(Number) }],
      tool_mode: null,
    });
    const stored = await storedResult(result.id);
    expect(stored).toMatchObject({ mode: 'preview', data: { createDocument: { documentStatus: 'FINALIZED' } } });
    // the preview's id was never written
    expect(await app.db.prisma.document.findUnique({ where: { id: result.action_items[0].id } })).toBeNull();
  });

  it('"if no errors and nothing needs approval, re-run automatically in write mode": a draft is written and the result names it', async () => {
    const thread = await newThread();
    const before = await counts();
    await say(thread, { message: block('codeaction', invoice(', isDraft: true')) });
    const [, result] = await messages(thread);
    expect(result).toMatchObject({ action_mode: 'write', action_error: false, action_items: [{ type: 'Document', needs_approval: false, id: expect.any(Number) }] });
    const written = await app.db.prisma.document.findUniqueOrThrow({ where: { id: result.action_items[0].id } });
    expect(written).toMatchObject({ isDraft: true, clientAccountId: t.account.id, createdById: t.user.id });
    expect(await counts()).toEqual({ ...before, documents: before.documents + 1 });
  });

  it('a code action may be sent as JSON {query, variables}; a query is answered in write mode with nothing to approve', async () => {
    const thread = await newThread();
    const query = JSON.stringify({ query: 'query($id: Int!) { project: projects(clientAccountId: $id) { meta { records } } }', variables: { id: t.account.id } });
    await say(thread, { message: block('codeaction', query) });
    const [, result] = await messages(thread);
    expect(result).toMatchObject({ action_mode: 'write', action_error: false, action_items: [] });
    expect(await storedResult(result.id)).toMatchObject({ mode: 'write', data: { project: { meta: { records: expect.any(Number) } } } });
  });

  it('"approvecodeaction (runs the last codeaction block of the thread in write mode …)": the approved invoice is finalized, posted and its mail queued; a second approval writes nothing', async () => {
    const thread = await newThread();
    await say(thread, { message: block('codeaction', invoice(', sendDocument: true')) });
    const before = await counts();
    const approval = await say(thread, { message: `OK\n${block('approvecodeaction', '')}` });
    expect(approval.status).toBe(201);
    const all = await messages(thread);
    const result = all[all.length - 1];
    expect(result).toMatchObject({ from_user_id: null, message: block('coderesult', '[hidden]'), action_mode: 'write', action_error: false });
    expect(result.action_items).toEqual([{ type: 'Document', needs_approval: false, id: expect.any(Number) }]);
    const doc = await app.db.prisma.document.findUniqueOrThrow({ where: { id: result.action_items[0].id } });
    expect(doc).toMatchObject({ isDraft: false, documentStatus: 'FINALIZED' });
    expect(await counts()).toEqual({ ...before, documents: before.documents + 1, entries: before.entries + 1, jobs: before.jobs + 1 });

    await say(thread, { message: block('approvecodeaction', '') });
    const again = (await messages(thread)).at(-1);
    expect(again).toMatchObject({ action_mode: 'write', action_error: true, action_items: [] });
    expect((await storedResult(again.id)).errors[0]).toMatchObject({ status: 409, error: expect.stringContaining('written already') });
    expect(await counts()).toEqual({ ...before, documents: before.documents + 1, entries: before.entries + 1, jobs: before.jobs + 1 });
  });

  it('deleting a draft needs approval (destructive), and so does a GraphQL mutation the REST table does not offer', async () => {
    const draft = await app.db.prisma.document.create({ data: { clientAccountId: t.account.id, documentType: 'ARINV', documentDate: new Date('2026-04-01'), businessPartnerId: customer } });
    const thread = await newThread();
    await say(thread, { message: block('codeaction', `mutation { deleteDocument(id: ${draft.id}) }`) });
    expect((await messages(thread)).at(-1)).toMatchObject({ action_mode: 'preview', action_items: [{ type: 'Document', id: draft.id, needs_approval: true }] });
    expect(await app.db.prisma.document.findUnique({ where: { id: draft.id } })).not.toBeNull();
    await say(thread, { message: block('codeaction', `mutation { createTag(input: { clientAccountId: ${t.account.id}, name: "Kampanje" }) { id } }`) });
    expect((await messages(thread)).at(-1)).toMatchObject({ action_mode: 'preview', action_items: [{ type: 'Tag', needs_approval: true }] });
  });

  it('a code action with errors is a preview with action_error true and writes nothing; approving it rolls the whole operation back', async () => {
    const thread = await newThread();
    const before = await counts();
    // the first field would be written alone; the second fails (no such partner): all or nothing
    const doc = `mutation {
      a: createProject(input: { clientAccountId: ${t.account.id}, name: "Halvveis" }) { id }
      b: createDocument(input: { clientAccountId: ${t.account.id}, documentType: ARINV, businessPartnerId: 999999999, documentDate: "2026-04-01", isDraft: true, itemLines: [] }) { id }
    }`;
    await say(thread, { message: block('codeaction', doc) });
    const preview = (await messages(thread)).at(-1);
    expect(preview).toMatchObject({ action_mode: 'preview', action_error: true, action_items: [{ type: 'Project', needs_approval: false }] });
    expect((await storedResult(preview.id)).errors[0]).toMatchObject({ path: ['b'], extensions: { code: 'common.validation_error' } });
    await say(thread, { message: block('approvecodeaction', '') });
    expect((await messages(thread)).at(-1)).toMatchObject({ action_mode: 'write', action_error: true, action_items: [] });
    expect(await counts()).toEqual(before);

    await say(thread, { message: block('codeaction', 'this is not GraphQL') });
    const bad = (await messages(thread)).at(-1);
    expect(bad).toMatchObject({ action_mode: 'preview', action_error: true, action_items: [] });
    expect((await storedResult(bad.id)).errors[0]).toMatchObject({ status: 400, error: expect.stringContaining('Syntax Error') });
  });

  it('a message holding a codeaction and an approvecodeaction block writes its own code action at once, even one needing approval', async () => {
    const thread = await newThread();
    const before = await counts();
    await say(thread, { message: `${block('codeaction', invoice())}\n${block('approvecodeaction', '')}` });
    const all = await messages(thread);
    expect(all).toHaveLength(2);
    expect(all[1]).toMatchObject({ action_mode: 'write', action_error: false, action_items: [{ type: 'Document', needs_approval: false }] });
    expect(await app.db.prisma.document.findUniqueOrThrow({ where: { id: all[1].action_items[0].id } })).toMatchObject({ isDraft: false });
    expect(await counts()).toEqual({ ...before, documents: before.documents + 1, entries: before.entries + 1 });
  });

  it('approvecodeaction without any codeaction in the thread answers with an error result', async () => {
    const thread = await newThread();
    await say(thread, { message: block('approvecodeaction', '') });
    const result = (await messages(thread)).at(-1);
    expect(result).toMatchObject({ from_user_id: null, action_mode: 'write', action_error: true, action_items: [] });
  });

  it('a read-only token can neither post a code action nor approve one (403); nothing runs', async () => {
    const thread = await newThread();
    await say(thread, { message: block('codeaction', invoice()) });
    const before = await counts();
    const count = (await messages(thread)).length;
    for (const body of [{ message: block('codeaction', invoice(', isDraft: true')) }, { message: block('approvecodeaction', '') }]) {
      const res = await say(thread, body, t.user.readToken);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: expect.stringContaining("'write' scope"), status: 403 });
    }
    expect(await messages(thread)).toHaveLength(count);
    expect(await counts()).toEqual(before);
  });
});
