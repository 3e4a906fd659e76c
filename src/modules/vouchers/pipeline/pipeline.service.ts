import type { WorkflowStatus } from '../../../generated/prisma/client.ts';
import type { JobContext } from '../../../jobs/jobs.ts';
import { systemContext } from '../../../shared/context.ts';
import { AppError } from '../../../shared/errors.ts';
import { CLOSED_TASK_STATUSES } from '../../tasks/tasks.rules.ts';
import { createTask } from '../../tasks/tasks.service.ts';
import { fileServices } from '../../files/file-services.ts';
import { isPaged, PAGE_TYPES, PDF } from '../../files/files.rules.ts';
import { FileProblem, HeavyWorkError } from '../../../workers/heavy-work.ts';
import { readStoredFile } from '../../files/files.service.ts';
import { embedVoucherText } from '../embedding.ts';
import { embeddingText, extractDocumentDate, extractTotalAmount, guessDocumentType } from './pipeline.rules.ts';

/** Workflow statuses after which the pipeline has nothing more to do. */
const FINISHED: readonly WorkflowStatus[] = ['COMPLETED', 'WAITING_FOR_ANSWER', 'FAILED', 'CANCELLED'];

/** A problem with the voucher's file that running again cannot mend. */
class PipelineStop extends Error {}

/**
 * Heavy work for the pipeline, in the pool (src/workers/heavy-work.ts): a problem with the file, or a
 * worker stopped for its memory or time, is a PipelineStop (the same file would stop it again), so a
 * poison file ends FAILED at once instead of being retried.
 */
async function heavy<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (e) {
    if (e instanceof FileProblem) throw new PipelineStop(`the file ${e.message}`);
    if (e instanceof HeavyWorkError) throw new PipelineStop(`reading the file was stopped: ${e.message}`);
    throw e;
  }
}

export type PipelineResult =
  | { skipped: string }
  | { voucherId: number; workflowStatus: 'COMPLETED' | 'WAITING_FOR_ANSWER'; type: string | null; duplicateOfId: number | null }
  | { voucherId: number; workflowStatus: 'FAILED'; error: string };

/**
 * The voucher pipeline, one step after another, each step's workflow_status written when it starts
 * so a client polling the voucher sees where it is:
 *
 *   IMAGE_PROCESSING   the file is read and sniffed again; its page count checked
 *   STARTING_WORKFLOW
 *   DATA_EXTRACTION    a PDF's text layer (unpdf); an image has none (no OCR here)
 *   DUPLICATE_CHECK    an earlier voucher of the client account with the same bytes (SHA-256)
 *   CLASSIFICATION     document type, total amount and document date from the text; the similarity embedding
 *
 * and at the end, in one transaction, the findings and status DRAFT with workflow_status COMPLETED,
 * or WAITING_FOR_ANSWER with a DUPLICATE question when a duplicate was found. A failure marks the
 * voucher FAILED with workflow_error and opens a VOUCHER_REVIEW task (on the last attempt, or at
 * once when retrying cannot help); before that the error is thrown so the job is retried.
 */
export async function runVoucherPipeline(
  job: Pick<JobContext, 'prisma' | 'service' | 'logger'>,
  voucherId: number,
  options: { lastAttempt: boolean },
): Promise<PipelineResult> {
  const { prisma } = job;
  const voucher = await prisma.voucher.findUnique({
    where: { id: voucherId },
    include: { file: true, clientAccount: { select: { organizationNumber: true } } },
  });
  if (!voucher) return { skipped: `voucher ${voucherId} no longer exists` };
  if (voucher.status === 'DELETED' || (voucher.workflowStatus && FINISHED.includes(voucher.workflowStatus))) {
    return { skipped: `voucher ${voucherId} is ${voucher.status === 'DELETED' ? 'deleted' : voucher.workflowStatus}` };
  }
  const step = (workflowStatus: WorkflowStatus) => prisma.voucher.update({ where: { id: voucherId }, data: { workflowStatus }, select: { id: true } });
  try {
    await step('IMAGE_PROCESSING');
    const { file } = voucher;
    let bytes: Buffer;
    try {
      bytes = await readStoredFile(job.service, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new PipelineStop(`the bytes of file ${file.id} are missing from the file store`);
      throw e;
    }
    const pool = fileServices(job.service).heavy;
    const { contentType, pageCount } = await heavy(pool.run('inspectFile', { bytes, fileName: file.fileName, allowed: PAGE_TYPES }));
    if (!contentType || !isPaged(contentType)) throw new PipelineStop(`file ${file.id} is ${contentType ?? 'of an unknown type'}, not a PDF or an image`);
    if (pageCount !== file.pageCount || contentType !== file.contentType) {
      await prisma.storedFile.update({ where: { id: file.id }, data: { pageCount, contentType } });
    }

    await step('STARTING_WORKFLOW');

    await step('DATA_EXTRACTION');
    const text = contentType === PDF ? await heavy(pool.run('pdfText', { bytes })) : null;

    await step('DUPLICATE_CHECK');
    const duplicate = await prisma.voucher.findFirst({
      where: { clientAccountId: voucher.clientAccountId, id: { lt: voucherId }, status: { not: 'DELETED' }, file: { sha256: file.sha256 } },
      orderBy: { id: 'asc' },
      select: { id: true },
    });

    await step('CLASSIFICATION');
    const type = text ? guessDocumentType(text, voucher.clientAccount.organizationNumber) : null;
    const detectedAmount = text ? extractTotalAmount(text) : null;
    const documentDate = text ? extractDocumentDate(text) : null;
    const embedding = embedVoucherText(embeddingText(file.fileName, text));

    const workflowStatus = duplicate ? 'WAITING_FOR_ANSWER' : 'COMPLETED';
    await prisma.$transaction(async (tx) => {
      await tx.voucher.update({
        where: { id: voucherId },
        data: {
          type: voucher.type ?? type,
          detectedAmount,
          documentDate: voucher.documentDate ?? (documentDate ? new Date(`${documentDate}T00:00:00Z`) : null),
          extractedText: text,
          embedding: embedding.some((v) => v !== 0) ? embedding : [],
          duplicateOfId: duplicate?.id ?? null,
          status: voucher.status === 'PENDING' ? 'DRAFT' : voucher.status,
          workflowStatus,
          workflowError: null,
        },
      });
      if (duplicate && !(await tx.voucherQuestion.findFirst({ where: { voucherId, questionType: 'DUPLICATE', status: 'OPEN' }, select: { id: true } }))) {
        await tx.voucherQuestion.create({
          data: {
            clientAccountId: voucher.clientAccountId,
            voucherId,
            questionType: 'DUPLICATE',
            text: `Bilaget ser ut til å være en kopi av bilag ${duplicate.id}: filen er identisk. Skal det beholdes som eget bilag?`,
          },
        });
      }
    });
    return { voucherId, workflowStatus, type: voucher.type ?? type, duplicateOfId: duplicate?.id ?? null };
  } catch (e) {
    const permanent = e instanceof PipelineStop || (e instanceof AppError && e.status < 500);
    if (!permanent && !options.lastAttempt) throw e;
    const message = (e instanceof Error ? e.message : String(e)).slice(0, 1000);
    job.logger.warn({ err: e, voucherId }, 'the voucher pipeline failed; the voucher needs manual handling');
    await failVoucherPipeline(job, voucherId, message);
    return { voucherId, workflowStatus: 'FAILED', error: message };
  }
}

/**
 * The end of a voucher's pipeline that cannot go on, in one transaction: workflow_status FAILED with
 * `message` (up to 1,000 characters) as workflow_error, and a VOUCHER_REVIEW task for the voucher
 * unless one is open. Also the vouchers.process job's onGiveUp, which may come after the voucher
 * has changed: a voucher gone, deleted or through the pipeline (a run that outlived its time may
 * have finished it) is left alone.
 */
export async function failVoucherPipeline(job: Pick<JobContext, 'prisma' | 'logger'>, voucherId: number, message: string): Promise<void> {
  const error = message.slice(0, 1000);
  await job.prisma.$transaction(async (tx) => {
    const voucher = await tx.voucher.findUnique({ where: { id: voucherId }, select: { clientAccountId: true, status: true, workflowStatus: true, file: { select: { fileName: true } } } });
    if (!voucher || voucher.status === 'DELETED' || (voucher.workflowStatus && FINISHED.includes(voucher.workflowStatus))) return;
    await tx.voucher.update({ where: { id: voucherId }, data: { workflowStatus: 'FAILED', workflowError: error } });
    const open = await tx.task.findFirst({
      where: { clientAccountId: voucher.clientAccountId, relationType: 'voucher', relationId: voucherId, taskType: 'VOUCHER_REVIEW', status: { notIn: [...CLOSED_TASK_STATUSES] } },
      select: { id: true },
    });
    if (!open) {
      // through the tasks service: the task gets its chat thread in this transaction
      await createTask(systemContext(tx, { logger: job.logger }), {
        input: {
          clientAccountId: voucher.clientAccountId,
          title: `Bilag ${voucherId} (${voucher.file.fileName.slice(0, 150)}) må behandles manuelt`,
          description: `Den automatiske behandlingen av bilaget stoppet: ${error}`.slice(0, 5000),
          taskType: 'VOUCHER_REVIEW',
          relationType: 'voucher',
          relationId: voucherId,
        },
      });
    }
  });
}
