import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventually, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { lastToolResult, startScriptedModel, type ScriptedModel } from '../support/model-server.ts';

// spec 002 "Chat": "Tool-calling messages: an assistant reply is a PREVIEW message with tool_calls,
// tool_results and previews. With no preview needing approval, a WRITE message of the same shape
// follows with need_approval false. Otherwise the user posts a message with approves_message_id."
// States: "Chat tool message | PREVIEW | no preview entry needs approval | WRITE message posted
// automatically | need_approval false"; "PREVIEW | message with approves_message_id | Refers to an
// unapproved PREVIEW message in the thread | write-mode re-execution of calls needing approval".
// The model is a scripted chat-completions server over real HTTP; the reply runs as a job.
describe.each(targets())('chat assistant with a scripted model (%s)', (target) => {
  let app: TestApp;
  let model: ScriptedModel;
  let t: Tenant;
  let customer: number;
  let vat25: number;
  let unit: number;

  beforeAll(async () => {
    model = await startScriptedModel();
    app = await startTestApp(target, {
      jobs: { queues: ['chat.assistant-reply'] },
      env: { ASSISTANT_URL: model.url, ASSISTANT_MODEL: 'test-model', ASSISTANT_API_KEY: 'test-key', ASSISTANT_MAX_ROUNDS: '4', ASSISTANT_TIMEOUT_SECONDS: '6' },
    });
    t = await app.seed.tenant();
    await app.db.prisma.clientAccount.update({ where: { id: t.account.id }, data: { vatLiable: true } });
    customer = (await app.db.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Kunde AS' } })).id;
    vat25 = await t.taxCode('3');
    unit = await app.seed.unitId('EA');
  });
  afterAll(async () => {
    await app?.close();
    await model?.close();
  });
  afterEach(() => expect(model.pending(), 'every scripted model step was used').toBe(0));

  const newThread = async () => (await app.http('POST', '/api/v2/chat/threads', { token: t.user.token, body: { client_account_id: t.account.id, subject: 'Regnskap' } })).body.id as number;
  const say = (threadId: number, body: Record<string, unknown>, token = t.user.token) => app.http('POST', `/api/v2/chat/threads/${threadId}/messages`, { token, body });
  const messages = async (threadId: number) =>
    ((await app.http('GET', `/api/v2/chat/threads/${threadId}/messages?per_page=100`, { token: t.user.token })).body.data as any[]).sort((a, b) => a.id - b.id);
  /** waits until the thread has `n` messages */
  const until = (threadId: number, n: number) =>
    eventually(async () => {
      const all = await messages(threadId);
      return all.length >= n && all;
    }, `${n} messages in thread ${threadId}`);
  const projectsNamed = (name: string) => app.db.prisma.project.findMany({ where: { clientAccountId: t.account.id, name } });

  it('"With no preview needing approval, a WRITE message of the same shape follows with need_approval false": a project is created once', async () => {
    const thread = await newThread();
    model.script({ calls: [{ id: 'call_p1', name: 'create_project', arguments: { client_account_id: t.account.id, name: 'Sommerkampanje' } }] }, { content: 'Prosjektet Sommerkampanje er opprettet.' });
    const asked = await say(thread, { message: '@assistant opprett prosjektet Sommerkampanje' });
    expect(asked.status).toBe(201);
    const [, preview, write] = await until(thread, 3);
    const previewProject = JSON.parse(preview.tool_results[0].content);
    expect(preview).toMatchObject({
      from_user_id: null,
      message: 'Prosjektet Sommerkampanje er opprettet.',
      tool_mode: 'PREVIEW',
      approves_message_id: null,
      action_error: false,
      tool_calls: [{ id: 'call_p1', type: 'function', function: { name: 'create_project', arguments: JSON.stringify({ client_account_id: t.account.id, name: 'Sommerkampanje' }) } }],
      tool_results: [{ tool_call_id: 'call_p1', name: 'create_project', is_error: false, content: expect.any(String) }],
      previews: [{ tool_call_id: 'call_p1', type: 'Project', id: previewProject.id, operation: 'createProject', need_approval: false, reasons: [] }],
    });
    expect(write).toMatchObject({ from_user_id: null, tool_mode: 'WRITE', approves_message_id: preview.id, action_error: false, tool_calls: preview.tool_calls });
    const written = await projectsNamed('Sommerkampanje');
    expect(written).toHaveLength(1);
    expect(written[0].id).not.toBe(previewProject.id); // the preview's id was rolled back and burned
    expect(write.previews).toEqual([{ tool_call_id: 'call_p1', type: 'Project', id: written[0].id, operation: 'createProject', need_approval: false, reasons: [] }]);
    expect(JSON.parse(write.tool_results[0].content)).toMatchObject({ id: written[0].id, name: 'Sommerkampanje', created_by_id: t.user.id });
    // an automatic write approved the preview itself: a user cannot approve it again
    const again = await say(thread, { approves_message_id: preview.id });
    expect(again.status).toBe(400);

    // the same shapes over GraphQL (ChatToolCall, ChatToolResult, ChatToolPreview)
    const gql = await app.gql(
      t.user.token,
      `query($id: Int!) { chatMessages(threadId: $id) { nodes { id toolMode approvesMessageId approvedByMessageId
         toolCalls { id type function { name arguments } } toolResults { toolCallId name isError } previews { toolCallId type id operation needApproval reasons } } } }`,
      { id: thread },
    );
    expect(gql.errors).toBeUndefined();
    const [, p, w] = gql.data.chatMessages.nodes.sort((a: any, b: any) => a.id - b.id);
    expect(p).toMatchObject({
      toolMode: 'PREVIEW',
      approvedByMessageId: write.id,
      toolCalls: [{ id: 'call_p1', type: 'function', function: { name: 'create_project' } }],
      toolResults: [{ toolCallId: 'call_p1', name: 'create_project', isError: false }],
      previews: [{ toolCallId: 'call_p1', type: 'Project', id: previewProject.id, operation: 'createProject', needApproval: false, reasons: [] }],
    });
    expect(w).toMatchObject({ toolMode: 'WRITE', approvesMessageId: preview.id, previews: [{ id: written[0].id, needApproval: false }] });
  });

  it('the model gets the MCP tools (names, descriptions, input schemas as tools/list on /mcp, the chat’s own left out), the thread as its conversation and the API key', async () => {
    const thread = await newThread();
    model.script({ content: 'Hei!' });
    await say(thread, { message: 'Hei @Assistant, hva kan du?' });
    await until(thread, 2);
    const request = model.requests.at(-1)!;
    expect(model.authorizations.at(-1)).toBe('Bearer test-key');
    expect(request.model).toBe('test-model');
    expect(request.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining(`client account ${t.account.id}`) });
    expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'Test User: Hei @Assistant, hva kan du?' });

    const client = new Client({ name: 'test-host', version: '1.0.0' });
    // every toolset (?modules=all); the toolset tools are the endpoint's, the assistant gets every tool itself
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp?modules=all`), { requestInit: { headers: { authorization: `Bearer ${t.user.token}` } } }));
    const { tools } = await client.listTools();
    await client.close();
    const offered = new Map(request.tools!.map((x) => [x.function.name, x.function]));
    const expected = tools.filter((x) => !x.name.includes('chat') && !['list_toolsets', 'describe_operation', 'call_operation'].includes(x.name));
    expect([...offered.keys()].sort()).toEqual(expected.map((x) => x.name).sort());
    for (const tool of expected) expect(offered.get(tool.name), tool.name).toEqual({ name: tool.name, description: tool.description, parameters: tool.inputSchema });
  });

  it('"Otherwise the user posts a message with approves_message_id": a finalized invoice waits for approval, then the approver’s WRITE message records it', async () => {
    const thread = await newThread();
    const args = { client_account_id: t.account.id, document_type: 'ARINV', business_partner_id: customer, document_date: '2026-04-01', item_lines: [{ item_name: 'Kurs', price: '1200.00', quantity: '1', tax_code_id: vat25 }] };
    model.script({ calls: [{ id: 'call_inv', name: 'create_document', arguments: args }] }, { content: 'Fakturaen er klar; godkjenn for å bokføre den.' });
    const documents = () => app.db.prisma.document.count({ where: { clientAccountId: t.account.id } });
    const before = await documents();
    await say(thread, { message: '@assistant fakturer kurset' });
    const [, preview] = await until(thread, 2);
    expect(preview).toMatchObject({ tool_mode: 'PREVIEW', previews: [{ tool_call_id: 'call_inv', type: 'Document', need_approval: true, reasons: ['final'] }] });
    // nothing follows, nothing is written
    await new Promise((r) => setTimeout(r, 1500));
    expect(await messages(thread)).toHaveLength(2);
    expect(await documents()).toBe(before);

    const approver = await app.seed.user();
    await app.seed.grantRole({ userId: approver.id, clientAccountId: t.account.id, role: 'CA' });
    const approval = await say(thread, { approves_message_id: preview.id }, approver.token);
    expect(approval.status, JSON.stringify(approval.body)).toBe(201);
    expect(approval.body).toMatchObject({ approves_message_id: preview.id, from_user_id: approver.id });
    // the write runs before the approval's response: the WRITE message is already there
    const [, , , write] = await messages(thread);
    expect(write).toMatchObject({ tool_mode: 'WRITE', from_user_id: null, approves_message_id: null, action_error: false, tool_calls: preview.tool_calls });
    const doc = await app.db.prisma.document.findUniqueOrThrow({ where: { id: write.previews[0].id } });
    expect(doc).toMatchObject({ isDraft: false, documentStatus: 'FINALIZED', createdById: approver.id, businessPartnerId: customer });
    expect(write.previews).toEqual([{ tool_call_id: 'call_inv', type: 'Document', id: doc.id, operation: 'createDocument', need_approval: false, reasons: [] }]);
    expect(await documents()).toBe(before + 1);
    expect((await say(thread, { approves_message_id: preview.id })).status).toBe(400);
  });

  it('a read-only caller’s approval is refused (403 naming the write scope); nothing is written and no WRITE message appears', async () => {
    const thread = await newThread();
    const old = await app.db.prisma.project.create({ data: { clientAccountId: t.account.id, name: 'Gammelt', sequenceNumber: 9001 } });
    model.script({ calls: [{ id: 'call_del', name: 'deactivate_project', arguments: { id: old.id } }] }, { content: 'Godkjenn sletting.' });
    await say(thread, { message: '@assistant slett prosjektet Gammelt' });
    const [, preview] = await until(thread, 2);
    expect(preview.previews).toMatchObject([{ type: 'Project', need_approval: true, reasons: ['destructive'] }]);
    const refused = await say(thread, { approves_message_id: preview.id }, t.user.readToken);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: expect.stringContaining("'write' scope"), status: 403 });
    expect(await messages(thread)).toHaveLength(2);
    expect(preview.previews[0].id).toBe(old.id);
    expect(await app.db.prisma.project.findUniqueOrThrow({ where: { id: old.id } })).toMatchObject({ isActive: true });
  });

  it('ids a preview showed are mapped to the records the write creates: an entry added in round 2 to the collection created in round 1 lands in the written collection', async () => {
    const thread = await newThread();
    model.script(
      { calls: [{ name: 'create_item_collection', arguments: { client_account_id: t.account.id, collection_type: 'TEMPLATE', name: 'Abonnement' } }] },
      (request) => ({
        calls: [{ name: 'create_item_collection_entry', arguments: { id: lastToolResult(request, 'create_item_collection').id, description: 'Månedlig', price: '99.00', quantity: '1', tax_code_id: vat25, unit_id: unit } }],
      }),
      { content: 'Ferdig.' },
    );
    await say(thread, { message: '@assistant lag en abonnementsmal' });
    const [, preview, write] = await until(thread, 3);
    expect(preview.tool_results.map((r: any) => r.is_error)).toEqual([false, false]);
    const [collection, entry] = write.previews;
    expect(collection).toMatchObject({ type: 'ItemCollection', need_approval: false });
    expect(collection.id).not.toBe(preview.previews[0].id);
    expect(await app.db.prisma.itemCollectionEntry.findUniqueOrThrow({ where: { id: entry.id } })).toMatchObject({ itemCollectionId: collection.id });
    expect(await app.db.prisma.itemCollection.count({ where: { clientAccountId: t.account.id, name: 'Abonnement' } })).toBe(1);
  });

  it('a failed tool call is shown to the model and not written; the model may correct itself', async () => {
    const thread = await newThread();
    model.script(
      { calls: [{ name: 'create_project', arguments: { client_account_id: t.account.id } }] },
      (request) => {
        const failed = lastToolResult(request, 'create_project');
        expect(failed).toEqual({ error: expect.stringContaining('name'), status: 400 });
        return { calls: [{ name: 'create_project', arguments: { client_account_id: t.account.id, name: 'Rettet' } }] };
      },
      { content: 'Rettet.' },
    );
    await say(thread, { message: '@assistant nytt prosjekt' });
    const [, preview, write] = await until(thread, 3);
    expect(preview.tool_results.map((r: any) => r.is_error)).toEqual([true, false]);
    expect(write.tool_calls).toHaveLength(1);
    expect(await projectsNamed('Rettet')).toHaveLength(1);
  });

  it.each<[string, () => void, RegExp]>([
    ['an error status', () => model.script({ status: 503, body: '{"error":"overloaded"}' }), /the model API answered 503: \{"error":"overloaded"\}/],
    ['a body that is no JSON', () => model.script({ status: 200, body: '<html>' }), /answered no JSON/],
    ['no answer in time (ASSISTANT_TIMEOUT_SECONDS)', () => model.script({ delayMs: 7000, then: { content: 'too late' } }), /did not answer in time/],
  ])('model failure — %s: the reply is a message saying so (action_error true), the poster got 201', async (_name, script, why) => {
    const thread = await newThread();
    script();
    const asked = await say(thread, { message: '@assistant hjelp' });
    expect(asked.status).toBe(201);
    const [, reply] = await until(thread, 2);
    expect(reply).toMatchObject({ from_user_id: null, tool_mode: null, tool_calls: null, action_error: true, message: expect.stringMatching(why) });
    if (_name.startsWith('no answer')) await new Promise((r) => setTimeout(r, 1500)); // let the late answer (7 s after it was asked) go before the next test
  });

  it('the rounds are bounded (ASSISTANT_MAX_ROUNDS): a model that keeps calling tools is stopped, and its reads need no write', async () => {
    const thread = await newThread();
    for (let i = 0; i < 4; i++) model.script({ calls: [{ name: 'list_projects', arguments: { client_account_id: t.account.id } }] });
    await say(thread, { message: '@assistant list' });
    const all = await until(thread, 2);
    await new Promise((r) => setTimeout(r, 500));
    expect(await messages(thread)).toHaveLength(2); // reads only: no WRITE message
    expect(all[1]).toMatchObject({ tool_mode: 'PREVIEW', message: expect.stringContaining('4 rounds'), previews: [] });
    expect(all[1].tool_calls).toHaveLength(4);
  });

  it('a message without the mention is not sent to the model', async () => {
    const thread = await newThread();
    const requests = model.requests.length;
    await say(thread, { message: 'Bare en notis til assistant@firma.no' });
    await new Promise((r) => setTimeout(r, 1000));
    expect(model.requests.length).toBe(requests);
    expect(await messages(thread)).toHaveLength(1);
  });
});

describe.each(targets())('chat assistant not configured (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target, { jobs: { queues: ['chat.assistant-reply'] } });
  });
  afterAll(() => app?.close());

  it('a mention is answered by a message saying no assistant is connected; everything else works', async () => {
    const t = await app.seed.tenant();
    const thread = (await app.http('POST', '/api/v2/chat/threads', { token: t.user.token, body: { client_account_id: t.account.id } })).body.id;
    await app.http('POST', `/api/v2/chat/threads/${thread}/messages`, { token: t.user.token, body: { message: '@assistant hei' } });
    const reply = await eventually(async () => {
      const res = await app.http('GET', `/api/v2/chat/threads/${thread}/messages`, { token: t.user.token });
      return res.body.data.find((m: any) => m.from_user_id === null);
    }, 'the reply');
    expect(reply).toMatchObject({ action_error: true, message: expect.stringContaining('ASSISTANT_URL') });
  });
});
