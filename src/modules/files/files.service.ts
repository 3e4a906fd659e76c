import { createHash } from 'node:crypto';
import type { FileType, Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { enqueue } from '../../jobs/jobs.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { ContentTooLargeError, ValidationError } from '../../shared/errors.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { VOUCHER_PIPELINE } from '../../jobs/names.ts';

type VoucherPipelineData = NonNullable<(typeof VOUCHER_PIPELINE)['data']>;
import { FileProblem, HeavyWorkError } from '../../workers/heavy-work.ts';
import type { FileFacts } from './file-content.ts';
import { fileServices } from './file-services.ts';
import { allowedContentTypes, cleanFileName, MAX_UPLOAD_BYTES } from './files.rules.ts';

export interface NewFile {
  clientAccountId: number;
  type: FileType;
  fileName: string;
  /** sniffed from the bytes by the caller (uploads), or known (a merged PDF) */
  contentType: string;
  bytes: Buffer;
  /** pages of a PDF, 1 for an image, null otherwise */
  pageCount: number | null;
  /** an attachment of this voucher */
  voucherId?: number | null;
  documentId?: number | null;
}

/**
 * Stores the bytes and writes the file's record through ctx (inside the caller's transaction when
 * there is one). The bytes are written first: if the transaction rolls back they are an orphan the
 * record never names, which is harmless; a record never names missing bytes.
 */
export async function createStoredFile(ctx: RequestContext, file: NewFile) {
  const storageKey = await fileServices(ctx).store.put(file.clientAccountId, file.bytes);
  return ctx.db.storedFile.create({
    data: {
      clientAccountId: file.clientAccountId,
      type: file.type,
      fileName: file.fileName,
      contentType: file.contentType,
      size: file.bytes.length,
      sha256: createHash('sha256').update(file.bytes).digest('hex'),
      storageKey,
      pageCount: file.pageCount,
      voucherId: file.voucherId ?? null,
      documentId: file.documentId ?? null,
      createdById: auditUserId(ctx),
    },
  });
}

/** The bytes of a stored file. */
export function readStoredFile(ctx: RequestContext, file: { storageKey: string }): Promise<Buffer> {
  return fileServices(ctx).store.get(file.storageKey);
}

type Query = { include?: PrismaNS.StoredFileInclude; select?: PrismaNS.StoredFileSelect };

export interface UploadArgs {
  clientAccountId: number;
  type: FileType;
  fileName: string;
  /** the file's bytes (a multipart upload's, or decoded from base64) */
  contentBase64: Buffer;
  /** ATTACHMENT only: the voucher the file is attached to */
  voucherId?: number | null;
}

/**
 * What an upload is and its pages, read in the heavy-work pool within the file limits: a file beyond a
 * limit, unreadable, or too heavy to read (the worker's memory or time) is a 400 on `file`.
 */
export async function inspectUpload(ctx: RequestContext, bytes: Buffer, fileName: string, allowed?: readonly string[]): Promise<FileFacts> {
  try {
    return await fileServices(ctx).heavy.run('inspectFile', { bytes, fileName, allowed });
  } catch (e) {
    if (e instanceof FileProblem) throw ValidationError.field('file', e.message);
    if (e instanceof HeavyWorkError) throw ValidationError.field('file', `could not be read within the limits: ${e.message}`);
    throw e;
  }
}

/**
 * POST /files: checks the caller may use the client account, the size (25 MB, 413) and what the
 * bytes are (sniffed; 400 naming the sniffed type when the file type does not take it; an encrypted
 * or unreadable PDF is a 400 too), stores the bytes and writes the file record. A VOUCHER upload
 * also creates its voucher (status PENDING, workflow_status IMAGE_PROCESSING, channel upload) and
 * enqueues the voucher pipeline (vouchers.process), all in one transaction.
 */
export async function uploadFile(ctx: RequestContext, args: UploadArgs, query: Query = {}) {
  const bytes = args.contentBase64;
  await requireAccount(ctx, args.clientAccountId);
  if (bytes.length > MAX_UPLOAD_BYTES) throw new ContentTooLargeError(`The file is ${bytes.length} bytes; at most ${MAX_UPLOAD_BYTES} bytes (25 MB) are accepted`);
  if (!bytes.length) throw ValidationError.field('file', 'is empty');
  const fileName = cleanFileName(args.fileName);
  const allowed = allowedContentTypes(args.type);
  const { contentType, pageCount } = await inspectUpload(ctx, bytes, fileName, allowed);
  if (!contentType || !allowed.includes(contentType)) {
    throw ValidationError.field(
      'file',
      `is ${contentType ? `of type ${contentType}` : 'of a type that could not be recognised from its content'}; a ${args.type} file may be ${allowed.join(', ')}`,
    );
  }
  if (args.voucherId != null && args.type !== 'ATTACHMENT') throw ValidationError.field('voucher_id', 'is only taken for an ATTACHMENT');
  return inTransaction(ctx, async (tx) => {
    if (args.voucherId != null) {
      const voucher = await tx.db.voucher.findUnique({ where: { id: args.voucherId }, select: { clientAccountId: true, status: true } });
      if (!voucher || voucher.status === 'DELETED') throw ValidationError.field('voucher_id', `is not a voucher (no voucher ${args.voucherId})`);
      await requireOwned(tx, 'Voucher', voucher);
      if (voucher.clientAccountId !== args.clientAccountId) throw ValidationError.field('voucher_id', `is a voucher of another client account than ${args.clientAccountId}`);
    }
    if (args.type === 'VOUCHER') {
      const { fileId } = await createFileVoucher(tx, { clientAccountId: args.clientAccountId, fileName, contentType, bytes, pageCount, channel: 'upload' });
      return tx.db.storedFile.findUniqueOrThrow({ ...query, where: { id: fileId } });
    }
    const file = await createStoredFile(tx, { clientAccountId: args.clientAccountId, type: args.type, fileName, contentType, bytes, pageCount, voucherId: args.voucherId });
    return tx.db.storedFile.findUniqueOrThrow({ ...query, where: { id: file.id } });
  });
}

export interface NewFileVoucher {
  clientAccountId: number;
  fileName: string;
  contentType: string;
  bytes: Buffer;
  pageCount: number | null;
  /** how it arrived: upload, email, govportal (a filing receipt) … */
  channel: string;
  /**
   * false: the voucher is evidence kept as it is (ARCHIVED, e.g. a filing receipt), not something to
   * book, so the pipeline does not run; default true: PENDING, and the voucher pipeline is enqueued.
   */
  process?: boolean;
}

/**
 * A voucher made from a file's bytes (the file stored as its VOUCHER file), inside the caller's
 * transaction: POST /files with type VOUCHER, and every module that keeps a document as a voucher
 * (a tax return's receipt). Processed vouchers start PENDING with the pipeline enqueued.
 */
export async function createFileVoucher(ctx: RequestContext, v: NewFileVoucher): Promise<{ voucherId: number; fileId: number }> {
  const process = v.process ?? true;
  const file = await createStoredFile(ctx, { clientAccountId: v.clientAccountId, type: 'VOUCHER', fileName: v.fileName, contentType: v.contentType, bytes: v.bytes, pageCount: v.pageCount });
  const user = auditUserId(ctx);
  const voucher = await ctx.db.voucher.create({
    data: {
      clientAccountId: v.clientAccountId,
      fileId: file.id,
      channel: v.channel,
      status: process ? 'PENDING' : 'ARCHIVED',
      workflowStatus: process ? 'IMAGE_PROCESSING' : null,
      createdById: user,
      updatedById: user,
    },
    select: { id: true },
  });
  if (process) await enqueue(ctx.db, VOUCHER_PIPELINE.name, { voucherId: voucher.id } satisfies VoucherPipelineData);
  return { voucherId: voucher.id, fileId: file.id };
}

/** One file: 404 when missing, 403 when it belongs to a client account the caller cannot access. */
export async function getFile(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, 'File', await ctx.db.storedFile.findUnique({ ...query, where: { id } }));
}
