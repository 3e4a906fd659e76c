import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FILE_LIMITS } from '../../src/modules/files/file-limits.ts';
import { heavyWork, HeavyWorkError } from '../../src/workers/heavy-work.ts';
import { eventually, onceTargets, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { makePdf, pdfBomb, pngClaiming, sharedContentPdf, TEST_FILES_DIR, upload, zipBomb, zipOf } from './helpers.ts';

/** made once for both databases */
const once = <T>(make: () => T) => {
  let made: T | undefined;
  return () => (made ??= make());
};
const twentyThousandPages = once(() => sharedContentPdf(20_000, 0));
/** two pages of 300,000 text lines: 1.5 MB, within every limit, but reading its text needs more than 64 MB */
const wordy = once(() => sharedContentPdf(2, 300_000));

// Issue 27: no upload or job can take the process down. Files are read in worker threads with a memory
// and a time limit (src/workers/heavy-work.ts), within limits where the formats allow abuse
// (src/modules/files/file-limits.ts); what is beyond a limit is refused at upload, and a file that
// exhausts a worker fails its voucher while the server goes on answering.
describe.each(targets())('heavy files (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    // a worker heap of 64 MB: a PDF that passes every limit and still needs more is made in a few lines
    app = await startTestApp(target, { env: { DATA_DIR: TEST_FILES_DIR, WORKER_MAX_MEMORY_MB: '64' }, jobs: { queues: ['vouchers.process'] } });
    t = await app.seed.tenant();
  });
  afterAll(() => app?.close());

  const send = (bytes: Buffer, name: string, type = 'VOUCHER') => upload(app, { client_account_id: t.account.id, type }, { bytes, name }, t.user.token);
  const storedFiles = () => app.db.prisma.storedFile.count({ where: { clientAccountId: t.account.id } });
  const refused = async (bytes: Buffer, name: string, type: string, limit: RegExp) => {
    const before = await storedFiles();
    const res = await send(bytes, name, type);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ status: 400, error: expect.stringMatching(limit) });
    expect(await storedFiles()).toBe(before);
    return res;
  };

  it('"at most MAX_PDF_PAGES pages per uploaded PDF (default 2,000; a larger file is 400 naming the limit and nothing is stored)": the probe\'s 20,000-page PDF', async () => {
    const res = await refused(twentyThousandPages(), 'tjue-tusen.pdf', 'VOUCHER', /file: is a PDF of 20000 pages; at most 2000 \(MAX_PDF_PAGES\) are accepted/);
    expect(await app.db.prisma.voucher.count({ where: { clientAccountId: t.account.id } })).toBe(0);
    expect(res.body.error).not.toMatch(/stack|at \w+ \(/);
  });

  it('a PDF of exactly MAX_PDF_PAGES pages is taken', async () => {
    const res = await send(sharedContentPdf(2000, 1), 'to-tusen.pdf', 'ATTACHMENT');
    expect(res.status, res.text).toBe(201);
    expect(res.body.page_count).toBe(2000);
  });

  it('"a PDF bomb … refused": a 200 KB PDF whose stream inflates to 200 MB is 400 naming MAX_INFLATED_MB, nothing stored', async () => {
    await refused(pdfBomb(200), 'bombe.pdf', 'VOUCHER', /file: is a PDF whose compressed parts inflate to more than 100 MB \(MAX_INFLATED_MB\)/);
  });

  it('"a ZIP bomb … refused": an archive inflating to 200 MB is 400 naming MAX_INFLATED_MB; one of more than MAX_ZIP_ENTRIES entries is 400 naming that', async () => {
    await refused(zipBomb(200), 'bombe.zip', 'ATTACHMENT', /file: is a ZIP archive whose compressed parts inflate to more than 100 MB \(MAX_INFLATED_MB\)/);
    const many = Array.from({ length: DEFAULT_FILE_LIMITS.maxZipEntries + 1 }, (_, i) => ({ name: `${i}.txt`, bytes: Buffer.from('x') }));
    await refused(zipOf(many), 'mange.zip', 'ATTACHMENT', /file: is a ZIP archive of more than 10000 entries \(MAX_ZIP_ENTRIES\)/);
    const fine = await send(zipOf([{ name: 'bilag.txt', bytes: Buffer.from('Kvittering\n'.repeat(1000)) }]), 'vedlegg.zip', 'ATTACHMENT');
    expect(fine.status, fine.text).toBe(201);
  });

  it('"a limit … on image pixel counts": a PNG of 20,000 × 20,000 pixels is 400 naming MAX_IMAGE_PIXELS', async () => {
    await refused(pngClaiming(20_000, 20_000), 'stor.png', 'VOUCHER', /file: is an image of 20000 × 20000 = 400000000 pixels; at most 50000000 \(MAX_IMAGE_PIXELS\) are accepted/);
  });

  it('"a PDF that passes the page limit but exhausts the worker\'s memory ends FAILED while the server keeps answering", with a review task; the next voucher goes through', async () => {
    const res = await send(wordy(), 'tung.pdf');
    expect(res.status, res.text).toBe(201);
    const id = res.body.created_voucher_id as number;
    const answering = (async () => {
      for (let i = 0; i < 5; i++) expect((await app.http('GET', `/api/v2/items?client_account_id=${t.account.id}`, { token: t.user.token })).status).toBe(200);
    })();
    const failed = await eventually(async () => {
      const v = await app.db.prisma.voucher.findUniqueOrThrow({ where: { id } });
      return v.workflowStatus === 'FAILED' ? v : undefined;
    }, `voucher ${id} FAILED`);
    await answering;
    expect(failed.workflowError).toMatch(/reading the file was stopped: it needed more than the 64 MB of memory a worker may use \(WORKER_MAX_MEMORY_MB\)/);
    const tasks = await app.db.prisma.task.findMany({ where: { relationType: 'voucher', relationId: id, taskType: 'VOUCHER_REVIEW' } });
    expect(tasks).toHaveLength(1);
    // failed at once: a retry of the same file would only exhaust a worker again
    const job = await app.db.prisma.$queryRaw<{ retry_count: number }[]>`SELECT retry_count FROM pgboss.job WHERE name = 'vouchers.process' AND data->>'voucherId' = ${String(id)}`;
    expect(job.map((j) => j.retry_count)).toEqual([0]);

    const next = await send(await makePdf(['Kvittering\nSum 99,00']), 'lett.pdf');
    expect(next.status, next.text).toBe(201);
    const done = await eventually(async () => {
      const v = await app.db.prisma.voucher.findUniqueOrThrow({ where: { id: next.body.created_voucher_id } });
      return v.workflowStatus === 'COMPLETED' ? v : undefined;
    }, 'the next voucher COMPLETED');
    expect(done.extractedText).toContain('Sum 99,00');
  });
});

describe.each(onceTargets())('the heavy-work pool (%s: no database involved)', () => {
  it('a task beyond its time limit fails with HeavyWorkError naming WORKER_TASK_TIMEOUT_MS, and the pool goes on', async () => {
    const pool = heavyWork({ threads: 1, maxMemoryMb: 256, timeoutMs: 50, limits: DEFAULT_FILE_LIMITS });
    try {
      const slow = pool.run('pdfText', { bytes: wordy() });
      await expect(slow).rejects.toBeInstanceOf(HeavyWorkError);
      await expect(slow).rejects.toThrow(/it took longer than the 0.05 s a task may take \(WORKER_TASK_TIMEOUT_MS\)/);
    } finally {
      await pool.close();
    }
    const roomy = heavyWork({ threads: 1, maxMemoryMb: 256, timeoutMs: 60_000, limits: DEFAULT_FILE_LIMITS });
    try {
      expect(await roomy.run('inspectFile', { bytes: await makePdf(['a', 'b']), fileName: 'x.pdf' })).toEqual({ contentType: 'application/pdf', pageCount: 2 });
    } finally {
      await roomy.close();
    }
  });
});
