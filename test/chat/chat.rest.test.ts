import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postMessage } from '../../src/modules/chat/chat.service.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant, TestUser } from '../support/seed.ts';
import { pdfBytes, pngBytes } from '../support/vouchers.ts';
import { fetchUrl, upload } from '../files/helpers.ts';

// spec 002 "Chat thread, message, participant" and "Chat": every endpoint, rule and error.
// Errors: "403 no access to the thread's client account or provider account (or attachment not
// eligible); 404 thread or message not found; 400 on message create when message,
// approves_message_id and attachment_ids are all missing, attachment_ids is not a list of integers,
// approves_message_id does not reference a PREVIEW message in the thread, or that preview is already
// approved." Error body {error, status}.
describe.each(targets())('chat REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
  });
  afterAll(async () => {
    await app?.close();
  });

  const createThread = (body: unknown, token = t.user.token) => app.http('POST', '/api/v2/chat/threads', { token, body });
  const getThread = (id: number, token = t.user.token, qs = '') => app.http('GET', `/api/v2/chat/threads/${id}${qs}`, { token });
  const listThreads = (qs: string, token = t.user.token) => app.http('GET', `/api/v2/chat/threads?${qs}`, { token });
  const post = (threadId: number, body: unknown, token = t.user.token) => app.http('POST', `/api/v2/chat/threads/${threadId}/messages`, { token, body });
  const patch = (threadId: number, messageId: number, body: unknown, token = t.user.token) =>
    app.http('PATCH', `/api/v2/chat/threads/${threadId}/messages/${messageId}`, { token, body });
  const messages = (threadId: number, qs = '', token = t.user.token) => app.http('GET', `/api/v2/chat/threads/${threadId}/messages?${qs}`, { token });
  const participants = (threadId: number, token = t.user.token, qs = '') => app.http('GET', `/api/v2/chat/threads/${threadId}/participants${qs}`, { token });
  const addParticipant = (threadId: number, body: unknown, token = t.user.token) => app.http('POST', `/api/v2/chat/threads/${threadId}/participants`, { token, body });

  /** A thread of `tenant` (subject unique per call), made by its user. */
  async function thread(tenant: Tenant = t, body: Record<string, unknown> = {}): Promise<any> {
    const res = await createThread({ client_account_id: tenant.account.id, subject: `Tråd ${Math.random()}`, ...body }, tenant.user.token);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  /** A tool-calling PREVIEW message of the assistant, as the assistant branch posts it (trusted columns). */
  const preview = (threadId: number) =>
    postMessage(app.seed.system, threadId, {
      fromUserId: null,
      message: 'Jeg kan bokføre dette.',
      // the published shapes (src/assistant/tool-calls.ts); approving it re-runs the read and writes nothing
      toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'list_projects', arguments: JSON.stringify({ client_account_id: t.account.id }) } }],
      toolResults: [{ tool_call_id: 'call_1', name: 'list_projects', is_error: false, content: '{}' }],
      previews: [{ tool_call_id: 'call_1', type: 'JournalEntry', id: null, operation: 'createJournalEntry', need_approval: true, reasons: ['final'] }],
      toolMode: 'PREVIEW',
    });

  /** A provider firm (industry 69.201) serving `tenant`, and a user of the firm who is no AA/BK (so not eligible for the client itself). */
  async function providerFor(tenant: Tenant): Promise<{ provider: Tenant; staff: TestUser }> {
    const provider = await app.seed.tenant({ industryCode: '69.201' });
    await app.seed.linkProvider(provider.account.id, tenant.account.id);
    const staff = await app.seed.user();
    await app.seed.grantRole({ userId: staff.id, clientAccountId: provider.account.id, role: 'EM' });
    return { provider, staff };
  }

  async function chatFile(tenant: Tenant, bytes: Buffer, name: string, type = 'CHAT_ATTACHMENT', token = tenant.user.token): Promise<any> {
    const res = await upload(app, { client_account_id: tenant.account.id, type }, { bytes, name }, token);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  describe('threads', () => {
    it('POST: 201 with every thread field; is_completed and is_archived default false; the creator is its first participant', async () => {
      const made = await createThread({ client_account_id: t.account.id, subject: 'MVA-melding' });
      expect(made.status).toBe(201);
      expect(made.body).toEqual({
        id: expect.any(Number),
        created_by_id: t.user.id,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        last_message_created_at: null,
        client_account_id: t.account.id,
        provider_client_account_id: null,
        subject: 'MVA-melding',
        relation_type: null,
        relation_id: null,
        is_completed: false,
        is_archived: false,
      });
      const people = await participants(made.body.id);
      expect(people.body).toEqual([{ id: expect.any(Number), thread_id: made.body.id, user_id: t.user.id, created_by_id: t.user.id, created_at: expect.any(String) }]);
    });

    it('POST with messages: posted in order in the same transaction; last_message_created_at is the newest published one (drafts do not count)', async () => {
      const made = await thread(t, { messages: [{ message: 'Første' }, { message: 'Andre' }, { message: 'Utkast', is_draft: true }] });
      const list = await messages(made.id);
      expect(list.body.data.map((m: any) => [m.message, m.is_draft])).toEqual([['Første', false], ['Andre', false], ['Utkast', true]]);
      expect(made.last_message_created_at).toBe(list.body.data[1].created_at);
      expect(made.is_completed).toBe(false);
    });

    it('POST: a problem with any message rolls the whole thread back, naming messages.<i>.<field>', async () => {
      const subject = `Rull tilbake ${Math.random()}`;
      const res = await createThread({ client_account_id: t.account.id, subject, messages: [{ message: 'ok' }, { is_draft: true }] });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('messages.1.message'), status: 400 } });
      expect(await app.db.prisma.chatThread.count({ where: { subject } })).toBe(0);
    });

    it.each<[string, Record<string, unknown>, RegExp]>([
      ['client_account_id missing', { client_account_id: undefined }, /client_account_id/],
      ['subject over 500 characters', { subject: 'x'.repeat(501) }, /subject/],
      ['relation_id without relation_type', { relation_id: 5 }, /relation_type: is required with relation_id/],
      ['relation_type without relation_id', { relation_type: 'voucher' }, /relation_id: is required with relation_type/],
      ['relation_type over 50 characters', { relation_type: 'x'.repeat(51), relation_id: 5 }, /relation_type: must be at most 50 characters/],
      ['a relation to a voucher that is not in the account', { relation_type: 'voucher', relation_id: 2147483647 }, /relation_id: voucher 2147483647 does not exist in client account/],
      ['is_archived not a boolean', { is_archived: 'yes' }, /is_archived/],
      ['an unknown field', { colour: 'red' }, /colour: is not a known field/],
      ['more than 50 messages', { messages: Array.from({ length: 51 }, () => ({ message: 'x' })) }, /messages: must hold at most 50 messages/],
    ])('POST: %s is 400', async (_rule, body, message) => {
      const res = await createThread({ client_account_id: t.account.id, ...body });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(message), status: 400 } });
    });

    it('POST: relation_type is stored lower-case; a relation to a record of the account is checked and kept; other kinds are kept unchecked', async () => {
      const partner = await app.db.prisma.businessPartner.create({ data: { clientAccountId: t.account.id, name: 'Leverandør AS', isSupplier: true } });
      const made = await thread(t, { relation_type: 'BusinessPartner', relation_id: partner.id });
      expect(made).toMatchObject({ relation_type: 'businesspartner', relation_id: partner.id });
      expect(await thread(t, { relation_type: 'payroll_run', relation_id: 77 })).toMatchObject({ relation_type: 'payroll_run', relation_id: 77 });
    });

    it('spec 002: "relation_type (e.g. document, businesspartner)" names no allowed values: any text of at most 50 characters is kept (trimmed, lower-cased), and found by the list filter', async () => {
      const made = await thread(t, { relation_type: ' Bank-Account Statement ', relation_id: 12 });
      expect(made).toMatchObject({ relation_type: 'bank-account statement', relation_id: 12 });
      const found = await app.http('GET', `/api/v2/chat/threads?client_account_id=${t.account.id}&relation_type=Bank-Account%20Statement&relation_id=12`, { token: t.user.token });
      expect(found.body.data.map((x: any) => x.id)).toEqual([made.id]);
      expect(await thread(t, { relation_type: 'ÆØÅ-sak '.padEnd(50, 'x'), relation_id: 1 })).toMatchObject({ relation_type: 'æøå-sak '.padEnd(50, 'x') });
    });

    it('POST: 403 for another client account and for a read-only token', async () => {
      expect(await createThread({ client_account_id: other.account.id })).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
      expect((await createThread({ client_account_id: t.account.id }, t.user.readToken)).status).toBe(403);
    });

    it('"Caller needs access to client_account_id or provider_client_account_id": a provider firm\'s user may open a thread with a client it serves, not with others', async () => {
      const client = await app.seed.tenant();
      const { provider, staff } = await providerFor(client);
      const res = await createThread({ client_account_id: client.account.id, provider_client_account_id: provider.account.id, subject: 'Årsoppgjør' }, staff.token);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ client_account_id: client.account.id, provider_client_account_id: provider.account.id, created_by_id: staff.id });
      // the client's own users see it too
      expect((await getThread(res.body.id, client.user.token)).status).toBe(200);
      // naming your own account as provider opens no other client
      expect((await createThread({ client_account_id: other.account.id, provider_client_account_id: provider.account.id }, staff.token)).status).toBe(403);
      // without a provider the firm's user has no access to the client account
      expect((await createThread({ client_account_id: client.account.id }, staff.token)).status).toBe(403);
    });

    it('POST: a provider that does not serve the client account is 400 for the client\'s user', async () => {
      const stranger = await app.seed.tenant({ industryCode: '69.201' });
      const res = await createThread({ client_account_id: t.account.id, provider_client_account_id: stranger.account.id });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(/provider_client_account_id: client account \d+ is not a provider account serving/), status: 400 } });
    });

    it('GET /chat/threads/{id}: 200; 403 for another account\'s thread; 404 for none', async () => {
      const mine = await thread();
      expect((await getThread(mine.id)).body).toEqual(mine);
      const withPeople = await getThread(mine.id, t.user.token, '?with=participants.user');
      expect(withPeople.body.participants).toEqual([
        { id: expect.any(Number), thread_id: mine.id, user_id: t.user.id, created_by_id: t.user.id, created_at: expect.any(String), user: { id: t.user.id, first_name: 'Test', last_name: 'User', email: t.user.email } },
      ]);
      expect((await getThread(mine.id, t.user.token, '?with=participants')).body.participants[0]).not.toHaveProperty('user');
      const theirs = await thread(other);
      expect(await getThread(theirs.id)).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
      expect(await getThread(2147483647)).toMatchObject({ status: 404, body: { error: expect.stringContaining('not found'), status: 404 } });
    });

    it('a provider\'s user loses access when the provider no longer serves the client', async () => {
      const client = await app.seed.tenant();
      const { provider, staff } = await providerFor(client);
      const made = (await createThread({ client_account_id: client.account.id, provider_client_account_id: provider.account.id }, staff.token)).body;
      expect((await getThread(made.id, staff.token)).status).toBe(200);
      await app.db.prisma.providerRelationship.deleteMany({ where: { providerAccountId: provider.account.id, clientAccountId: client.account.id } });
      expect((await getThread(made.id, staff.token)).status).toBe(403);
      expect((await listThreads('', staff.token)).body.data.map((x: any) => x.id)).not.toContain(made.id);
    });

    it('PATCH /chat/threads/{id} (designed here): subject, is_completed, is_archived; omitted fields keep their value; 403; 404', async () => {
      const made = await thread();
      const res = await app.http('PATCH', `/api/v2/chat/threads/${made.id}`, { token: t.user.token, body: { is_completed: true, is_archived: true } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ id: made.id, subject: made.subject, is_completed: true, is_archived: true });
      const renamed = await app.http('PATCH', `/api/v2/chat/threads/${made.id}`, { token: t.user.token, body: { subject: 'Nytt emne', is_archived: false } });
      expect(renamed.body).toMatchObject({ subject: 'Nytt emne', is_completed: true, is_archived: false });
      expect((await app.http('PATCH', `/api/v2/chat/threads/${made.id}`, { token: other.user.token, body: { subject: 'x' } })).status).toBe(403);
      expect((await app.http('PATCH', '/api/v2/chat/threads/2147483647', { token: t.user.token, body: { subject: 'x' } })).status).toBe(404);
    });
  });

  describe('GET /chat/threads', () => {
    it('without client_account_id: the threads of every account the caller may use, and those a provider of the caller takes part in', async () => {
      const client = await app.seed.tenant();
      const { provider, staff } = await providerFor(client);
      const own = await thread(provider); // the firm's own thread
      const served = (await createThread({ client_account_id: client.account.id, provider_client_account_id: provider.account.id }, client.user.token)).body;
      const clientOnly = await thread(client);
      await app.seed.grantRole({ userId: staff.id, clientAccountId: provider.account.id, role: 'CA' });
      const res = await listThreads('', staff.token);
      expect(res.status).toBe(200);
      const ids = res.body.data.map((x: any) => x.id);
      expect(ids).toEqual(expect.arrayContaining([own.id, served.id]));
      expect(ids).not.toContain(clientOnly.id);
      expect(res.body.meta).toEqual({ page: 1, pages: 1, per_page: 100, records: 2 });
      // naming the served client lists what the caller may see of it
      expect((await listThreads(`client_account_id=${client.account.id}`, staff.token)).body.data.map((x: any) => x.id)).toEqual([served.id]);
      expect((await listThreads(`provider_client_account_id=${provider.account.id}`, staff.token)).body.data.map((x: any) => x.id)).toEqual([served.id]);
    });

    it('client_account_id of an account the caller cannot use is 403; malformed is 400', async () => {
      expect(await listThreads(`client_account_id=${other.account.id}`)).toMatchObject({ status: 403, body: { status: 403 } });
      expect(await listThreads(`provider_client_account_id=${other.account.id}`)).toMatchObject({ status: 403, body: { status: 403 } });
      expect((await listThreads('client_account_id=abc')).status).toBe(400);
    });

    it('filters: relation_type (any case) + relation_id, provider_client_account_id, is_completed, is_archived', async () => {
      const tenant = await app.seed.tenant();
      const doc = await app.db.prisma.businessPartner.create({ data: { clientAccountId: tenant.account.id, name: 'Kunde AS', isCustomer: true } });
      const about = await thread(tenant, { relation_type: 'businesspartner', relation_id: doc.id });
      const done = await thread(tenant, { is_completed: true });
      const archived = await thread(tenant, { is_archived: true });
      const ids = async (qs: string) => (await listThreads(`client_account_id=${tenant.account.id}&${qs}`, tenant.user.token)).body.data.map((x: any) => x.id).sort();
      expect(await ids(`relation_type=BusinessPartner&relation_id=${doc.id}`)).toEqual([about.id]);
      expect(await ids('is_completed=true')).toEqual([done.id]);
      expect(await ids('is_archived=true')).toEqual([archived.id]);
      expect(await ids('is_archived=false&is_completed=false')).toEqual([about.id]);
    });

    it('free_text: "case-insensitive partial word match over subjects and messages", every word must match', async () => {
      const tenant = await app.seed.tenant();
      const bySubject = await thread(tenant, { subject: 'Spørsmål om Reiseregning' });
      const byMessage = await thread(tenant, { subject: 'Annet', messages: [{ message: 'Kan du se på fakturaen fra Elkjøp?' }] });
      const both = await thread(tenant, { subject: 'Reise', messages: [{ message: 'elkjøp-kvittering' }] });
      const found = async (text: string, token = tenant.user.token) =>
        (await listThreads(`client_account_id=${tenant.account.id}&free_text=${encodeURIComponent(text)}`, token)).body.data.map((x: any) => x.id).sort((a: number, b: number) => a - b);
      expect(await found('reiseREGN')).toEqual([bySubject.id]);
      expect(await found('faktura')).toEqual([byMessage.id]);
      expect(await found('ELKJØP')).toEqual([byMessage.id, both.id]);
      expect(await found('reise elkjøp')).toEqual([both.id]);
      expect(await found('%')).toEqual([]);
    });

    it('free_text ignores hidden code block contents and the drafts of others', async () => {
      const tenant = await app.seed.tenant();
      const colleague = await app.seed.user();
      await app.seed.grantRole({ userId: colleague.id, clientAccountId: tenant.account.id, role: 'EM' });
      const code = await thread(tenant, { subject: 'Kode', messages: [{ message: 'Synlig tekst\n```codeaction\nhemmeligkode()\n```\n```coderesult\nresultatord\n```\netterord' }] });
      const draft = await thread(tenant, { subject: 'Utkast', messages: [{ message: 'utkastord', is_draft: true }] });
      const found = async (text: string, token = tenant.user.token) =>
        (await listThreads(`client_account_id=${tenant.account.id}&free_text=${text}`, token)).body.data.map((x: any) => x.id);
      expect(await found('synlig')).toEqual([code.id]);
      expect(await found('etterord')).toEqual([code.id]);
      expect(await found('hemmeligkode')).toEqual([]);
      expect(await found('resultatord')).toEqual([]);
      expect(await found('utkastord')).toEqual([draft.id]);
      expect(await found('utkastord', colleague.token)).toEqual([]);
    });

    it('order_by: default latest message first (threads without messages after, newest first); created_at and -created_at; an unknown field is 400', async () => {
      const tenant = await app.seed.tenant();
      const a = await thread(tenant, { subject: 'A' });
      const b = await thread(tenant, { subject: 'B' });
      const c = await thread(tenant, { subject: 'C' });
      await post(c.id, { message: 'først' }, tenant.user.token);
      await post(a.id, { message: 'sist' }, tenant.user.token);
      const order = async (qs: string) => (await listThreads(`client_account_id=${tenant.account.id}${qs}`, tenant.user.token)).body.data.map((x: any) => x.subject);
      expect(await order('')).toEqual(['A', 'C', 'B']);
      expect(await order('&order_by=-last_message_created_at')).toEqual(['A', 'C', 'B']);
      expect(await order('&order_by=created_at')).toEqual(['A', 'B', 'C']);
      expect(await order('&order_by=-created_at')).toEqual(['C', 'B', 'A']);
      expect(await order('&order_by=subject&per_page=2&page=2')).toEqual(['C']);
      expect(await listThreads(`client_account_id=${tenant.account.id}&order_by=password`, tenant.user.token)).toMatchObject({ status: 400, body: { error: expect.stringContaining("cannot order by 'password'") } });
      expect(b.id).toBeGreaterThan(a.id);
    });
  });

  describe('messages', () => {
    it('POST: 201 with every message field; ordinary messages have null tool columns, [] action_items; the sender becomes a participant and last_message_created_at moves', async () => {
      const made = await thread();
      const colleague = await app.seed.user();
      await app.seed.grantRole({ userId: colleague.id, clientAccountId: t.account.id, role: 'EM' });
      const res = await post(made.id, { message: 'Hei **der**' }, colleague.token);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        thread_id: made.id,
        from_user_id: colleague.id,
        message: 'Hei **der**',
        is_draft: false,
        created_at: expect.any(String),
        created_by_id: colleague.id,
        updated_at: expect.any(String),
        action_items: [],
        action_mode: null,
        action_error: false,
        tool_calls: null,
        tool_results: null,
        previews: null,
        tool_mode: null,
        approves_message_id: null,
        approved_by_message_id: null,
        attachments: [],
      });
      expect((await getThread(made.id)).body.last_message_created_at).toBe(res.body.created_at);
      expect((await participants(made.id)).body.map((p: any) => p.user_id)).toEqual([t.user.id, colleague.id]);
    });

    it.each<[string, Record<string, unknown>, RegExp]>([
      ['message, approves_message_id and attachment_ids all missing', {}, /message: is required unless approves_message_id or attachment_ids is given/],
      ['a message of blanks only', { message: '   ' }, /message: is required/],
      ['an empty attachment_ids with no message', { attachment_ids: [] }, /message: is required/],
      ['attachment_ids not a list of integers (strings)', { message: 'x', attachment_ids: ['a'] }, /attachment_ids/],
      ['attachment_ids not a list of integers (decimals)', { message: 'x', attachment_ids: [1.5] }, /attachment_ids/],
      ['attachment_ids not a list at all', { message: 'x', attachment_ids: { id: 1 } }, /attachment_ids/],
      ['a message over 50,000 characters', { message: 'x'.repeat(50_001) }, /message: must be at most 50000 characters/],
      ['is_draft not a boolean', { message: 'x', is_draft: 'no' }, /is_draft/],
    ])('POST: %s is 400', async (_rule, body, message) => {
      const made = await thread();
      const res = await post(made.id, body);
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(message), status: 400 } });
    });

    it('POST: 403 for another account\'s thread, 404 for no thread, 403 for a read-only token', async () => {
      const theirs = await thread(other);
      expect(await post(theirs.id, { message: 'x' })).toMatchObject({ status: 403, body: { status: 403 } });
      expect(await post(2147483647, { message: 'x' })).toMatchObject({ status: 404, body: { status: 404 } });
      expect((await post((await thread()).id, { message: 'x' }, t.user.readToken)).status).toBe(403);
    });

    it('approves_message_id: "Refers to an unapproved PREVIEW message in the thread"; the approval needs no text and marks the preview approved', async () => {
      const made = await thread();
      const p = await preview(made.id);
      const res = await post(made.id, { approves_message_id: p.id });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ approves_message_id: p.id, message: null, from_user_id: t.user.id });
      const list = (await messages(made.id)).body.data;
      expect(list.find((m: any) => m.id === p.id)).toMatchObject({
        tool_mode: 'PREVIEW',
        from_user_id: null,
        approved_by_message_id: res.body.id,
        previews: [{ tool_call_id: 'call_1', type: 'JournalEntry', id: null, operation: 'createJournalEntry', need_approval: true, reasons: ['final'] }],
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'list_projects', arguments: JSON.stringify({ client_account_id: t.account.id }) } }],
        tool_results: [{ tool_call_id: 'call_1', name: 'list_projects', is_error: false, content: '{}' }],
      });
    });

    it('approves_message_id 400: not a message, not a PREVIEW message, a preview of another thread, already approved, or sent as a draft', async () => {
      const made = await thread();
      const elsewhere = await thread();
      const ordinary = (await post(made.id, { message: 'vanlig' })).body;
      const write = await postMessage(app.seed.system, made.id, { fromUserId: null, toolCalls: [], toolMode: 'WRITE', previews: [] });
      const foreign = await preview(elsewhere.id);
      const approved = await preview(made.id);
      expect((await post(made.id, { approves_message_id: approved.id })).status).toBe(201);
      const fresh = await preview(made.id);
      const cases: [unknown, RegExp][] = [
        [2147483647, /approves_message_id: message 2147483647 is not a PREVIEW message/],
        [ordinary.id, /is not a PREVIEW message \(tool_mode PREVIEW\) of thread/],
        [write.id, /is not a PREVIEW message/],
        [foreign.id, new RegExp(`message ${foreign.id} is not a PREVIEW message \\(tool_mode PREVIEW\\) of thread ${made.id}`)],
        [approved.id, new RegExp(`message ${approved.id} is already approved`)],
      ];
      for (const [id, message] of cases) {
        expect(await post(made.id, { approves_message_id: id }), String(id)).toMatchObject({ status: 400, body: { error: expect.stringMatching(message), status: 400 } });
      }
      expect(await post(made.id, { approves_message_id: fresh.id, is_draft: true })).toMatchObject({ status: 400, body: { error: expect.stringContaining('cannot be a draft') } });
    });

    it('two approvals of one preview at once: one is 201, the other 400 "already approved" (a preview is approved once)', async () => {
      const made = await thread();
      const p = await preview(made.id);
      const results = await Promise.all([post(made.id, { approves_message_id: p.id }), post(made.id, { approves_message_id: p.id })]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
      expect(results.find((r) => r.status === 400)!.body.error).toContain(`message ${p.id} is already approved`);
      expect(await app.db.prisma.chatMessage.count({ where: { approvesMessageId: p.id } })).toBe(1);
    });

    it('attachments: CHAT_ATTACHMENT images and PDFs uploaded by the sender render as file records with thumbnail_url, preview_url, download_url', async () => {
      const made = await thread();
      const pdf = await chatFile(t, await pdfBytes(2), 'kvittering.pdf');
      const png = await chatFile(t, pngBytes(), 'bilde.png');
      const res = await post(made.id, { attachment_ids: [pdf.id, png.id] });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.message).toBeNull();
      expect(res.body.attachments).toEqual([
        expect.objectContaining({ id: pdf.id, file_name: 'kvittering.pdf', content_type: 'application/pdf', page_count: 2, created_by_id: t.user.id }),
        expect.objectContaining({ id: png.id, file_name: 'bilde.png', content_type: 'image/png', page_count: 1 }),
      ]);
      for (const a of res.body.attachments) {
        for (const url of [a.thumbnail_url, a.preview_url, a.download_url]) expect((await fetchUrl(url)).status).toBe(200);
      }
      expect(await app.db.prisma.storedFile.count({ where: { id: { in: [pdf.id, png.id] }, chatMessageId: res.body.id } })).toBe(2);
    });

    it('spec 002: "attachment_ids (array of integers …)": a file named twice is attached once (201), not refused', async () => {
      const made = await thread();
      const pdf = await chatFile(t, await pdfBytes(1), 'to-ganger.pdf');
      const res = await post(made.id, { message: 'Samme fil', attachment_ids: [pdf.id, pdf.id] });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.attachments.map((a: any) => a.id)).toEqual([pdf.id]);
      expect((await app.db.prisma.storedFile.findUniqueOrThrow({ where: { id: pdf.id } })).chatMessageId).toBe(res.body.id);
    });

    it('attachments: 403 "attachment not eligible" — another type, another uploader, another account, already attached, no such file, not an image or PDF', async () => {
      const made = await thread();
      const colleague = await app.seed.user();
      await app.seed.grantRole({ userId: colleague.id, clientAccountId: t.account.id, role: 'EM' });
      const attachment = await chatFile(t, await pdfBytes(1), 'vedlegg.pdf', 'ATTACHMENT');
      const byColleague = await chatFile(t, await pdfBytes(1), 'kollega.pdf', 'CHAT_ATTACHMENT', colleague.token);
      const foreign = await chatFile(other, await pdfBytes(1), 'fremmed.pdf');
      const used = await chatFile(t, await pdfBytes(1), 'brukt.pdf');
      expect((await post(made.id, { attachment_ids: [used.id] })).status).toBe(201);
      const text = await app.db.prisma.storedFile.create({
        data: { clientAccountId: t.account.id, type: 'CHAT_ATTACHMENT', fileName: 'notat.txt', contentType: 'text/plain', size: 1, sha256: '0'.repeat(64), storageKey: `${t.account.id}/notat-${Math.random()}`, createdById: t.user.id },
      });
      const cases: [number, RegExp][] = [
        [attachment.id, /was uploaded with type ATTACHMENT, not CHAT_ATTACHMENT/],
        [byColleague.id, /was uploaded by another user/],
        [foreign.id, new RegExp(`is not a file of client account ${t.account.id}`)],
        [used.id, /is already attached to message \d+/],
        [2147483647, /is not a file of client account/],
        [text.id, /is text\/plain; only images and PDF can be attached/],
      ];
      for (const [id, message] of cases) {
        expect(await post(made.id, { message: 'se vedlegg', attachment_ids: [id] }), String(id)).toMatchObject({ status: 403, body: { error: expect.stringMatching(message), status: 403 } });
      }
      // nothing of a refused message is written
      expect((await messages(made.id)).body.meta.records).toBe(1);
    });

    it('one file attached by two messages at once: one is 201, the other 403 "already attached"', async () => {
      const made = await thread();
      const file = await chatFile(t, await pdfBytes(1), 'samtidig.pdf');
      const results = await Promise.all([post(made.id, { attachment_ids: [file.id] }), post(made.id, { attachment_ids: [file.id] })]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 403]);
      expect(results.find((r) => r.status === 403)!.body.error).toMatch(new RegExp(`attachment_ids: file ${file.id} is already attached to message \\d+`));
      expect((await messages(made.id)).body.meta.records).toBe(1);
    });

    it('drafts: visible to their sender only, not counted as the last message; sending one by PATCH publishes it at the time it is sent', async () => {
      const made = await thread();
      const colleague = await app.seed.user();
      await app.seed.grantRole({ userId: colleague.id, clientAccountId: t.account.id, role: 'EM' });
      const draft = await post(made.id, { message: 'Utkast', is_draft: true });
      expect(draft.body).toMatchObject({ is_draft: true, from_user_id: t.user.id });
      expect((await getThread(made.id)).body.last_message_created_at).toBeNull();
      expect((await messages(made.id)).body.data.map((m: any) => m.id)).toEqual([draft.body.id]);
      expect((await messages(made.id, '', colleague.token)).body).toMatchObject({ data: [], meta: { records: 0 } });
      expect((await patch(made.id, draft.body.id, { message: 'Kapret' }, colleague.token)).status).toBe(404);

      const sent = await patch(made.id, draft.body.id, { message: 'Ferdig tekst', is_draft: false });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      expect(sent.body).toMatchObject({ id: draft.body.id, message: 'Ferdig tekst', is_draft: false, from_user_id: t.user.id });
      expect(Date.parse(sent.body.created_at)).toBeGreaterThanOrEqual(Date.parse(draft.body.created_at));
      expect((await getThread(made.id)).body.last_message_created_at).toBe(sent.body.created_at);
      expect((await messages(made.id, '', colleague.token)).body.data.map((m: any) => m.message)).toEqual(['Ferdig tekst']);
    });

    it('PATCH: "message, is_draft only; caller becomes from_user_id; response status 201" — the assistant\'s draft is sent by the user it was made for', async () => {
      const made = await thread();
      const ctx = app.seed.contextOf(t.user);
      const suggestion = await postMessage(ctx, made.id, { fromUserId: null, message: 'Forslag fra assistenten', isDraft: true });
      expect(suggestion).toMatchObject({ fromUserId: null, createdById: t.user.id, isDraft: true });
      const res = await patch(made.id, suggestion.id, { is_draft: false });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ from_user_id: t.user.id, created_by_id: t.user.id, is_draft: false, message: 'Forslag fra assistenten' });
      // only message and is_draft change: other fields of the message echoed back are ignored, unknown ones are 400
      const p = await preview(made.id);
      const echoed = await patch(made.id, suggestion.id, { ...res.body, approves_message_id: p.id, message: 'Rettet' });
      expect(echoed).toMatchObject({ status: 201, body: { approves_message_id: null, message: 'Rettet' } });
      expect(await patch(made.id, suggestion.id, { colour: 'red' })).toMatchObject({ status: 400, body: { error: expect.stringContaining('colour: is not a known field') } });
    });

    it('spec 002 PATCH "caller becomes from_user_id": a sent message edited by another user with access is theirs now (no 403 but for no access); never made a draft again (400); tool messages are not edited (400); 404 for another thread\'s message', async () => {
      const made = await thread();
      const colleague = await app.seed.user();
      await app.seed.grantRole({ userId: colleague.id, clientAccountId: t.account.id, role: 'EM' });
      const sent = (await post(made.id, { message: 'Original' })).body;
      const edited = await patch(made.id, sent.id, { message: 'Rettet' });
      expect(edited).toMatchObject({ status: 201, body: { message: 'Rettet', is_draft: false } });
      expect(await patch(made.id, sent.id, { message: 'Overtatt' }, colleague.token)).toMatchObject({ status: 201, body: { message: 'Overtatt', from_user_id: colleague.id, is_draft: false } });
      expect(await patch(made.id, sent.id, { is_draft: true })).toMatchObject({ status: 400, body: { error: expect.stringContaining('is_draft: a sent message cannot become a draft again') } });
      expect(await patch(made.id, sent.id, { message: '' })).toMatchObject({ status: 400, body: { error: expect.stringContaining('message: is required') } });
      const tool = await preview(made.id);
      expect(await patch(made.id, tool.id, { message: 'x' })).toMatchObject({ status: 400, body: { error: expect.stringContaining('cannot be edited') } });
      const elsewhere = await thread();
      expect(await patch(elsewhere.id, sent.id, { message: 'x' })).toMatchObject({ status: 404, body: { status: 404 } });
      expect((await patch(made.id, 2147483647, { message: 'x' })).status).toBe(404);
      expect((await patch((await thread(other)).id, sent.id, { message: 'x' })).status).toBe(403);
    });

    it('GET messages (designed here): oldest first, -created_at newest first, paged; codeaction and coderesult contents show as [hidden]; with=from_user', async () => {
      const made = await thread();
      for (const text of ['en', 'to', 'tre']) await post(made.id, { message: text });
      await post(made.id, { message: 'Kjør dette:\n```codeaction\nbook({ amount: 100 })\n```\n```approvecodeaction\n```' });
      const oldest = await messages(made.id);
      // the approved code action (no GraphQL: an error) is answered by a coderesult message of the system
      const result = '```coderesult\n[hidden]\n```';
      expect(oldest.body.data.map((m: any) => m.message)).toEqual(['en', 'to', 'tre', 'Kjør dette:\n```codeaction\n[hidden]\n```\n```approvecodeaction\n```', result]);
      expect(oldest.body.meta).toEqual({ page: 1, pages: 1, per_page: 100, records: 5 });
      expect((await messages(made.id, 'order_by=-created_at&per_page=2&page=1')).body.data.map((m: any) => m.message)).toEqual([result, expect.stringContaining('Kjør')]);
      const withUser = await messages(made.id, 'with=from_user&per_page=1');
      expect(withUser.body.data[0].from_user).toEqual({ id: t.user.id, first_name: 'Test', last_name: 'User', email: t.user.email });
      expect(oldest.body.data[0]).not.toHaveProperty('from_user');
      // the stored text is whole: the assistant branch reads it
      expect((await app.db.prisma.chatMessage.findFirstOrThrow({ where: { threadId: made.id, message: { contains: 'codeaction' } } })).message).toContain('book({ amount: 100 })');
      expect((await messages(2147483647)).status).toBe(404);
      expect((await messages((await thread(other)).id)).status).toBe(403);
    });
  });

  describe('participants', () => {
    it('GET: an array in the order they joined, with=user', async () => {
      const made = await thread();
      const res = await participants(made.id, t.user.token, '?with=user');
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        { id: expect.any(Number), thread_id: made.id, user_id: t.user.id, created_by_id: t.user.id, created_at: expect.any(String), user: { id: t.user.id, first_name: 'Test', last_name: 'User', email: t.user.email } },
      ]);
      expect((await participants(2147483647)).status).toBe(404);
      expect((await participants((await thread(other)).id)).status).toBe(403);
    });

    it('POST: 201 with the participant; adding one already there answers the same participant unchanged', async () => {
      const made = await thread();
      const colleague = await app.seed.user();
      await app.seed.grantRole({ userId: colleague.id, clientAccountId: t.account.id, role: 'EM' });
      const res = await addParticipant(made.id, { user_id: colleague.id });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toEqual({ id: expect.any(Number), thread_id: made.id, user_id: colleague.id, created_by_id: t.user.id, created_at: expect.any(String) });
      const again = await addParticipant(made.id, { user_id: colleague.id });
      expect(again).toMatchObject({ status: 201, body: res.body });
      expect((await participants(made.id)).body.map((p: any) => p.user_id)).toEqual([t.user.id, colleague.id]);
    });

    it('POST: "the user must have access to the thread\'s account" (400), a provider\'s user where the provider takes part; 400 without user_id; 403; 404', async () => {
      const client = await app.seed.tenant();
      const { provider, staff } = await providerFor(client);
      const withProvider = (await createThread({ client_account_id: client.account.id, provider_client_account_id: provider.account.id }, client.user.token)).body;
      const withoutProvider = await thread(client);
      expect((await addParticipant(withProvider.id, { user_id: staff.id }, client.user.token)).status).toBe(201);
      expect(await addParticipant(withoutProvider.id, { user_id: staff.id }, client.user.token)).toMatchObject({
        status: 400,
        body: { error: expect.stringContaining(`user_id: user ${staff.id} does not exist or has no access to client account ${client.account.id}`), status: 400 },
      });
      expect((await addParticipant(withoutProvider.id, { user_id: 2147483647 }, client.user.token)).status).toBe(400);
      expect(await addParticipant(withoutProvider.id, {}, client.user.token)).toMatchObject({ status: 400, body: { error: expect.stringContaining('user_id') } });
      expect((await addParticipant(withoutProvider.id, { user_id: other.user.id })).status).toBe(403);
      expect((await addParticipant(2147483647, { user_id: t.user.id })).status).toBe(404);
    });
  });
});
