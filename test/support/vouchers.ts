import { randomUUID } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { PDFDocument, StandardFonts } from '@pdfme/pdf-lib';
import jpeg from 'jpeg-js';
import type { Prisma as PrismaNS } from '../../src/generated/prisma/client.ts';
import { createFileServices, type FileServices } from '../../src/modules/files/file-services.ts';
import { createStoredFile } from '../../src/modules/files/files.service.ts';
import { systemContext } from '../../src/shared/context.ts';
import type { TestApp } from './harness.ts';
import type { Tenant } from './seed.ts';

/**
 * Vouchers for tests, until uploads (POST /files) and the voucher pipeline exist: real file bytes
 * made here (PDFs with pdf-lib, PNGs and JPEGs encoded here), stored through the app's file store
 * (createStoredFile) and a voucher row written with Prisma.
 */

/** A PDF of `pages` pages, each saying "<label> page n of pages" (so tests can tell pages apart). */
export async function pdfBytes(pages: number, label = 'Voucher', size: [number, number] = [595, 842]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage(size);
    page.drawText(`${label} page ${n} of ${pages}`, { x: 50, y: 780, size: 18, font });
  }
  return Buffer.from(await doc.save());
}

/** The page sizes (width × height, rounded) of a PDF, as pdf-lib reads them. */
export async function pageSizesOf(bytes: Uint8Array): Promise<string[]> {
  return (await PDFDocument.load(bytes)).getPages().map((p) => `${Math.round(p.getWidth())}x${Math.round(p.getHeight())}`);
}

/** The page count of a PDF, as pdf-lib reads it. */
export async function pageCountOf(bytes: Uint8Array): Promise<number> {
  return (await PDFDocument.load(bytes)).getPageCount();
}

/** A PNG of w×h RGB pixels in one colour (the format written out: signature, IHDR, IDAT, IEND). */
export function pngBytes(w = 4, h = 3, rgb: [number, number, number] = [200, 30, 30]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: w }, () => rgb).flat())]);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** A JPEG of w×h pixels (jpeg-js encoder). */
export function jpegBytes(w = 8, h = 6): Buffer {
  const data = Buffer.alloc(w * h * 4, 180);
  return Buffer.from(jpeg.encode({ data, width: w, height: h }, 80).data);
}

export interface VoucherSeed {
  bytes?: Buffer;
  contentType?: string;
  fileName?: string;
  pageCount?: number | null;
  data?: Partial<PrismaNS.VoucherUncheckedCreateInput>;
}

/** Stores files and writes vouchers for one test app. */
export function voucherFactory(app: TestApp) {
  let files: FileServices | undefined;
  const context = async () => systemContext(app.db.prisma, { files: (files ??= await createFileServices(app.config, app.db.prisma)) });

  async function file(t: Tenant, opts: { bytes: Buffer; contentType: string; fileName: string; pageCount?: number | null; voucherId?: number; type?: 'VOUCHER' | 'ATTACHMENT' }) {
    return createStoredFile(await context(), {
      clientAccountId: t.account.id,
      type: opts.type ?? 'VOUCHER',
      fileName: opts.fileName,
      contentType: opts.contentType,
      bytes: opts.bytes,
      pageCount: opts.pageCount ?? null,
      voucherId: opts.voucherId ?? null,
    });
  }

  /** A voucher of the tenant: a 1-page PDF unless told otherwise, status DRAFT. */
  async function voucher(t: Tenant, opts: VoucherSeed = {}) {
    const contentType = opts.contentType ?? 'application/pdf';
    const bytes = opts.bytes ?? (await pdfBytes(1));
    const pageCount = opts.pageCount !== undefined ? opts.pageCount : contentType === 'application/pdf' ? await pageCountOf(bytes) : contentType.startsWith('image/') ? 1 : null;
    const stored = await file(t, { bytes, contentType, fileName: opts.fileName ?? (contentType === 'application/pdf' ? 'receipt.pdf' : 'file'), pageCount });
    return app.db.prisma.voucher.create({
      data: { clientAccountId: t.account.id, fileId: stored.id, status: 'DRAFT', createdById: t.user.id, updatedById: t.user.id, ...opts.data },
    });
  }

  /** The bytes behind a stored file (what the new vouchers of merge and split hold). */
  async function bytesOf(fileId: number): Promise<Buffer> {
    const f = await app.db.prisma.storedFile.findUniqueOrThrow({ where: { id: fileId } });
    return (files ??= await createFileServices(app.config, app.db.prisma)).store.get(f.storageKey);
  }

  return { voucher, file, bytesOf, context };
}

export interface EntryLineSeed {
  accountId: number;
  debit?: string;
  credit?: string;
  taxCodeId?: number;
  postingDate?: string;
  projectId?: number;
}

/**
 * A journal entry written straight to the ledger tables (as test/support/postings.ts does), naming a
 * voucher: a draft, a posted entry (sequence number, posted_at, a hash), or one marked cancelled.
 */
export async function voucherEntry(
  app: TestApp,
  t: Tenant,
  opts: { voucherId: number | null; draft?: boolean; cancelled?: 'Y' | 'C' | null; lines?: EntryLineSeed[]; description?: string },
): Promise<number> {
  const prisma = app.db.prisma;
  const clientAccountId = t.account.id;
  const draft = opts.draft ?? false;
  const lines = opts.lines ?? [
    { accountId: await t.ledgerAccount('6300'), debit: '100' },
    { accountId: await t.ledgerAccount('1920'), credit: '100' },
  ];
  for (let attempt = 0; ; attempt++) {
    const last = await prisma.journalEntry.aggregate({ where: { clientAccountId }, _max: { sequenceNumber: true } });
    try {
      const entry = await prisma.journalEntry.create({
        data: {
          clientAccountId,
          voucherId: opts.voucherId,
          description: opts.description ?? null,
          isDraft: draft,
          cancelled: opts.cancelled ?? null,
          ...(draft ? {} : { sequenceNumber: (last._max.sequenceNumber ?? 0) + 1, postedAt: new Date(), entryHash: '0'.repeat(64) }),
          lines: {
            create: lines.map((l, i) => ({
              clientAccountId,
              lineId: i + 1,
              postingDate: new Date(l.postingDate ?? '2026-01-15'),
              accountId: l.accountId,
              debit: l.debit ?? '0',
              credit: l.credit ?? '0',
              currencyCode: 'NOK',
              taxCodeId: l.taxCodeId,
              projectId: l.projectId,
            })),
          },
        },
      });
      return entry.id;
    } catch (e) {
      if (attempt > 5) throw e; // two tests numbering at once: take the next number
    }
  }
}

/** A commercial document of the voucher, written with Prisma (the documents module is not merged yet). */
export async function voucherDocument(app: TestApp, t: Tenant, data: Partial<PrismaNS.DocumentUncheckedCreateInput> & { voucherId: number | null }) {
  return app.db.prisma.document.create({
    data: { clientAccountId: t.account.id, documentType: 'APINV', documentDate: new Date('2026-02-01'), isDraft: true, createdInApp: false, ...data },
  });
}

/**
 * A voucher whose file record names no stored bytes, for tests that only need a voucher id (journal
 * entries naming it): no file store involved.
 */
export async function bareVoucher(prisma: TestApp['db']['prisma'], clientAccountId: number): Promise<number> {
  const file = await prisma.storedFile.create({
    data: { clientAccountId, type: 'VOUCHER', fileName: 'bare.pdf', contentType: 'application/pdf', size: 0, sha256: '0'.repeat(64), storageKey: `${clientAccountId}/${randomUUID()}`, pageCount: 1 },
  });
  return (await prisma.voucher.create({ data: { clientAccountId, fileId: file.id, status: 'DRAFT' } })).id;
}
