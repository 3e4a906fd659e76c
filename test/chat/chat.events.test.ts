import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, ChatThread } from '../../src/generated/prisma/client.ts';
import { postMessage } from '../../src/modules/chat/chat.service.ts';
import { onMessagePublished, type MessageListener } from '../../src/modules/chat/message-events.ts';
import { systemContext } from '../../src/shared/context.ts';
import { ValidationError } from '../../src/shared/errors.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { pdfBytes } from '../support/vouchers.ts';
import { upload } from '../files/helpers.ts';

// What the assistant branch builds on (src/modules/chat/message-events.ts): every listener is called
// with (ctx, thread, message) once a message is published, after the transaction that published it
// has committed; a listener's failure is logged and never fails the request; listeners may post
// further messages through postMessage, which takes the tool and action columns the public input
// does not.
describe.each(targets())('chat message listeners (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  const logLines: { level: number; msg: string; err?: { message: string } }[] = [];
  const unregister: (() => void)[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
        done();
      },
    });
    app = await startTestApp(target, { logger: pino({ level: 'error' }, sink) });
    t = await app.seed.tenant();
  });
  afterEach(() => {
    for (const off of unregister.splice(0)) off();
  });
  afterAll(async () => {
    await app?.close();
  });

  interface Heard {
    thread: ChatThread;
    message: ChatMessage;
    userId: number;
    /** the message as a fresh read outside the publishing transaction sees it */
    committed: ChatMessage | null;
  }

  /** Records what a listener hears (only messages of `threadIds` when given: the app is shared by the file's tests). */
  function listen(extra?: MessageListener): Heard[] {
    const heard: Heard[] = [];
    unregister.push(
      onMessagePublished(async (ctx, thread, message) => {
        heard.push({ thread, message, userId: ctx.actor.userId, committed: await app.db.prisma.chatMessage.findUnique({ where: { id: message.id } }) });
        await extra?.(ctx, thread, message);
      }),
    );
    return heard;
  }

  const newThread = async (body: Record<string, unknown> = {}) => {
    const res = await app.http('POST', '/api/v2/chat/threads', { token: t.user.token, body: { client_account_id: t.account.id, ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const post = (threadId: number, body: unknown) => app.http('POST', `/api/v2/chat/threads/${threadId}/messages`, { token: t.user.token, body });

  it('a posted message reaches every listener after its commit: the thread with its new last_message_created_at, the raw text, the caller\'s context', async () => {
    const thread = await newThread();
    const heard = listen();
    const res = await post(thread.id, { message: 'Bokfør dette:\n```codeaction\nbook()\n```' });
    expect(res.status).toBe(201);
    // the code action's result (src/assistant/, a listener too) is published as well, from_user_id null
    expect(heard.filter((x) => x.message.fromUserId === null)).toHaveLength(1);
    const mine = heard.filter((x) => x.message.id === res.body.id);
    expect(mine).toHaveLength(1);
    const [h] = mine;
    expect(h.message).toMatchObject({ id: res.body.id, threadId: thread.id, message: 'Bokfør dette:\n```codeaction\nbook()\n```', isDraft: false, fromUserId: t.user.id });
    expect(h.thread).toMatchObject({ id: thread.id, clientAccountId: t.account.id });
    expect(h.thread.lastMessageCreatedAt?.toISOString()).toBe(res.body.created_at);
    expect(h.userId).toBe(t.user.id);
    // after the commit: a read outside the transaction sees the message
    expect(h.committed?.id).toBe(res.body.id);
  });

  it('drafts are not published; a draft sent by PATCH is, once', async () => {
    const thread = await newThread();
    const heard = listen();
    const draft = await post(thread.id, { message: 'Utkast', is_draft: true });
    expect(heard).toHaveLength(0);
    await app.http('PATCH', `/api/v2/chat/threads/${thread.id}/messages/${draft.body.id}`, { token: t.user.token, body: { message: 'Utkast 2' } });
    expect(heard).toHaveLength(0);
    await app.http('PATCH', `/api/v2/chat/threads/${thread.id}/messages/${draft.body.id}`, { token: t.user.token, body: { is_draft: false } });
    await app.http('PATCH', `/api/v2/chat/threads/${thread.id}/messages/${draft.body.id}`, { token: t.user.token, body: { message: 'Rettet etter sending' } });
    expect(heard.map((h) => [h.message.id, h.message.message])).toEqual([[draft.body.id, 'Utkast 2']]);
  });

  it('POST /chat/threads with messages: each published message in order, after the thread and all its messages committed', async () => {
    const heard = listen();
    const thread = await newThread({ messages: [{ message: 'én' }, { message: 'kladd', is_draft: true }, { message: 'to' }] });
    expect(heard.map((h) => h.message.message)).toEqual(['én', 'to']);
    expect(heard.every((h) => h.thread.id === thread.id && h.committed !== null)).toBe(true);
  });

  it('nothing is published for a write that rolls back (a refused attachment, a refused message of a new thread)', async () => {
    const thread = await newThread();
    const heard = listen();
    const file = await upload(app, { client_account_id: t.account.id, type: 'ATTACHMENT' }, { bytes: await pdfBytes(1), name: 'feil-type.pdf' }, t.user.token);
    expect((await post(thread.id, { message: 'se vedlegg', attachment_ids: [file.body.id] })).status).toBe(403);
    const res = await app.http('POST', '/api/v2/chat/threads', { token: t.user.token, body: { client_account_id: t.account.id, messages: [{ message: 'ok' }, { approves_message_id: 2147483647 }] } });
    expect(res.status).toBe(400);
    expect(heard).toEqual([]);
  });

  it('a listener that throws is logged; the request still succeeds and the next listener still runs', async () => {
    const thread = await newThread();
    unregister.push(
      onMessagePublished(() => {
        throw new Error('the assistant is down');
      }),
    );
    const heard = listen();
    logLines.length = 0;
    const res = await post(thread.id, { message: 'Hei' });
    expect(res.status).toBe(201);
    expect(heard.map((h) => h.message.id)).toEqual([res.body.id]);
    expect(logLines).toContainEqual(expect.objectContaining({ msg: 'a chat message listener failed', err: expect.objectContaining({ message: 'the assistant is down' }) }));
  });

  it('a listener answers through postMessage with the tool columns (from_user_id null); its answer is published too, and notify: false keeps one from the listeners', async () => {
    const thread = await newThread();
    const call = { id: 'c1', type: 'function' as const, function: { name: 'create_journal_entry', arguments: '{"amount":"100.00"}' } };
    const heard = listen(async (ctx, th, message) => {
      if (message.fromUserId === null) return; // its own answers
      // the shapes of src/modules/chat/tool-shapes.ts
      await postMessage(ctx, th.id, {
        fromUserId: null,
        message: 'Forhåndsvisning:',
        toolCalls: [call],
        toolResults: [{ tool_call_id: 'c1', name: 'create_journal_entry', is_error: false, content: '{"lines":2}' }],
        previews: [{ tool_call_id: 'c1', type: 'JournalEntry', id: null, operation: 'createJournalEntry', need_approval: false, reasons: [] }],
        toolMode: 'PREVIEW',
      });
      await postMessage(ctx, th.id, { fromUserId: null, toolCalls: [call], toolResults: [], previews: [], toolMode: 'WRITE', notify: false });
    });
    const res = await post(thread.id, { message: 'Før 100 kr på kontor' });
    expect(res.status).toBe(201);
    expect(heard.map((h) => [h.message.fromUserId, h.message.toolMode])).toEqual([
      [t.user.id, null],
      [null, 'PREVIEW'],
    ]);
    const list = await app.http('GET', `/api/v2/chat/threads/${thread.id}/messages`, { token: t.user.token });
    expect(list.body.data.map((m: any) => [m.from_user_id, m.tool_mode, m.created_by_id])).toEqual([
      [t.user.id, null, t.user.id],
      [null, 'PREVIEW', t.user.id],
      [null, 'WRITE', t.user.id],
    ]);
    expect(list.body.data[1]).toMatchObject({
      message: 'Forhåndsvisning:',
      tool_calls: [call],
      tool_results: [{ tool_call_id: 'c1', name: 'create_journal_entry', is_error: false, content: '{"lines":2}' }],
      previews: [{ tool_call_id: 'c1', type: 'JournalEntry', id: null, operation: 'createJournalEntry', need_approval: false, reasons: [] }],
    });
  });

  it('postMessage takes the legacy code-action columns; the public input takes none of the trusted columns (400)', async () => {
    const thread = await newThread();
    const legacy = await postMessage(systemContext(app.db.prisma), thread.id, {
      fromUserId: null,
      message: '```coderesult\n{"type":"journal_entry","needs_approval":true,"id":5}\n```',
      actionItems: [{ type: 'journal_entry', needs_approval: true, id: 5 }],
      actionMode: 'preview',
      actionError: true,
    });
    const list = await app.http('GET', `/api/v2/chat/threads/${thread.id}/messages`, { token: t.user.token });
    expect(list.body.data.find((m: any) => m.id === legacy.id)).toMatchObject({
      message: '```coderesult\n[hidden]\n```',
      action_items: [{ type: 'journal_entry', needs_approval: true, id: 5 }],
      action_mode: 'preview',
      action_error: true,
      tool_mode: null,
      from_user_id: null,
      created_by_id: null,
    });
    for (const field of ['tool_calls', 'tool_results', 'previews', 'tool_mode', 'action_items', 'action_mode', 'action_error', 'from_user_id']) {
      const res = await post(thread.id, { message: 'x', [field]: null });
      expect(res, field).toMatchObject({ status: 400, body: { error: expect.stringContaining(`${field}: is not a known field`) } });
    }
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a preview without need_approval', { previews: [{ call_id: 'c1' }], toolMode: 'PREVIEW' }, /previews\.0\.need_approval/],
    ['an unknown tool_mode', { toolCalls: [], toolMode: 'DRY_RUN' }, /toolMode/],
    ['an action_mode other than preview or write', { actionItems: [], actionMode: 'read' }, /actionMode/],
    ['no content at all', { fromUserId: null }, /message: is required unless the message approves, attaches or records tool calls/],
  ])('postMessage refuses %s', async (_rule, input, message) => {
    const thread = await newThread();
    await expect(postMessage(systemContext(app.db.prisma), thread.id, input)).rejects.toThrow(ValidationError);
    await expect(postMessage(systemContext(app.db.prisma), thread.id, input)).rejects.toThrow(message);
  });

  it('postMessage checks the caller\'s access to the thread like every entry point', async () => {
    const stranger = await app.seed.tenant();
    const thread = await newThread();
    await expect(postMessage(app.seed.contextOf(stranger.user), thread.id, { message: 'inn' })).rejects.toThrow(/do not have access/);
  });
});
