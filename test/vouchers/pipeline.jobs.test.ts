import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defineJob, enqueue, PROCESS_STOPPED } from '../../src/jobs/jobs.ts';
import { migrateJobs, startJobs } from '../../src/jobs/runner.ts';
import { createFileServices } from '../../src/modules/files/file-services.ts';
import { DiskFileStore } from '../../src/modules/files/storage.ts';
import { EMBEDDING_DIMENSIONS } from '../../src/modules/vouchers/embedding.ts';
import { voucherPipelineJob, type VoucherPipelineJobData } from '../../src/modules/vouchers/pipeline/pipeline.job.ts';
import { runVoucherPipeline } from '../../src/modules/vouchers/pipeline/pipeline.service.ts';
import { systemContext } from '../../src/shared/context.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { eventually, startTestApp, targets, type TestApp } from '../support/harness.ts';
import { jobState, runSignal, runThroughRestarts } from '../support/jobs.ts';
import { randomOrganizationNumber, type Tenant } from '../support/seed.ts';
import { makePdf, PNG, TEST_FILES_DIR, upload } from '../files/helpers.ts';

/**
 * vouchers.process itself (its handler and options, onGiveUp included) on a queue of this file's own,
 * for the tests that kill its runs: this file's app works vouchers.process (and on PostgreSQL other
 * files' apps may too), and any of those workers would take the job out of the test's hands.
 */
const pipelineOnItsOwnQueue = defineJob<VoucherPipelineJobData>('test.vouchers-process', voucherPipelineJob.handler, voucherPipelineJob.options);

// The voucher pipeline (job vouchers.process) end to end: an upload of type VOUCHER → the job reads
// the file → status DRAFT with workflow_status COMPLETED and what the text told, or WAITING_FOR_ANSWER
// with a DUPLICATE question, or FAILED with a review task (spec 001 "Workflow status values").
describe.each(targets())('voucher pipeline (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let receipt: Buffer;

  beforeAll(async () => {
    app = await startTestApp(target, { env: { DATA_DIR: TEST_FILES_DIR }, jobs: { queues: ['vouchers.process'] } });
    t = await app.seed.tenant();
    receipt = await makePdf([`Kaffebrenneriet Tromsø AS\nKvittering nr ${randomUUID().slice(0, 8)}\nDato 12.03.2026\nKaffe 2 stk 60,00\nSum 1 234,50\nBetalt med kort`]);
  });
  afterAll(() => app?.close());

  const uploadVoucher = async (bytes: Buffer, name: string, tenant = t) => {
    const res = await upload(app, { client_account_id: tenant.account.id, type: 'VOUCHER' }, { bytes, name }, tenant.user.token);
    expect(res.status, res.text).toBe(201);
    return res.body.created_voucher_id as number;
  };
  const finished = (id: number) =>
    eventually(async () => {
      const v = await app.db.prisma.voucher.findUniqueOrThrow({ where: { id } });
      return v.workflowStatus && ['COMPLETED', 'WAITING_FOR_ANSWER', 'FAILED'].includes(v.workflowStatus) ? v : undefined;
    }, `voucher ${id} through the pipeline`);

  it('a receipt PDF: DRAFT, COMPLETED, type RECPT, the total, the date, the text and a 256-number embedding', async () => {
    const id = await uploadVoucher(receipt, 'kvittering-kaffe.pdf');
    const v = await finished(id);
    expect(v).toMatchObject({ status: 'DRAFT', workflowStatus: 'COMPLETED', workflowError: null, type: 'RECPT', duplicateOfId: null });
    expect(v.detectedAmount?.toFixed(2)).toBe('1234.50');
    expect(v.documentDate?.toISOString().slice(0, 10)).toBe('2026-03-12');
    expect(v.extractedText).toContain('Kvittering');
    expect(v.embedding).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(Math.hypot(...v.embedding)).toBeCloseTo(1, 4);
    expect(await app.db.prisma.voucherQuestion.count({ where: { voucherId: id } })).toBe(0);
    // the file's GraphQL record shows where the voucher is
    const file = await app.gql(t.user.token, 'query ($id: Int!) { file(id: $id) { createdVoucher { id status workflowStatus } } }', { id: v.fileId });
    expect(file.data.file.createdVoucher).toEqual({ id, status: 'DRAFT', workflowStatus: 'COMPLETED' });
  });

  it('the same bytes again: a duplicate of the first, WAITING_FOR_ANSWER, one open DUPLICATE question', async () => {
    const bytes = await makePdf([`Kvittering ${randomUUID()}\nSum 99,00`]);
    const first = await finished(await uploadVoucher(bytes, 'a.pdf'));
    expect(first.workflowStatus).toBe('COMPLETED');
    const second = await finished(await uploadVoucher(bytes, 'a-igjen.pdf'));
    expect(second).toMatchObject({ status: 'DRAFT', workflowStatus: 'WAITING_FOR_ANSWER', duplicateOfId: first.id, type: 'RECPT' });
    const questions = await app.db.prisma.voucherQuestion.findMany({ where: { voucherId: second.id } });
    expect(questions).toEqual([expect.objectContaining({ questionType: 'DUPLICATE', status: 'OPEN', clientAccountId: t.account.id, text: expect.stringContaining(`bilag ${first.id}`) })]);

    // another client account with the same bytes has no duplicate
    const elsewhere = await app.seed.tenant();
    expect((await finished(await uploadVoucher(bytes, 'a.pdf', elsewhere))).workflowStatus).toBe('COMPLETED');

    // a second run of the job (delivery is at least once) changes nothing: the voucher is finished
    const files = await createFileServices(app.config, app.db.prisma);
    const job = { prisma: app.db.prisma, service: systemContext(app.db.prisma, { files }), logger: createLogger('silent') };
    expect(await runVoucherPipeline(job, second.id, { lastAttempt: false })).toEqual({ skipped: `voucher ${second.id} is WAITING_FOR_ANSWER` });
    // a run that died half way starts over without asking twice
    await app.db.prisma.voucher.update({ where: { id: second.id }, data: { workflowStatus: 'CLASSIFICATION' } });
    expect(await runVoucherPipeline(job, second.id, { lastAttempt: false })).toMatchObject({ workflowStatus: 'WAITING_FOR_ANSWER', duplicateOfId: first.id });
    expect(await app.db.prisma.voucherQuestion.count({ where: { voucherId: second.id } })).toBe(1);
  });

  it("a sales invoice: the client account's own organisation number as seller makes it ARINV", async () => {
    const own = randomOrganizationNumber();
    await app.db.prisma.clientAccount.update({ where: { id: t.account.id }, data: { organizationNumber: own } });
    const invoice = await makePdf([`Faktura ${randomUUID().slice(0, 6)}\nOrg.nr. ${own.slice(0, 3)} ${own.slice(3, 6)} ${own.slice(6)} MVA\nFakturadato: 02.04.2026\nForfallsdato: 16.04.2026\nSum eks. mva 400,00\nÅ betale 500,00`]);
    const v = await finished(await uploadVoucher(invoice, 'utgående-faktura.pdf'));
    expect(v).toMatchObject({ workflowStatus: 'COMPLETED', type: 'ARINV' });
    expect(v.detectedAmount?.toFixed(2)).toBe('500.00');
    expect(v.documentDate?.toISOString().slice(0, 10)).toBe('2026-04-02');
  });

  it('an image: COMPLETED without text (no OCR), no type guessed, an embedding of its file name', async () => {
    const v = await finished(await uploadVoucher(PNG, `foto-${randomUUID().slice(0, 6)}.png`));
    expect(v).toMatchObject({ status: 'DRAFT', workflowStatus: 'COMPLETED', type: null, extractedText: null, detectedAmount: null });
    expect(v.embedding).toHaveLength(EMBEDDING_DIMENSIONS);
  });

  it('a file the pipeline cannot read: FAILED with workflow_error and one VOUCHER_REVIEW task in Norwegian', async () => {
    // a record whose bytes are not in the store (a lost disk): retrying cannot help
    const file = await app.db.prisma.storedFile.create({
      data: { clientAccountId: t.account.id, type: 'VOUCHER', fileName: 'borte.pdf', contentType: 'application/pdf', size: 10, sha256: '0'.repeat(64), storageKey: `${t.account.id}/${randomUUID()}`, pageCount: 1 },
    });
    const voucher = await app.db.prisma.voucher.create({ data: { clientAccountId: t.account.id, fileId: file.id, workflowStatus: 'IMAGE_PROCESSING' } });
    await enqueue(app.db.prisma, voucherPipelineJob, { voucherId: voucher.id });
    const v = await finished(voucher.id);
    expect(v).toMatchObject({ workflowStatus: 'FAILED', status: 'PENDING', workflowError: expect.stringContaining('missing from the file store') });
    const tasks = await app.db.prisma.task.findMany({ where: { relationType: 'voucher', relationId: voucher.id } });
    expect(tasks).toEqual([
      expect.objectContaining({ clientAccountId: t.account.id, taskType: 'VOUCHER_REVIEW', status: 'OPEN', title: `Bilag ${voucher.id} (borte.pdf) må behandles manuelt`, description: expect.stringContaining('missing') }),
    ]);
    // "Each task gets a chat thread automatically" (spec 002), the pipeline's too
    const thread = await app.db.prisma.chatThread.findUniqueOrThrow({ where: { id: tasks[0].threadId! } });
    expect(thread).toMatchObject({ clientAccountId: t.account.id, subject: tasks[0].title, relationType: 'task', relationId: tasks[0].id });
  });

  it('spec 002 "Task": "Allowed values of task status and task_type: not shown": a review task in a client\'s own status is still open, so a failing run opens no second one; a CANCELLED one does not count', async () => {
    const files = await createFileServices(app.config, app.db.prisma);
    const job = { prisma: app.db.prisma, service: systemContext(app.db.prisma, { files }), logger: createLogger('silent') };
    const lostVoucher = async () => {
      const file = await app.db.prisma.storedFile.create({
        data: { clientAccountId: t.account.id, type: 'VOUCHER', fileName: 'borte.pdf', contentType: 'application/pdf', size: 10, sha256: '0'.repeat(64), storageKey: `${t.account.id}/${randomUUID()}`, pageCount: 1 },
      });
      return app.db.prisma.voucher.create({ data: { clientAccountId: t.account.id, fileId: file.id, workflowStatus: 'IMAGE_PROCESSING' } });
    };
    const reviewTask = async (voucherId: number, status: string) => {
      const res = await app.http('POST', '/api/v2/tasks', { token: t.user.token, body: { client_account_id: t.account.id, title: 'Se på bilaget', task_type: 'voucher_review', status, relation_type: 'voucher', relation_id: voucherId } });
      expect(res.status, res.text).toBe(201);
      return res.body.id as number;
    };
    const tasksOf = async (voucherId: number) => (await app.db.prisma.task.findMany({ where: { relationType: 'voucher', relationId: voucherId }, orderBy: { id: 'asc' } })).map((x) => [x.id, x.status, x.taskType]);

    const waiting = await lostVoucher();
    const open = await reviewTask(waiting.id, 'Venter på leverandør');
    expect(await runVoucherPipeline(job, waiting.id, { lastAttempt: true })).toMatchObject({ workflowStatus: 'FAILED' });
    expect(await tasksOf(waiting.id)).toEqual([[open, 'Venter på leverandør', 'VOUCHER_REVIEW']]);

    const dropped = await lostVoucher();
    const cancelled = await reviewTask(dropped.id, 'cancelled');
    expect(await runVoucherPipeline(job, dropped.id, { lastAttempt: true })).toMatchObject({ workflowStatus: 'FAILED' });
    expect(await tasksOf(dropped.id)).toEqual([[cancelled, 'CANCELLED', 'VOUCHER_REVIEW'], [expect.any(Number), 'OPEN', 'VOUCHER_REVIEW']]);
  });

  it('workflow_status is written as each step starts, in the order of the steps', async () => {
    const files = await createFileServices(app.config, app.db.prisma);
    const bytes = await makePdf([`Faktura ${randomUUID()}\nÅ betale 10,00`]);
    const file = await app.db.prisma.storedFile.create({
      data: { clientAccountId: t.account.id, type: 'VOUCHER', fileName: 'steg.pdf', contentType: 'application/pdf', size: bytes.length, sha256: randomUUID().replace(/-/g, '').padEnd(64, '0'), storageKey: await files.store.put(t.account.id, bytes), pageCount: 1 },
    });
    // made here, not uploaded: no job runs it behind the test's back
    const voucher = await app.db.prisma.voucher.create({ data: { clientAccountId: t.account.id, fileId: file.id, workflowStatus: 'IMAGE_PROCESSING' } });
    const written: unknown[] = [];
    const prisma = new Proxy(app.db.prisma, {
      get(target, prop) {
        if (prop !== 'voucher') return Reflect.get(target, prop);
        return new Proxy(target.voucher, {
          get(delegate, p) {
            if (p !== 'update') return Reflect.get(delegate, p);
            return (args: { data: { workflowStatus?: unknown } }) => {
              written.push(args.data.workflowStatus);
              return delegate.update(args as never);
            };
          },
        });
      },
    });
    const job = { prisma, service: systemContext(app.db.prisma, { files }), logger: createLogger('silent') };
    expect(await runVoucherPipeline(job, voucher.id, { lastAttempt: false })).toMatchObject({ workflowStatus: 'COMPLETED', type: 'APINV' });
    expect(written).toEqual(['IMAGE_PROCESSING', 'STARTING_WORKFLOW', 'DATA_EXTRACTION', 'DUPLICATE_CHECK', 'CLASSIFICATION']);
    expect(await app.db.prisma.voucher.findUniqueOrThrow({ where: { id: voucher.id } })).toMatchObject({ status: 'DRAFT', workflowStatus: 'COMPLETED' });
  });

  /**
   * A voucher whose pipeline job runs through process lifetimes (test/support/jobs.ts): every run
   * reads the voucher's file at its first step (IMAGE_PROCESSING); run n for which `dies(n)` holds
   * never gets the bytes (as a process dies parsing them) and its process is killed meanwhile. pg-boss's
   * supervision in the restarted process expires the dead run after expireInSeconds (3 s here, not 1: on a loaded machine a living run could outlast 1 s before its kill, and
   * retries without delay, for speed).
   */
  async function pipelineThroughRestarts(dies: (run: number) => boolean, enqueueOptions: { retryLimit?: number } = {}) {
    const files = await createFileServices(app.config, app.db.prisma);
    const bytes = await makePdf([`Faktura ${randomUUID()}\nÅ betale 10,00`]);
    const storageKey = await files.store.put(t.account.id, bytes);
    const file = await app.db.prisma.storedFile.create({
      data: { clientAccountId: t.account.id, type: 'VOUCHER', fileName: 'tung.pdf', contentType: 'application/pdf', size: bytes.length, sha256: randomUUID().replace(/-/g, '').padEnd(64, '0'), storageKey, pageCount: 1 },
    });
    const voucher = await app.db.prisma.voucher.create({ data: { clientAccountId: t.account.id, fileId: file.id, workflowStatus: 'IMAGE_PROCESSING' } });
    const started = runSignal();
    let reads = 0;
    const read = DiskFileStore.prototype.get;
    const spy = vi.spyOn(DiskFileStore.prototype, 'get').mockImplementation(function (this: DiskFileStore, key: string) {
      if (key !== storageKey) return read.call(this, key);
      started.fire();
      return dies(++reads) ? new Promise<Buffer>(() => undefined) : read.call(this, key);
    });
    try {
      await migrateJobs(app.db, createLogger('silent')); // this file's queue
      const id = (await enqueue(app.db.prisma, pipelineOnItsOwnQueue, { voucherId: voucher.id }, { expireInSeconds: 3, retryDelay: 0, retryBackoff: false, ...enqueueOptions }))!;
      const { runs, restarts } = await runThroughRestarts({
        db: app.db,
        start: () => startJobs({ db: app.db, config: app.config, logger: createLogger('silent'), pollingIntervalSeconds: 0.1, schedules: false, queues: [pipelineOnItsOwnQueue.name] }),
        name: pipelineOnItsOwnQueue.name,
        id,
        started,
        dies,
      });
      const [job] = await app.db.prisma.$queryRaw<{ output: any }[]>`SELECT output FROM pgboss.job WHERE name = ${pipelineOnItsOwnQueue.name} AND id = ${id}::uuid`;
      return {
        runs,
        restarts,
        job: { state: await jobState(app.db, pipelineOnItsOwnQueue.name, id), output: job.output },
        voucher: await app.db.prisma.voucher.findUniqueOrThrow({ where: { id: voucher.id } }),
        tasks: await app.db.prisma.task.findMany({ where: { relationType: 'voucher', relationId: voucher.id } }),
      };
    } finally {
      spy.mockRestore();
    }
  }

  it('a job killed mid-run by a process restart is failed after its retries, not run forever: a voucher whose pipeline dies on every run ends FAILED with workflow_error "the process stopped while running this job" and one open VOUCHER_REVIEW task', async () => {
    // retryLimit 1 for speed (each death waits out expireInSeconds); test/jobs counts the runs
    const { runs, restarts, job, voucher, tasks } = await pipelineThroughRestarts(() => true, { retryLimit: 1 });
    expect({ runs, restarts }).toEqual({ runs: 2, restarts: 2 });
    expect(job).toEqual({ state: 'failed', output: { message: PROCESS_STOPPED } });
    expect(voucher).toMatchObject({ status: 'PENDING', workflowStatus: 'FAILED', workflowError: PROCESS_STOPPED });
    expect(tasks).toEqual([
      expect.objectContaining({ clientAccountId: t.account.id, taskType: 'VOUCHER_REVIEW', status: 'OPEN', title: `Bilag ${voucher.id} (tung.pdf) må behandles manuelt`, description: `Den automatiske behandlingen av bilaget stoppet: ${PROCESS_STOPPED}` }),
    ]);
  });

  it('a pipeline run killed with its process is run again after the restart, and that run completes normally', async () => {
    const { runs, restarts, job, voucher, tasks } = await pipelineThroughRestarts((n) => n === 1);
    expect({ runs, restarts }).toEqual({ runs: 2, restarts: 1 });
    expect(job.state).toBe('completed');
    expect(voucher).toMatchObject({ status: 'DRAFT', workflowStatus: 'COMPLETED', workflowError: null, type: 'APINV' });
    expect(tasks).toEqual([]);
  });
});
