import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant, TestUser } from '../support/seed.ts';
import { voucherFactory } from '../support/vouchers.ts';

// spec 002 "Worker task and result": task id, created_at, created_by_id, completed_at (read-only),
// status (PENDING, COMPLETED, CANCELLED), task_type, relation_type, relation_id,
// secondary_relation_type, secondary_relation_id, comment; relations results, consensus. Result id,
// submitted_at, submitted_by_id, task_id, status (SUBMITTED), data. "Worker tasks": every path under
// /worker/tasks and /contributor/tasks; POST 201; PATCH only CANCELLED, only from PENDING; results
// not for COMPLETED tasks (400); "Multiple users may submit results for one task"; errors 400, 403, 404.
describe.each(targets())('worker tasks REST (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let make: ReturnType<typeof voucherFactory>;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    make = voucherFactory(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  const create = (body: unknown, token = t.user.token, prefix = '/contributor') => app.http('POST', `/api/v2${prefix}/tasks`, { token, body });
  const get = (id: number, qs = '', token = t.user.token, prefix = '/contributor') => app.http('GET', `/api/v2${prefix}/tasks/${id}${qs}`, { token });
  const patch = (id: number, body: unknown, token = t.user.token, prefix = '/contributor') => app.http('PATCH', `/api/v2${prefix}/tasks/${id}`, { token, body });
  const submit = (id: number, body: unknown, token = t.user.token, prefix = '/worker') => app.http('POST', `/api/v2${prefix}/tasks/${id}/results`, { token, body });
  const list = (qs: string, token = t.user.token, prefix = '/worker') => app.http('GET', `/api/v2${prefix}/tasks?${qs}`, { token });

  /** A user with CA on the tenant's account (another worker). */
  async function colleague(tenant = t): Promise<TestUser> {
    const u = await app.seed.user();
    await app.seed.grantRole({ userId: u.id, clientAccountId: tenant.account.id, role: 'CA' });
    return u;
  }

  const voucher = async (tenant = t) => (await make.voucher(tenant)).id;

  async function bankTransaction(tenant = t): Promise<number> {
    const prisma = app.db.prisma;
    const bank = await prisma.bankAccount.upsert({
      where: { clientAccountId_accountNumber: { clientAccountId: tenant.account.id, accountNumber: '15032012342' } },
      create: { clientAccountId: tenant.account.id, accountNumber: '15032012342', ledgerAccountId: await tenant.ledgerAccount('1920') },
      update: {},
    });
    const tx = await prisma.bankTransaction.create({
      data: { clientAccountId: tenant.account.id, bankAccountId: bank.id, payeeBankAccountId: bank.id, bookingDate: new Date('2026-11-02'), amount: '1250.000', currencyCode: 'NOK' },
    });
    return tx.id;
  }

  const document = async (tenant = t) => (await app.db.prisma.document.create({ data: { clientAccountId: tenant.account.id, documentType: 'APINV', documentDate: new Date('2026-11-01') } })).id;

  async function classification(tenant = t, token = tenant.user.token): Promise<any> {
    const res = await create({ task_type: 'VOUCHER_CLASSIFICATION', relation_type: 'voucher', relation_id: await voucher(tenant) }, token);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  describe('create', () => {
    it('POST /contributor/tasks: 201 with every field; the task belongs to the voucher’s client account; created_by_id is the caller', async () => {
      const v = await voucher();
      const res = await create({ task_type: 'VOUCHER_CLASSIFICATION', relation_type: 'voucher', relation_id: v, comment: 'Uleselig logo', status: 'PENDING' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        created_at: expect.any(String),
        created_by_id: t.user.id,
        completed_at: null,
        status: 'PENDING',
        task_type: 'VOUCHER_CLASSIFICATION',
        client_account_id: t.account.id,
        relation_type: 'voucher',
        relation_id: v,
        secondary_relation_type: null,
        secondary_relation_id: null,
        comment: 'Uleselig logo',
      });
    });

    it('POST /worker/tasks is the same operation (both prefixes); relation_type is case-insensitive', async () => {
      const res = await create({ task_type: 'VOUCHER_DATA_EXTRACTION', relation_type: 'Voucher', relation_id: await voucher() }, t.user.token, '/worker');
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ task_type: 'VOUCHER_DATA_EXTRACTION', relation_type: 'voucher', client_account_id: t.account.id });
    });

    it.each<[string, () => Promise<Record<string, unknown>>]>([
      ['VOUCHER_CLASSIFICATION about a voucher', async () => ({ relation_type: 'voucher', relation_id: await voucher() })],
      ['VOUCHER_DATA_EXTRACTION about a voucher', async () => ({ relation_type: 'voucher', relation_id: await voucher() })],
      ['VOUCHER_DUPLICATE_CHECK of a voucher against another', async () => ({ relation_type: 'voucher', relation_id: await voucher(), secondary_relation_type: 'voucher', secondary_relation_id: await voucher() })],
      ['BANK_TRANSACTION_MATCH of a bank transaction and a voucher', async () => ({ relation_type: 'bank_transaction', relation_id: await bankTransaction(), secondary_relation_type: 'voucher', secondary_relation_id: await voucher() })],
      ['BANK_TRANSACTION_MATCH of a bank transaction and a document', async () => ({ relation_type: 'bank_transaction', relation_id: await bankTransaction(), secondary_relation_type: 'document', secondary_relation_id: await document() })],
      ['MANUAL_REVIEW of a document', async () => ({ relation_type: 'document', relation_id: await document() })],
      ['MANUAL_REVIEW of a business partner', async () => ({ relation_type: 'businesspartner', relation_id: (await app.db.prisma.businessPartner.findFirstOrThrow({ where: { clientAccountId: t.account.id } })).id })],
    ])('task types with the relations they take: %s → 201', async (name, relations) => {
      const taskType = name.split(' ')[0];
      const res = await create({ task_type: taskType, ...(await relations()) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ task_type: taskType, client_account_id: t.account.id, status: 'PENDING' });
    });

    it.each<[string, (ids: { v: number; v2: number; bt: number; theirs: number; deleted: number }) => Record<string, unknown>, RegExp]>([
      ['task_type missing', ({ v }) => ({ relation_type: 'voucher', relation_id: v }), /task_type: is required/],
      ['an empty task_type', ({ v }) => ({ task_type: '  ', relation_type: 'voucher', relation_id: v }), /task_type: must not be empty/],
      ['a task_type over 100 characters', () => ({ task_type: 'x'.repeat(101) }), /task_type: must be at most 100 characters/],
      ['a relation_type over 50 characters', () => ({ task_type: 'OCR', relation_type: 'x'.repeat(51), relation_id: 1 }), /relation_type: must be at most 50 characters/],
      ["relation_id without relation_type on a client's own type", () => ({ task_type: 'OCR', relation_id: 1 }), /relation_type: is required with relation_id/],
      ['relation_type missing', ({ v }) => ({ task_type: 'VOUCHER_CLASSIFICATION', relation_id: v }), /relation_type: is required with relation_id/],
      ['relation_id missing', () => ({ task_type: 'VOUCHER_CLASSIFICATION', relation_type: 'voucher' }), /relation_id: is required with relation_type/],
      ['no relation on a type that is about a record', () => ({ task_type: 'VOUCHER_CLASSIFICATION' }), /relation_type: is required for a VOUCHER_CLASSIFICATION task \(voucher\)/],
      ['a secondary relation without a relation', ({ v }) => ({ task_type: 'MANUAL_REVIEW', secondary_relation_type: 'voucher', secondary_relation_id: v }), /secondary_relation_type: needs a relation/],
      ["a relation_type the service's own type does not take", ({ v }) => ({ task_type: 'MANUAL_REVIEW', relation_type: 'invoice', relation_id: v }), /relation_type: a MANUAL_REVIEW task is about a voucher or document or bank_transaction or journal_entry or businesspartner, not a invoice/],
      ['a relation the task type does not take', ({ bt }) => ({ task_type: 'VOUCHER_CLASSIFICATION', relation_type: 'bank_transaction', relation_id: bt }), /relation_type: a VOUCHER_CLASSIFICATION task is about a voucher/],
      ['a required secondary relation missing', ({ v }) => ({ task_type: 'VOUCHER_DUPLICATE_CHECK', relation_type: 'voucher', relation_id: v }), /secondary_relation_type: is required for a VOUCHER_DUPLICATE_CHECK task/],
      ['secondary_relation_type without its id', ({ v }) => ({ task_type: 'MANUAL_REVIEW', relation_type: 'voucher', relation_id: v, secondary_relation_type: 'voucher' }), /secondary_relation_id: is required with secondary_relation_type/],
      ['a secondary relation on a type without one', ({ v, v2 }) => ({ task_type: 'VOUCHER_CLASSIFICATION', relation_type: 'voucher', relation_id: v, secondary_relation_type: 'voucher', secondary_relation_id: v2 }), /secondary_relation_type: a VOUCHER_CLASSIFICATION task has no secondary relation/],
      ['the secondary relation the same record', ({ v }) => ({ task_type: 'VOUCHER_DUPLICATE_CHECK', relation_type: 'voucher', relation_id: v, secondary_relation_type: 'voucher', secondary_relation_id: v }), /secondary_relation_id: must name another record/],
      ['status COMPLETED on create', ({ v }) => ({ task_type: 'VOUCHER_CLASSIFICATION', relation_type: 'voucher', relation_id: v, status: 'COMPLETED' }), /status: a task is created PENDING/],
      ['comment over 2000 characters', ({ v }) => ({ task_type: 'VOUCHER_CLASSIFICATION', relation_type: 'voucher', relation_id: v, comment: 'x'.repeat(2001) }), /comment: must be at most 2000 characters/],
      ['an unknown field', ({ v }) => ({ task_type: 'VOUCHER_CLASSIFICATION', relation_type: 'voucher', relation_id: v, owner: 1 }), /owner: is not a known field/],
      ['a relation that does not exist', () => ({ task_type: 'VOUCHER_CLASSIFICATION', relation_type: 'voucher', relation_id: 99999999 }), /relation_id: voucher 99999999 does not exist/],
      ["a relation in another tenant's account (reads as missing)", ({ theirs }) => ({ task_type: 'VOUCHER_CLASSIFICATION', relation_type: 'voucher', relation_id: theirs }), /relation_id: voucher \d+ does not exist/],
      ['a deleted voucher', ({ deleted }) => ({ task_type: 'VOUCHER_CLASSIFICATION', relation_type: 'voucher', relation_id: deleted }), /relation_id: voucher \d+ does not exist/],
      ['a secondary relation in another account', ({ v, theirs }) => ({ task_type: 'VOUCHER_DUPLICATE_CHECK', relation_type: 'voucher', relation_id: v, secondary_relation_type: 'voucher', secondary_relation_id: theirs }), /secondary_relation_id: voucher \d+ does not exist in client account/],
    ])('400: %s', async (_name, body, message) => {
      const ids = { v: await voucher(), v2: await voucher(), bt: await bankTransaction(), theirs: await voucher(other), deleted: (await make.voucher(t, { data: { status: 'DELETED' } })).id };
      const res = await create(body(ids));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(message), status: 400 });
    });

    it('"task_type (required)" and nothing else: a MANUAL_REVIEW about no particular record belongs to the caller’s only client account, or to client_account_id', async () => {
      const res = await create({ task_type: 'MANUAL_REVIEW', comment: 'Se over avstemmingen' });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ task_type: 'MANUAL_REVIEW', client_account_id: t.account.id, relation_type: null, relation_id: null, status: 'PENDING' });
      const named = await create({ task_type: 'MANUAL_REVIEW', client_account_id: t.account.id });
      expect(named.status, JSON.stringify(named.body)).toBe(201);
      expect((await submit(res.body.id, { data: { approved: true } })).status).toBe(200);
      expect((await get(res.body.id)).body).toMatchObject({ status: 'COMPLETED', relation_type: null });
    });

    it('spec 002: "task_type (required)", values not listed: any text of 1–100 characters is a task type — a client\'s own type is 201 with nothing else, with a relation word of its own, or about a record', async () => {
      const bare = await create({ task_type: 'kvittering-sjekk' });
      expect(bare.status, JSON.stringify(bare.body)).toBe(201);
      expect(bare.body).toMatchObject({ task_type: 'kvittering-sjekk', status: 'PENDING', client_account_id: t.account.id, relation_type: null, relation_id: null, completed_at: null });

      const longest = 'Æ'.repeat(100);
      const words = await create({ task_type: ` ${longest} `, relation_type: ' Invoice ', relation_id: 42, secondary_relation_type: 'crm-contact', secondary_relation_id: 7, comment: 'Se over' });
      expect(words.status, JSON.stringify(words.body)).toBe(201);
      expect(words.body).toMatchObject({ task_type: longest, relation_type: 'invoice', relation_id: 42, secondary_relation_type: 'crm-contact', secondary_relation_id: 7, client_account_id: t.account.id });

      // a relation to a record of this API still decides the account, and must be a record the caller sees
      const v = await voucher();
      const about = await create({ task_type: 'Sjekk beløp', relation_type: 'voucher', relation_id: v, secondary_relation_type: 'voucher', secondary_relation_id: v });
      expect(about.status, JSON.stringify(about.body)).toBe(201);
      expect(about.body).toMatchObject({ task_type: 'Sjekk beløp', relation_type: 'voucher', relation_id: v, client_account_id: t.account.id });
      const theirs = await create({ task_type: 'Sjekk beløp', relation_type: 'voucher', relation_id: await voucher(other) });
      expect(theirs).toMatchObject({ status: 400, body: { error: expect.stringMatching(/relation_id: voucher \d+ does not exist/) } });

      // the spelling is the client's: a type in other case is another type, not the service's own
      const lower = await create({ task_type: 'voucher_classification' });
      expect(lower.status, JSON.stringify(lower.body)).toBe(201);
      expect(lower.body.task_type).toBe('voucher_classification');
      expect((await get(bare.body.id)).body).toEqual(bare.body);
    });

    it('a task without a relation: client_account_id of another account is 403; a caller with several accounts must name one (400)', async () => {
      expect(await create({ task_type: 'MANUAL_REVIEW', client_account_id: other.account.id })).toMatchObject({ status: 403 });
      const u = await colleague();
      await app.seed.grantRole({ userId: u.id, clientAccountId: other.account.id, role: 'CA' });
      const res = await create({ task_type: 'MANUAL_REVIEW' }, u.token);
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(/client_account_id: is required for a task without a relation/), status: 400 } });
      expect((await create({ task_type: 'MANUAL_REVIEW', client_account_id: other.account.id }, u.token)).body).toMatchObject({ client_account_id: other.account.id });
      const mismatch = await create({ task_type: 'MANUAL_REVIEW', relation_type: 'voucher', relation_id: await voucher(), client_account_id: other.account.id }, u.token);
      expect(mismatch).toMatchObject({ status: 400, body: { error: expect.stringMatching(/client_account_id: must be the client account of the relation/), status: 400 } });
    });

    it('403 with a read-only token; nothing is written', async () => {
      const v = await voucher();
      const res = await create({ task_type: 'VOUCHER_CLASSIFICATION', relation_type: 'voucher', relation_id: v }, t.user.readToken);
      expect(res.status).toBe(403);
      expect(await app.db.prisma.workerTask.count({ where: { relationId: v, relationType: 'voucher' } })).toBe(0);
    });
  });

  describe('get and cancel', () => {
    it('GET under both prefixes; another account’s task is 403, a missing one 404', async () => {
      const task = await classification();
      expect((await get(task.id)).body).toEqual(task);
      expect((await get(task.id, '', t.user.token, '/worker')).body).toEqual(task);
      const theirs = await classification(other);
      expect(await get(theirs.id)).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
      expect(await get(99999999)).toMatchObject({ status: 404, body: { status: 404 } });
    });

    it('PATCH {status: CANCELLED} from PENDING: 200, the task is CANCELLED (both prefixes)', async () => {
      const task = await classification();
      const res = await patch(task.id, { status: 'CANCELLED' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ ...task, status: 'CANCELLED' });
      const second = await classification();
      expect((await patch(second.id, { status: 'CANCELLED' }, t.user.token, '/worker')).body.status).toBe('CANCELLED');
    });

    it.each<[string, 'PENDING' | 'COMPLETED' | 'CANCELLED', unknown, RegExp]>([
      ['PENDING → PENDING', 'PENDING', { status: 'PENDING' }, /status: status can only be set to CANCELLED/],
      ['PENDING → COMPLETED', 'PENDING', { status: 'COMPLETED' }, /status: status can only be set to CANCELLED/],
      ['CANCELLED → CANCELLED', 'CANCELLED', { status: 'CANCELLED' }, /only a PENDING task can be cancelled; this one is CANCELLED/],
      ['COMPLETED → CANCELLED', 'COMPLETED', { status: 'CANCELLED' }, /only a PENDING task can be cancelled; this one is COMPLETED/],
      ['status missing', 'PENDING', {}, /status: is required/],
      ['an unknown status', 'PENDING', { status: 'DONE' }, /status/],
      ['another field', 'PENDING', { status: 'CANCELLED', colour: 'red' }, /colour: is not a known field/],
    ])('PATCH "only CANCELLED, only from PENDING; other cases 400": %s', async (_name, from, body, message) => {
      const task = await create({ task_type: 'MANUAL_REVIEW', relation_type: 'voucher', relation_id: await voucher() });
      if (from === 'CANCELLED') await patch(task.body.id, { status: 'CANCELLED' });
      if (from === 'COMPLETED') expect((await submit(task.body.id, { data: { approved: true } })).status).toBe(200);
      const res = await patch(task.body.id, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(message), status: 400 });
      expect((await get(task.body.id)).body.status).toBe(from);
    });

    it('PATCH: another account’s task is 403, a missing one 404, a read-only token 403', async () => {
      const theirs = await classification(other);
      expect((await patch(theirs.id, { status: 'CANCELLED' })).status).toBe(403);
      expect((await patch(99999999, { status: 'CANCELLED' })).status).toBe(404);
      const mine = await classification();
      expect((await patch(mine.id, { status: 'CANCELLED' }, t.user.readToken)).status).toBe(403);
      expect((await get(mine.id)).body.status).toBe('PENDING');
    });
  });

  describe('results and consensus', () => {
    it('POST …/results answers the result record; "multiple users may submit"; two agreeing users complete it with that result as consensus', async () => {
      const task = await classification();
      const worker = await colleague();
      const first = await submit(task.id, { data: { document_type: 'apinv ' } });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body).toEqual({ id: expect.any(Number), submitted_at: expect.any(String), submitted_by_id: t.user.id, task_id: task.id, status: 'SUBMITTED', data: { document_type: 'APINV' } });
      expect((await get(task.id)).body).toMatchObject({ status: 'PENDING', completed_at: null });
      const second = await submit(task.id, { data: { document_type: 'APINV' } }, worker.token, '/contributor');
      expect(second.status).toBe(200);
      expect(second.body).toMatchObject({ submitted_by_id: worker.id, task_id: task.id, data: { document_type: 'APINV' } });
      const done = await get(task.id, '?with=results,consensus');
      expect(done.body).toMatchObject({ status: 'COMPLETED', completed_at: expect.any(String) });
      expect(done.body.results.map((r: any) => r.id)).toEqual([first.body.id, second.body.id]);
      expect(done.body.consensus).toEqual(second.body);
    });

    it('different answers do not agree; the same user twice is one vote; a user’s latest answer is the one that counts', async () => {
      const task = await classification();
      const [a, b] = [await colleague(), await colleague()];
      expect((await submit(task.id, { data: { document_type: 'RECPT' } }, a.token)).status).toBe(200);
      expect((await submit(task.id, { data: { document_type: 'APINV' } }, b.token)).status).toBe(200);
      expect((await submit(task.id, { data: { document_type: 'APINV' } }, b.token)).status).toBe(200);
      expect((await get(task.id)).body.status).toBe('PENDING');
      const changed = await submit(task.id, { data: { document_type: 'APINV' } }, a.token);
      const done = await get(task.id, '?with=consensus,results');
      expect(done.body).toMatchObject({ status: 'COMPLETED', consensus: { id: changed.body.id, data: { document_type: 'APINV' } } });
      expect(done.body.results).toHaveLength(4);
    });

    it('data agree after normalisation (VOUCHER_DATA_EXTRACTION): number or string amounts, spaced organisation numbers, absent and null fields', async () => {
      const task = (await create({ task_type: 'VOUCHER_DATA_EXTRACTION', relation_type: 'voucher', relation_id: await voucher() })).body;
      const worker = await colleague();
      const one = await submit(task.id, { data: { gross_amount: 1234.5, currency_code: 'nok', organization_number: '923 609 016', document_date: '2026-11-02', kid: '1234 5678 97' } });
      expect(one.status, JSON.stringify(one.body)).toBe(200);
      expect(one.body.data).toEqual({ document_date: '2026-11-02', due_date: null, gross_amount: '1234.50', currency_code: 'NOK', organization_number: '923609016', document_number: null, kid: '1234567897' });
      await submit(task.id, { data: { document_date: '2026-11-02', due_date: null, gross_amount: '1234.50', currency_code: 'NOK', organization_number: '923609016', kid: '1234567897' } }, worker.token);
      expect((await get(task.id)).body.status).toBe('COMPLETED');
    });

    it('MANUAL_REVIEW: one result completes it', async () => {
      const task = (await create({ task_type: 'MANUAL_REVIEW', relation_type: 'voucher', relation_id: await voucher(), comment: 'Sjekk beløpet' })).body;
      const res = await submit(task.id, { data: { approved: false, note: 'Feil mva' } });
      expect(res.body.data).toEqual({ approved: false, note: 'Feil mva' });
      expect((await get(task.id, '?with=consensus')).body).toMatchObject({ status: 'COMPLETED', consensus: { id: res.body.id } });
    });

    it('spec 002: "Worker task | PENDING | result submission | | PENDING": a client\'s own task type takes any JSON object as data, from several users, and stays PENDING', async () => {
      const task = (await create({ task_type: 'Kvittering OK?', relation_type: 'voucher', relation_id: await voucher() })).body;
      const [a, b] = [await colleague(), await colleague()];
      const answers: Record<string, unknown>[] = [
        { ok: true },
        { ok: true },
        {},
        { nested: { list: [1, 'to', null, { tre: 3.5 }], flag: false }, Beløp: '1 234,50' },
        { ok: true, note: 'x'.repeat(5000) },
      ];
      const results = [];
      for (const [i, data] of answers.entries()) {
        const res = await submit(task.id, { data }, [t.user, a, b, a, b][i].token, i % 2 ? '/contributor' : '/worker');
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body).toEqual({ id: expect.any(Number), submitted_at: expect.any(String), submitted_by_id: [t.user, a, b, a, b][i].id, task_id: task.id, status: 'SUBMITTED', data });
        results.push(res.body);
      }
      const after = await get(task.id, '?with=results,consensus');
      expect(after.body).toMatchObject({ status: 'PENDING', completed_at: null, consensus: null });
      expect(after.body.results).toEqual(results);
      // it leaves PENDING only by PATCH; then results are refused as for any task
      expect((await patch(task.id, { status: 'CANCELLED' })).body.status).toBe('CANCELLED');
      expect(await submit(task.id, { data: { ok: true } })).toMatchObject({ status: 400, body: { error: expect.stringContaining('the task is CANCELLED') } });
    });

    it.each<[string, unknown, RegExp]>([
      ['data missing', undefined, /data: is required/],
      ['data null', null, /data: Expected non-nullable/],
      ['data an array', [{ ok: true }], /data: must be a JSON object/],
      ['data a string', 'ok', /data: must be a JSON object/],
      ['data a number', 1, /data: must be a JSON object/],
    ])('spec 002: "data (object, required)" holds for a client\'s own task type too: %s is 400', async (_name, data, message) => {
      const task = (await create({ task_type: 'eget' })).body;
      const res = await submit(task.id, data === undefined ? {} : { data });
      expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(message), status: 400 } });
      expect(await app.db.prisma.workerTaskResult.count({ where: { taskId: task.id } })).toBe(0);
    });

    it('"Not allowed for COMPLETED tasks (400)", nor for CANCELLED ones; nothing is stored', async () => {
      const done = (await create({ task_type: 'MANUAL_REVIEW', relation_type: 'voucher', relation_id: await voucher() })).body;
      await submit(done.id, { data: { approved: true } });
      const late = await submit(done.id, { data: { approved: true } }, (await colleague()).token);
      expect(late).toMatchObject({ status: 400, body: { error: expect.stringContaining('the task is COMPLETED'), status: 400 } });
      const cancelled = await classification();
      await patch(cancelled.id, { status: 'CANCELLED' });
      expect(await submit(cancelled.id, { data: { document_type: 'APINV' } })).toMatchObject({ status: 400, body: { error: expect.stringContaining('the task is CANCELLED') } });
      expect(await app.db.prisma.workerTaskResult.count({ where: { taskId: { in: [done.id, cancelled.id] } } })).toBe(1);
    });

    it.each<[string, string, unknown, RegExp]>([
      ['data missing', 'VOUCHER_CLASSIFICATION', undefined, /data: is required/],
      ['data an array', 'VOUCHER_CLASSIFICATION', [1], /data: must be a JSON object/],
      ['data a string', 'VOUCHER_CLASSIFICATION', 'APINV', /data: must be a JSON object/],
      ['a field the type does not have', 'VOUCHER_CLASSIFICATION', { document_type: 'APINV', amount: 1 }, /data\.amount: is not a field of VOUCHER_CLASSIFICATION data/],
      ['document_type missing', 'VOUCHER_CLASSIFICATION', {}, /data\.document_type: is required/],
      ['an unknown document_type', 'VOUCHER_CLASSIFICATION', { document_type: 'BILL' }, /data\.document_type: must be a document type/],
      ['an impossible date', 'VOUCHER_DATA_EXTRACTION', { document_date: '2026-02-30' }, /data\.document_date: must be a calendar date/],
      ['an amount with 3 decimals', 'VOUCHER_DATA_EXTRACTION', { gross_amount: '10.005' }, /data\.gross_amount: must have at most 2 decimals/],
      ['a bad organisation number', 'VOUCHER_DATA_EXTRACTION', { organization_number: '123456789' }, /data\.organization_number: must be a valid/],
      ['a currency code of 4 letters', 'VOUCHER_DATA_EXTRACTION', { currency_code: 'NOKK' }, /data\.currency_code/],
      ['approved not a boolean', 'MANUAL_REVIEW', { approved: 'yes' }, /data\.approved: approved must be true or false/],
      ['note over 1000 characters', 'MANUAL_REVIEW', { approved: true, note: 'x'.repeat(1001) }, /data\.note: must be at most 1000 characters/],
      ['an unknown body field', 'MANUAL_REVIEW', { approved: true }, /extra: is not a known field/],
    ])('400 "data (object, required)", checked by the task type: %s', async (name, taskType, data, message) => {
      const task = (await create({ task_type: taskType, relation_type: 'voucher', relation_id: await voucher() })).body;
      const res = await submit(task.id, { ...(data === undefined ? {} : { data }), ...(name === 'an unknown body field' ? { extra: 1 } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(message), status: 400 });
      expect(await app.db.prisma.workerTaskResult.count({ where: { taskId: task.id } })).toBe(0);
    });

    it('403 for another account’s task and for a read-only token; 404 for a missing task', async () => {
      const theirs = await classification(other);
      expect((await submit(theirs.id, { data: { document_type: 'APINV' } })).status).toBe(403);
      expect((await submit(99999999, { data: { document_type: 'APINV' } })).status).toBe(404);
      const mine = await classification();
      expect((await submit(mine.id, { data: { document_type: 'APINV' } }, t.user.readToken)).status).toBe(403);
    });

    it('concurrent submissions are judged one after the other: eight users at once on a two-vote task → two results, one consensus, six 400s', async () => {
      const task = await classification();
      const workers = await Promise.all(Array.from({ length: 8 }, () => colleague()));
      const answers = await Promise.all(workers.map((w) => submit(task.id, { data: { document_type: 'APINV' } }, w.token)));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 400, 400, 400, 400, 400, 400]);
      const done = await get(task.id, '?with=results,consensus');
      expect(done.body.status).toBe('COMPLETED');
      expect(done.body.results).toHaveLength(2);
      expect(done.body.results.map((r: any) => r.id)).toContain(done.body.consensus.id);
    });
  });

  describe('list', () => {
    let tenant: Tenant;
    let a: TestUser;
    let b: TestUser;
    const tasks: Record<string, any> = {};
    beforeAll(async () => {
      tenant = await app.seed.tenant();
      [a, b] = [await colleague(tenant), await colleague(tenant)];
      tasks.fresh = await classification(tenant);
      tasks.byA = await classification(tenant);
      tasks.byB = (await create({ task_type: 'VOUCHER_DATA_EXTRACTION', relation_type: 'voucher', relation_id: await voucher(tenant) }, tenant.user.token)).body;
      tasks.byBoth = await classification(tenant);
      tasks.aTwice = (await create({ task_type: 'VOUCHER_DATA_EXTRACTION', relation_type: 'voucher', relation_id: await voucher(tenant) }, tenant.user.token)).body;
      tasks.cancelled = await classification(tenant);
      tasks.completed = (await create({ task_type: 'MANUAL_REVIEW', relation_type: 'voucher', relation_id: await voucher(tenant) }, tenant.user.token)).body;
      await submit(tasks.byA.id, { data: { document_type: 'APINV' } }, a.token);
      await submit(tasks.byB.id, { data: { kid: '1234567897' } }, b.token);
      await submit(tasks.byBoth.id, { data: { document_type: 'APINV' } }, a.token);
      await submit(tasks.byBoth.id, { data: { document_type: 'RECPT' } }, b.token);
      await submit(tasks.aTwice.id, { data: { kid: '1234567897' } }, a.token);
      await submit(tasks.aTwice.id, { data: { kid: '9876543210' } }, a.token);
      await patch(tasks.cancelled.id, { status: 'CANCELLED' }, tenant.user.token);
      await submit(tasks.completed.id, { data: { approved: true } }, b.token);
      await classification(other); // another tenant's task: never listed
    });
    const ids = (res: { body: any }) => res.body.data.map((x: any) => x.id);
    const names = (res: { body: any }) => ids(res).map((id: number) => Object.keys(tasks).find((k) => tasks[k].id === id));
    const of = (qs: string, token = tenant.user.token, prefix = '/worker') => list(`client_account_id=${tenant.account.id}${qs ? `&${qs}` : ''}`, token, prefix);

    it('"Tasks limited to the caller\'s scope": every PENDING task of the caller’s accounts, oldest first, in the page envelope; both prefixes', async () => {
      const res = await list('', tenant.user.token);
      expect(res.status).toBe(200);
      expect(names(res)).toEqual(['fresh', 'byA', 'byB', 'byBoth', 'aTwice']);
      expect(res.body.meta).toEqual({ page: 1, pages: 1, per_page: 100, records: 5 });
      expect((await list('', tenant.user.token, '/contributor')).body).toEqual(res.body);
    });

    it('client_account_id of an account the caller cannot see is 403', async () => {
      expect(await list(`client_account_id=${other.account.id}`, tenant.user.token)).toMatchObject({ status: 403, body: { status: 403 } });
    });

    it.each<[string, string, string[]]>([
      ['status (default PENDING) COMPLETED', 'status=COMPLETED', ['completed']],
      ['status, several', 'status=CANCELLED,completed', ['cancelled', 'completed']],
      ['status=null: every status', 'status=null', ['fresh', 'byA', 'byB', 'byBoth', 'aTwice', 'cancelled', 'completed']],
      ['task_type', 'task_type=VOUCHER_DATA_EXTRACTION', ['byB', 'aTwice']],
      ['task_type, semicolon or space separated', 'task_type=VOUCHER_DATA_EXTRACTION;MANUAL_REVIEW%20VOUCHER_CLASSIFICATION&status=null', ['fresh', 'byA', 'byB', 'byBoth', 'aTwice', 'cancelled', 'completed']],
      ['has_submitted_results=true', 'has_submitted_results=true', ['byA', 'byB', 'byBoth', 'aTwice']],
      ['has_submitted_results=false', 'has_submitted_results=false', ['fresh']],
      ['has_results_from_id', 'has_results_from_id=A', ['byA', 'byBoth', 'aTwice']],
      ['has_no_results_from_id', 'has_no_results_from_id=A', ['fresh', 'byB']],
      ['has_results_from_id and has_no_results_from_id together', 'has_results_from_id=B&has_no_results_from_id=A', ['byB']],
      ['downplay_results_from_id: tasks with a result from that user last', 'downplay_results_from_id=A', ['fresh', 'byB', 'byA', 'byBoth', 'aTwice']],
      ['order_by -created_at', 'order_by=-created_at', ['aTwice', 'byBoth', 'byB', 'byA', 'fresh']],
      ['order_by task_type then newest first', 'order_by=task_type,-id', ['byBoth', 'byA', 'fresh', 'aTwice', 'byB']],
      ['downplay with order_by', 'downplay_results_from_id=B&order_by=-id', ['aTwice', 'byA', 'fresh', 'byBoth', 'byB']],
    ])('filter %s', async (_name, qs, expected) => {
      const res = await of(qs.replace('=A', `=${a.id}`).replace('=B', `=${b.id}`));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(names(res)).toEqual(expected);
    });

    it('less_than_results_from_me: tasks where the caller has submitted fewer results than the threshold', async () => {
      expect(names(await of('less_than_results_from_me=1', a.token))).toEqual(['fresh', 'byB']);
      expect(names(await of('less_than_results_from_me=2', a.token))).toEqual(['fresh', 'byA', 'byB', 'byBoth']);
      expect(names(await of('less_than_results_from_me=3', a.token))).toEqual(['fresh', 'byA', 'byB', 'byBoth', 'aTwice']);
      // "integer threshold": any integer; fewer than 0 results is none
      expect(names(await of('less_than_results_from_me=0', a.token))).toEqual([]);
      expect(names(await of('less_than_results_from_me=-3', a.token))).toEqual([]);
      expect(names(await of('less_than_results_from_me=1000', a.token))).toEqual(['fresh', 'byA', 'byB', 'byBoth', 'aTwice']);
    });

    it('spec 002: "task_type (comma, semicolon or space separated)" filters free task types as stored, the service\'s and the client\'s alike', async () => {
      const own = await app.seed.tenant();
      const mk = async (task_type: string) => (await create({ task_type }, own.user.token)).body.id as number;
      const [alpha, beta, gamma, review] = [await mk('alpha'), await mk('beta-2'), await mk('Gamma_3'), await mk('MANUAL_REVIEW')];
      const filter = async (qs: string) => {
        const res = await list(`client_account_id=${own.account.id}&${qs}`, own.user.token);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body.data.map((x: any) => x.id);
      };
      expect(await filter('task_type=alpha')).toEqual([alpha]);
      expect(await filter('task_type=alpha,beta-2')).toEqual([alpha, beta]);
      expect(await filter('task_type=beta-2;Gamma_3%20MANUAL_REVIEW')).toEqual([beta, gamma, review]);
      expect(await filter('task_type=gamma_3,OCR')).toEqual([]);
    });

    it('page and per_page: the page envelope counts every match', async () => {
      const res = await of('per_page=2&page=2');
      expect(names(res)).toEqual(['byB', 'byBoth']);
      expect(res.body.meta).toEqual({ page: 2, pages: 3, per_page: 2, records: 5 });
      expect((await of('per_page=500')).body.meta.per_page).toBe(100);
    });

    it('with=results embeds each task’s results, oldest first', async () => {
      const res = await of('with=results&has_results_from_id=' + b.id);
      const byBoth = res.body.data.find((x: any) => x.id === tasks.byBoth.id);
      expect(byBoth.results.map((r: any) => [r.submitted_by_id, r.data.document_type])).toEqual([[a.id, 'APINV'], [b.id, 'RECPT']]);
    });

    it.each<[string, RegExp]>([
      ['order_by=colour', /order_by.*cannot order by 'colour'/],
      ['status=DONE', /status/],
      ['less_than_results_from_me=1.5', /less_than_results_from_me: must be an integer/],
      ['has_results_from_id=x', /has_results_from_id: must be an integer/],
      ['has_submitted_results=maybe', /has_submitted_results: must be true or false/],
      ['with=votes', /with/],
      ['page=0', /page/],
    ])('400: %s', async (qs, message) => {
      const res = await of(qs);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(message), status: 400 });
    });

    it('an accountant of a provider serving the account sees its tasks (eligible accounts)', async () => {
      const firm = await app.seed.tenant({ role: 'AA', industryCode: '69.201' });
      await app.seed.linkProvider(firm.account.id, tenant.account.id);
      expect(names(await list('', firm.user.token))).toEqual(['fresh', 'byA', 'byB', 'byBoth', 'aTwice']);
    });
  });
});
