import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { pdfBytes } from '../support/vouchers.ts';
import { upload } from '../files/helpers.ts';

// The chat and task operations over GraphQL (the fields the REST adapter runs) and as MCP tools.
describe.each(targets())('chat and tasks over GraphQL and MCP (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target, { log: ['query'] });
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(async () => {
    await app?.close();
  });

  const CREATE = /* GraphQL */ `
    mutation ($input: CreateChatThreadInput!) {
      createChatThread(input: $input) { id subject lastMessageCreatedAt participants { userId user { fullName } } }
    }`;

  it('createChatThread with messages, chatMessages with hidden code block contents, approvedByMessageId, attachments', async () => {
    const file = await upload(app, { client_account_id: t.account.id, type: 'CHAT_ATTACHMENT' }, { bytes: await pdfBytes(1), name: 'kvittering.pdf' }, t.user.token);
    const res = await app.gql(t.user.token, CREATE, {
      input: { clientAccountId: t.account.id, subject: 'Kvittering', messages: [{ message: 'Se vedlagt', attachmentIds: [file.body.id] }, { message: '```coderesult\n{"a":1}\n```' }] },
    });
    expect(res.errors).toBeUndefined();
    const thread = res.data.createChatThread;
    expect(thread).toMatchObject({ subject: 'Kvittering', lastMessageCreatedAt: expect.any(String), participants: [{ userId: t.user.id, user: { fullName: 'Test User' } }] });
    const list = await app.gql(t.user.token, `{ chatMessages(threadId: ${thread.id}) { nodes { message attachments { fileName downloadUrl chatMessageId } approvedByMessageId } meta { records } } }`);
    expect(list.data.chatMessages).toEqual({
      nodes: [
        { message: 'Se vedlagt', attachments: [{ fileName: 'kvittering.pdf', downloadUrl: expect.stringContaining(`/api/v2/files/${file.body.id}/download`), chatMessageId: expect.any(Number) }], approvedByMessageId: null },
        { message: '```coderesult\n[hidden]\n```', attachments: [], approvedByMessageId: null },
      ],
      meta: { records: 2 },
    });
  });

  it('errors carry extensions.code: 403 common.forbidden, 404 common.not_found, 400 common.validation_error', async () => {
    const theirs = await app.gql(other.user.token, CREATE, { input: { clientAccountId: other.account.id } });
    expect(errorCode(await app.gql(t.user.token, `{ chatThread(id: ${theirs.data.createChatThread.id}) { id } }`))).toBe('common.forbidden');
    expect(errorCode(await app.gql(t.user.token, '{ chatThread(id: 2147483647) { id } }'))).toBe('common.not_found');
    const mine = await app.gql(t.user.token, CREATE, { input: { clientAccountId: t.account.id } });
    const bad = await app.gql(t.user.token, `mutation { createChatMessage(threadId: ${mine.data.createChatThread.id}, input: {}) { id } }`);
    expect(errorCode(bad)).toBe('common.validation_error');
    expect(bad.errors?.[0].message).toContain('message: is required');
  });

  it('chatThreads with participants, and chatMessages with attachments and senders: the statements do not grow with the page (no N+1)', async () => {
    const tenant = await app.seed.tenant();
    const run = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const made = await app.gql(tenant.user.token, CREATE, { input: { clientAccountId: tenant.account.id, subject: `T${i}`, messages: [{ message: 'a' }, { message: 'b' }] } });
        expect(made.errors).toBeUndefined();
      }
      // the fewer of two counts: an occasional lookup outside the query (a cache refill) is not the page's
      const statements = async (query: string) => {
        const counts: number[] = [];
        let body: any;
        for (let i = 0; i < 2; i++) {
          app.statements.length = 0;
          body = await app.gql(tenant.user.token, query);
          expect(body.errors).toBeUndefined();
          counts.push(app.statements.length);
        }
        return { body, count: Math.min(...counts) };
      };
      const threads = await statements(`{ chatThreads(clientAccountId: ${tenant.account.id}) { nodes { id participants { userId user { email } } } } }`);
      const messages = await statements(`{ chatMessages(threadId: ${threads.body.data.chatThreads.nodes[0].id}) { nodes { id fromUser { email } attachments { id } approvedByMessageId } } }`);
      return [threads.count, messages.count];
    };
    const small = await run(1);
    const large = await run(5);
    expect(large).toEqual(small);
  });

  it('tasks: createTask makes its thread; subtasks and parentTask; deleteTask: spec 002 "Deletes task and its chat channel", the subtask stays as a top-level task', async () => {
    const parent = await app.gql(t.user.token, `mutation { createTask(input: { clientAccountId: ${t.account.id}, title: "Forelder", taskType: "YEAR_END" }) { id threadId thread { subject relationType } } }`);
    expect(parent.data.createTask).toMatchObject({ thread: { subject: 'Forelder', relationType: 'task' } });
    const child = await app.gql(t.user.token, `mutation { createTask(input: { clientAccountId: ${t.account.id}, title: "Barn", parentTaskId: ${parent.data.createTask.id} }) { id threadId parentTask { title } } }`);
    expect(child.data.createTask.parentTask).toEqual({ title: 'Forelder' });
    const read = await app.gql(t.user.token, `{ task(id: ${parent.data.createTask.id}) { subtasks { title } status taskType } }`);
    expect(read.data.task).toEqual({ subtasks: [{ title: 'Barn' }], status: 'OPEN', taskType: 'YEAR_END' });
    const del = await app.gql(t.user.token, `mutation { deleteTask(id: ${parent.data.createTask.id}) }`);
    expect(del.data).toEqual({ deleteTask: true });
    expect(await app.db.prisma.chatThread.findUnique({ where: { id: parent.data.createTask.threadId } })).toBeNull();
    const kept = await app.gql(t.user.token, `{ task(id: ${child.data.createTask.id}) { parentTaskId parentTask { id } thread { id } } }`);
    expect(kept.data.task).toEqual({ parentTaskId: null, parentTask: null, thread: { id: child.data.createTask.threadId } });
  });

  it('spec 002 "Task": "Allowed values of task status and task_type: not shown": status and taskType are String, their descriptions name our values with what each means', async () => {
    const res = await app.gql(t.user.token, '{ t: __type(name: "Task") { fields { name description type { kind ofType { name } } } } s: __type(name: "TaskStatus") { name } k: __type(name: "TaskType") { name } m: __type(name: "ChatToolMode") { enumValues { name } } }');
    const field = (name: string) => res.data.t.fields.find((f: any) => f.name === name);
    for (const name of ['status', 'taskType']) expect(field(name).type, name).toEqual({ kind: 'NON_NULL', ofType: { name: 'String' } });
    for (const value of ['OPEN', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED']) expect(field('status').description).toContain(`${value} (`);
    expect(field('taskType').description).toContain('VOUCHER_REVIEW (a voucher needs a person');
    expect([res.data.s, res.data.k]).toEqual([null, null]);
    expect(res.data.m.enumValues.map((v: any) => v.name)).toEqual(['PREVIEW', 'WRITE']);
  });

  it('MCP: the chat and task tools; a read-only token lists the read tools only and cannot post', async () => {
    const connect = async (token: string) => {
      const client = new Client({ name: 'chat-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp?modules=chat,tasks`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      return client;
    };
    const writer = await connect(t.user.token);
    const reader = await connect(t.user.readToken);
    try {
      const names = (await writer.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['list_chat_threads', 'create_chat_thread', 'get_chat_thread', 'update_chat_thread', 'list_chat_messages', 'create_chat_message', 'update_chat_message', 'list_chat_participants', 'add_chat_participant', 'list_tasks', 'create_task', 'get_task', 'update_task', 'delete_task']));
      const readNames = (await reader.listTools()).tools.map((tool) => tool.name);
      expect(readNames).toEqual(expect.arrayContaining(['list_chat_threads', 'list_chat_messages', 'list_tasks']));
      expect(readNames).not.toContain('create_chat_message');

      const task = await writer.callTool({ name: 'create_task', arguments: { client_account_id: t.account.id, title: 'Fra assistenten' } });
      const made = JSON.parse((task.content as { text: string }[])[0].text);
      expect(made).toMatchObject({ title: 'Fra assistenten', thread_id: expect.any(Number) });
      const posted = await writer.callTool({ name: 'create_chat_message', arguments: { thread_id: made.thread_id, message: 'Hei fra MCP' } });
      expect(posted.isError).toBeFalsy();
      const listed = await reader.callTool({ name: 'list_chat_messages', arguments: { thread_id: made.thread_id } });
      expect(JSON.parse((listed.content as { text: string }[])[0].text).data.map((m: any) => m.message)).toEqual(['Hei fra MCP']);
    } finally {
      await writer.close();
      await reader.close();
    }
  });
});
