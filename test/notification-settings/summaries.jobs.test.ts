import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue, type JobDefinition } from '../../src/jobs/jobs.ts';
import { startJobs } from '../../src/jobs/runner.ts';
import { sendMailJob } from '../../src/mail/mail.job.ts';
import { roleChangesJob, weeklyTodoJob, type SummaryJobData } from '../../src/modules/notification-settings/summaries.job.ts';
import { addDays, osloDate } from '../../src/modules/notification-settings/summaries.rules.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { eventually, startTestApp, targets, type TestApp } from '../support/harness.ts';
import { postEntry } from '../support/postings.ts';
import type { Tenant, TestUser } from '../support/seed.ts';
import { voucherFactory } from '../support/vouchers.ts';

// spec 002 "Notification setting": WEEKLY_TODO "weekly to-do summary sent Mondays to client account
// owners, only when something needs attention; email only"; ORGANIZATIONAL_ROLE_CHANGES "daily
// summary to users of a provider account about organizational roles added or removed at contracted
// clients, only on days with changes; email only". "A type without a stored setting is enabled on
// every channel. Push has no effect for the two types."
describe.each(targets())('scheduled summaries (%s)', (target) => {
  let app: TestApp;
  let make: ReturnType<typeof voucherFactory>;
  const dataDir = mkdtempSync(join(tmpdir(), 'summaries-'));
  const outbox = join(dataDir, 'outbox');

  beforeAll(async () => {
    app = await startTestApp(target, { env: { DATA_DIR: dataDir }, jobs: { queues: [weeklyTodoJob.name, roleChangesJob.name, sendMailJob.name] } });
    make = voucherFactory(app);
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Runs a summary job through the queue as the schedule would, with a controlled clock; its output. */
  async function run(job: JobDefinition<SummaryJobData>, data: SummaryJobData): Promise<{ period: string; sent: number; optedOut: number; alreadySent: number }> {
    const id = (await enqueue(app.db.prisma, job, data))!;
    const done = await eventually(async () => {
      const j = await app.jobs!.boss.getJobById(job.name, id);
      if (j?.state === 'failed') throw new Error(`${job.name} failed: ${JSON.stringify(j.output)}`);
      return j?.state === 'completed' && j;
    }, `${job.name} to complete`);
    // every mail the run enqueued is in the outbox before the test looks
    const deliveries = await app.db.prisma.notificationDelivery.findMany({ where: { mailJobId: { not: null } }, select: { mailJobId: true } });
    await eventually(async () => {
      for (const d of deliveries) if ((await app.jobs!.boss.getJobById(sendMailJob.name, d.mailJobId!))?.state !== 'completed') return false;
      return true;
    }, 'the summary mails to be written');
    return done.output as never;
  }

  const parsed = new Map<string, ParsedMail>();
  /** The messages in the outbox addressed to `address`. */
  async function mailsTo(address: string): Promise<ParsedMail[]> {
    let files: string[] = [];
    try {
      files = readdirSync(outbox);
    } catch {
      return [];
    }
    for (const f of files) if (!parsed.has(f)) parsed.set(f, await simpleParser(readFileSync(join(outbox, f))));
    return [...parsed.values()].filter((m) => !Array.isArray(m.to) && m.to?.value.some((v) => v.address === address));
  }

  const setting = (user: TestUser, clientAccountId: number, type: string, email_enabled: boolean, push_enabled: boolean) =>
    app.http('PUT', `/api/v2/client-accounts/${clientAccountId}/notification-settings/${type}`, { token: user.token, body: { email_enabled, push_enabled } });

  async function userOn(clientAccountId: number, role: 'AA' | 'CA' | 'BK' | 'EM'): Promise<TestUser> {
    const u = await app.seed.user();
    await app.seed.grantRole({ userId: u.id, clientAccountId, role });
    return u;
  }

  describe('WEEKLY_TODO', () => {
    const MONDAY = '2026-11-30T05:00:00Z'; // the schedule's time: 06:00 in Norway, week 49
    let t: Tenant;
    let owner2: TestUser;
    let employee: TestUser;
    let quiet: Tenant;
    let optedOut: TestUser;
    let pushOff: TestUser;

    beforeAll(async () => {
      const prisma = app.db.prisma;
      t = await app.seed.tenant();
      owner2 = await userOn(t.account.id, 'CA');
      employee = await userOn(t.account.id, 'EM');
      optedOut = await userOn(t.account.id, 'CA');
      pushOff = await userOn(t.account.id, 'CA');
      const id = t.account.id;
      // counted: 2 open tasks, 1 bank transaction not fully booked, 1 open voucher question, 2 draft vouchers, 1 draft journal entry
      await prisma.task.createMany({
        data: [
          { clientAccountId: id, title: 'Send inn mva-melding', status: 'OPEN' },
          { clientAccountId: id, title: 'Avstem bank', status: 'IN_PROGRESS' },
          { clientAccountId: id, title: 'Ferdig', status: 'COMPLETED' },
        ],
      });
      const bank = await prisma.bankAccount.create({ data: { clientAccountId: id, accountNumber: '15032012342', ledgerAccountId: await t.ledgerAccount('1920') } });
      const tx = { clientAccountId: id, bankAccountId: bank.id, payeeBankAccountId: bank.id, bookingDate: new Date('2026-11-20'), currencyCode: 'NOK' };
      await prisma.bankTransaction.createMany({ data: [{ ...tx, amount: '1250.000' }, { ...tx, amount: '300.000', externalReconciledAmount: '300.000' }] });
      const asked = await make.voucher(t);
      await make.voucher(t);
      const archived = await make.voucher(t, { data: { status: 'ARCHIVED' } });
      const deleted = await make.voucher(t, { data: { status: 'DELETED' } });
      await prisma.voucherQuestion.createMany({
        data: [
          { clientAccountId: id, voucherId: asked.id, questionType: 'DUPLICATE', text: 'Er dette et duplikat?' },
          { clientAccountId: id, voucherId: archived.id, questionType: 'DUPLICATE', text: 'Besvart', status: 'ANSWERED' },
          { clientAccountId: id, voucherId: deleted.id, questionType: 'DUPLICATE', text: 'Slettet bilag' },
        ],
      });
      const [cost, cash] = [await t.ledgerAccount('6300'), await t.ledgerAccount('1920')];
      await postEntry(prisma, id, [{ accountId: cost, debit: '100' }, { accountId: cash, credit: '100' }], { draft: true });
      await postEntry(prisma, id, [{ accountId: cost, debit: '200' }, { accountId: cash, credit: '200' }]);
      quiet = await app.seed.tenant();
      // an opt-out at another account does not matter here; at this one it does
      await setting(optedOut, t.account.id, 'WEEKLY_TODO', false, true);
      await app.seed.grantRole({ userId: owner2.id, clientAccountId: quiet.account.id, role: 'EM' });
      expect((await setting(owner2, quiet.account.id, 'WEEKLY_TODO', false, false)).status).toBe(200);
      await setting(pushOff, t.account.id, 'WEEKLY_TODO', true, false);
    });

    it('Monday: each owner (CA) of an account that needs attention gets the counts with links; employees, opted-out owners and quiet accounts get nothing', async () => {
      const out = await run(weeklyTodoJob, { now: MONDAY, clientAccountIds: [t.account.id, quiet.account.id] });
      expect(out).toEqual({ period: '2026-11-30', sent: 3, optedOut: 1, alreadySent: 0 });
      for (const owner of [t.user, owner2, pushOff]) {
        const mails = await mailsTo(owner.email);
        expect(mails).toHaveLength(1);
        expect(mails[0].subject).toBe(`Ukens gjøremål for ${t.account.displayName} (uke 49)`);
        const text = mails[0].text!;
        expect(text).toContain('fra mandag 30.11.2026');
        const id = t.account.id;
        expect(text).toContain(`• Åpne oppgaver: 2\n  ${app.url}/api/v2/tasks?client_account_id=${id}`);
        expect(text).toContain(`• Banktransaksjoner som ikke er avstemt: 1\n  ${app.url}/api/v2/bank-transactions?client_account_id=${id}`);
        expect(text).toContain(`• Ubesvarte spørsmål om bilag: 1\n  ${app.url}/api/v2/vouchers?client_account_id=${id}&with=questions`);
        expect(text).toContain(`• Bilag i kladd: 2\n  ${app.url}/api/v2/vouchers?client_account_id=${id}&status=DRAFT`);
        expect(text).toContain(`• Føringer i kladd (ikke bokført): 1\n  ${app.url}/api/v2/journal-entries?client_account_id=${id}&include_drafts=true`);
        expect(text).toContain(`/api/v2/client-accounts/${id}/notification-settings/WEEKLY_TODO`);
      }
      expect(await mailsTo(employee.email)).toEqual([]);
      expect(await mailsTo(optedOut.email)).toEqual([]);
      expect(await mailsTo(quiet.user.email)).toEqual([]);
      expect(await app.db.prisma.notificationDelivery.count({ where: { clientAccountId: quiet.account.id } })).toBe(0);
    });

    it('"idempotent per period": a second run in the same week sends nothing; the next Monday sends again', async () => {
      expect(await run(weeklyTodoJob, { now: '2026-12-02T09:00:00Z', clientAccountIds: [t.account.id] })).toEqual({ period: '2026-11-30', sent: 0, optedOut: 1, alreadySent: 3 });
      expect(await mailsTo(t.user.email)).toHaveLength(1);
      const next = await run(weeklyTodoJob, { now: '2026-12-07T05:00:00Z', clientAccountIds: [t.account.id] });
      expect(next).toMatchObject({ period: '2026-12-07', sent: 3 });
      expect((await mailsTo(t.user.email)).map((m) => m.subject).sort()).toEqual([`Ukens gjøremål for ${t.account.displayName} (uke 49)`, `Ukens gjøremål for ${t.account.displayName} (uke 50)`]);
    });

    it('spec 002 "Task": "Allowed values of task status and task_type: not shown": a task in a client\'s own status counts as open; COMPLETED and CANCELLED ones do not', async () => {
      const tenant = await app.seed.tenant();
      const id = tenant.account.id;
      await app.db.prisma.task.createMany({
        data: ['Venter på kunde', 'COMPLETED', 'CANCELLED'].map((status) => ({ clientAccountId: id, title: status, status })),
      });
      expect(await run(weeklyTodoJob, { now: MONDAY, clientAccountIds: [id] })).toMatchObject({ sent: 1 });
      expect((await mailsTo(tenant.user.email))[0].text).toContain(`• Åpne oppgaver: 1\n  ${app.url}/api/v2/tasks?client_account_id=${id}`);
      // only closed tasks: nothing needs attention
      const done = await app.seed.tenant();
      await app.db.prisma.task.createMany({ data: ['COMPLETED', 'CANCELLED'].map((status) => ({ clientAccountId: done.account.id, title: status, status })) });
      expect(await run(weeklyTodoJob, { now: MONDAY, clientAccountIds: [done.account.id] })).toMatchObject({ sent: 0 });
    });

    it('the week is the Norwegian one: Sunday 23:30 UTC is already Monday in Norway', async () => {
      const tenant = await app.seed.tenant();
      await app.db.prisma.task.create({ data: { clientAccountId: tenant.account.id, title: 'Noe', status: 'OPEN' } });
      expect(await run(weeklyTodoJob, { now: '2026-12-13T23:30:00Z', clientAccountIds: [tenant.account.id] })).toMatchObject({ period: '2026-12-14', sent: 1 });
      expect((await mailsTo(tenant.user.email))[0].subject).toContain('(uke 51)');
    });
  });

  describe('ORGANIZATIONAL_ROLE_CHANGES', () => {
    let provider: Tenant;
    let bk: TestUser;
    let em: TestUser;
    let providerOwner: TestUser;
    let optedOut: TestUser;
    let client: Tenant;
    let newcomer: TestUser;
    let leaver: TestUser;
    let day: string;
    let now: string;

    beforeAll(async () => {
      provider = await app.seed.tenant({ role: 'AA', industryCode: '69.201' });
      bk = await userOn(provider.account.id, 'BK');
      em = await userOn(provider.account.id, 'EM');
      providerOwner = await userOn(provider.account.id, 'CA');
      optedOut = await userOn(provider.account.id, 'AA');
      client = await app.seed.tenant();
      await app.seed.linkProvider(provider.account.id, client.account.id);
      // changes at the client, made by its owner over GraphQL (so "changed by" is known)
      newcomer = await app.seed.user();
      leaver = await userOn(client.account.id, 'EM');
      const grant = await app.gql(client.user.token, `mutation { grantRole(input: { email: "${newcomer.email}", clientAccountId: ${client.account.id}, role: BK }) { id } }`);
      expect(grant.errors?.[0].message ?? '').toContain('provider account'); // BK only on providers: refused, nothing recorded
      expect((await app.gql(client.user.token, `mutation { grantRole(input: { email: "${newcomer.email}", clientAccountId: ${client.account.id}, role: EM }) { id } }`)).errors).toBeUndefined();
      expect((await app.gql(client.user.token, `mutation { revokeRole(input: { email: "${leaver.email}", clientAccountId: ${client.account.id}, role: EM }) }`)).errors).toBeUndefined();
      // a client not served by the provider: its changes are not the provider's business
      const stranger = await app.seed.tenant();
      await userOn(stranger.account.id, 'EM');
      const changed = await app.db.prisma.roleChange.findMany({ where: { clientAccountId: client.account.id }, orderBy: { id: 'asc' } });
      day = osloDate(changed.at(-1)!.changedAt);
      now = `${addDays(day, 1)}T05:00:00Z`;
      // two days before: not "yesterday's"
      await app.db.prisma.roleChange.create({ data: { clientAccountId: client.account.id, userId: leaver.id, role: 'CA', change: 'ADDED', changedAt: new Date(`${addDays(day, -1)}T12:00:00Z`) } });
      await setting(optedOut, provider.account.id, 'ORGANIZATIONAL_ROLE_CHANGES', false, true);
      await setting(bk, provider.account.id, 'ORGANIZATIONAL_ROLE_CHANGES', true, false);
    });

    it('spec 002 "daily summary to users of a provider account about organizational roles added or removed at contracted clients": every user of the provider account, whatever the role (AA, CA, BK, EM), gets the day\'s changes with who made them; "A type without a stored setting is enabled"', async () => {
      const out = await run(roleChangesJob, { now, clientAccountIds: [provider.account.id] });
      expect(out).toEqual({ period: day, sent: 4, optedOut: 1, alreadySent: 0 });
      const dated = `${day.slice(8, 10)}.${day.slice(5, 7)}.${day.slice(0, 4)}`;
      // AA (the tenant's user), BK (e-mail on), EM and CA (no stored setting: enabled)
      for (const staff of [provider.user, bk, em, providerOwner]) {
        const mails = await mailsTo(staff.email);
        expect(mails).toHaveLength(1);
        expect(mails[0].subject).toBe(`Rolleendringer hos kundene til ${provider.account.displayName} ${dated}`);
        const text = mails[0].text!;
        expect(text).toContain(`${client.account.displayName}\n`);
        expect(text).toContain(`+ Test User <${client.user.email}> fikk rollen eier (CA)`);
        expect(text).toContain(`+ Test User <${newcomer.email}> fikk rollen ansatt (EM) (endret av Test User <${client.user.email}>)`);
        expect(text).toContain(`− Test User <${leaver.email}> mistet rollen ansatt (EM) (endret av Test User <${client.user.email}>)`);
        expect(text).not.toContain('regnskapsfører (AA)'); // the provider's own roles and the refused BK grant are not changes at a client
        expect(text.match(/^\s+[+−] /gm)).toHaveLength(4); // the tenant's owner, the leaver's grant, the newcomer, the leaver's removal; not the one two days before
      }
      // the one who turned e-mail off, and the client's own users (no users of the provider account)
      for (const none of [optedOut, client.user, newcomer]) expect(await mailsTo(none.email)).toEqual([]);
    });

    it('"idempotent per period": the same day again sends nothing', async () => {
      expect(await run(roleChangesJob, { now, clientAccountIds: [provider.account.id] })).toEqual({ period: day, sent: 0, optedOut: 1, alreadySent: 4 });
      expect(await mailsTo(bk.email)).toHaveLength(1);
    });

    it('"only on days with changes": a day without any sends nothing', async () => {
      expect(await run(roleChangesJob, { now: '2030-01-02T05:00:00Z', clientAccountIds: [provider.account.id] })).toEqual({ period: '2030-01-01', sent: 0, optedOut: 0, alreadySent: 0 });
    });

    it('a run without a clock in its payload (as the schedule enqueues it) summarises the day before the job was created', async () => {
      const out = await run(roleChangesJob, { clientAccountIds: [provider.account.id] });
      expect(out.period).toBe(addDays(osloDate(new Date()), -1));
    });
  });

  it('both jobs are cron schedules in UTC (once for all processes): WEEKLY_TODO Mondays 05:00, ORGANIZATIONAL_ROLE_CHANGES daily 05:00', async () => {
    const runner = await startJobs({ db: app.db, config: app.config, logger: createLogger('silent'), schedules: true, queues: [] });
    try {
      const schedules = await runner.boss.getSchedules();
      expect(schedules.find((s) => s.name === weeklyTodoJob.name)).toMatchObject({ cron: '0 5 * * 1', timezone: 'UTC' });
      expect(schedules.find((s) => s.name === roleChangesJob.name)).toMatchObject({ cron: '0 5 * * *', timezone: 'UTC' });
    } finally {
      await runner.stop();
    }
  });
});
