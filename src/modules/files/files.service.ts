import { createHash } from 'node:crypto';
import type { FileType } from '../../generated/prisma/client.ts';
import { auditUserId, type RequestContext } from '../../shared/context.ts';
import { fileServices } from './file-services.ts';

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
