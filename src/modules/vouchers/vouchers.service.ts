import { sqlPosition } from '../../shared/sql-pagination.ts';
import { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { NotFoundError, ValidationError } from '../../shared/errors.ts';
import { findPage, inIdOrder, orderTerms, pageWindow } from '../../shared/pagination.ts';
import { canAccessAccount, listedAccounts, requireOwned } from '../../shared/tenancy.ts';
import { formatDate } from '../../shared/scalars.ts';
import { containsPattern } from '../../shared/text-search.ts';
import { check, parse, validate, type Args } from '../../shared/validation.ts';
import { createStoredFile, readStoredFile } from '../files/files.service.ts';
import { derivedDocumentsSql } from '../documents/documents.service.ts';
import { isPdfable, PDF, type PdfPart } from './voucher-pages.ts';
import { FileProblem, HeavyWorkError } from '../../workers/heavy-work.ts';
import { fileServices } from '../files/file-services.ts';
import {
  DEFAULT_VOUCHER_ORDER,
  rangeIssues,
  VOUCHER_ORDER_FIELDS,
  VOUCHER_PAGE_LIMITS,
  VOUCHER_STATEMENT_PAGE_LIMITS,
  voucherRules as rules,
  type SourceAction,
} from './vouchers.rules.ts';

type Query = { include?: PrismaNS.VoucherInclude; select?: PrismaNS.VoucherSelect };
type StatementQuery = { include?: PrismaNS.VoucherStatementInclude; select?: PrismaNS.VoucherStatementSelect };

const sql = PrismaNS.sql;
const join = PrismaNS.join;

// ── Reading ──────────────────────────────────────────────────────────────────────────────────────

/**
 * A voucher of the caller's: 404 when missing or deleted (status DELETED: "removed", spec 001), 403
 * when it belongs to an account the caller cannot access.
 */
export async function getVoucher(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  const row = await ctx.db.voucher.findFirst({ ...query, where: { id, status: { not: 'DELETED' } } });
  return requireOwned(ctx, `Voucher ${id}`, row);
}


/**
 * The embedding similar_to compares with: the source must exist, be one of the caller's vouchers
 * and have an embedding, else 400 (it is a filter value, not the resource of the request).
 */
async function similarityTarget(ctx: RequestContext, id: number): Promise<number[]> {
  const source = await ctx.db.voucher.findFirst({ where: { id, status: { not: 'DELETED' } }, select: { clientAccountId: true, embedding: true } });
  if (!source || !(await canAccessAccount(ctx, source.clientAccountId))) throw ValidationError.field('similarTo', `voucher ${id} not found`);
  if (!source.embedding?.length) throw ValidationError.field('similarTo', `voucher ${id} has no embedding yet (it has not been processed)`);
  if (!source.embedding.every(Number.isFinite)) throw ValidationError.field('similarTo', `voucher ${id} has an embedding that cannot be compared`);
  return source.embedding;
}

/**
 * GET /vouchers (spec 001): every filter is one SQL condition on the voucher (`v`) and its file (`f`);
 * the page of ids is chosen in SQL (similar_to orders by cosine similarity of the REAL[] embeddings,
 * computed in SQL, so no vector extension is needed), then the rows are read with what was selected.
 */
export async function listVouchers(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const a = parse(rules.list, args);
  const accounts = await listedAccounts(ctx, a.clientAccountIds);
  const target = a.similarTo != null ? await similarityTarget(ctx, a.similarTo) : null;
  const window = pageWindow(a, VOUCHER_PAGE_LIMITS);
  const where: PrismaNS.Sql[] = [];

  if (accounts) where.push(sql`v.client_account_id = ANY(${accounts}::int[])`);
  // DELETED vouchers are removed: only a status filter naming DELETED lists them
  where.push(a.status?.length ? sql`v.status::text = ANY(${[...new Set(a.status)]}::text[])` : sql`v.status <> 'DELETED'`);
  if (a.documentTypes?.length) {
    where.push(sql`(v.type = ANY(${a.documentTypes}::text[]) OR EXISTS (SELECT 1 FROM documents d WHERE d.voucher_id = v.id AND d.document_type = ANY(${a.documentTypes}::text[])))`);
  }
  if (a.collectionIds?.length) where.push(sql`v.collection_id = ANY(${a.collectionIds}::int[])`);
  if (a.projectIds?.length) where.push(sql`v.project_id = ANY(${a.projectIds}::int[])`);
  if (a.documentDateFrom) where.push(sql`v.document_date >= ${formatDate(a.documentDateFrom)}::date`);
  if (a.documentDateTo) where.push(sql`v.document_date <= ${formatDate(a.documentDateTo)}::date`);
  if (a.hasProject != null) where.push(a.hasProject ? sql`v.project_id IS NOT NULL` : sql`v.project_id IS NULL`);
  if (a.hasCollection != null) where.push(a.hasCollection ? sql`v.collection_id IS NOT NULL` : sql`v.collection_id IS NULL`);

  // the voucher's journal entries that book it now: its own (voucher_id) and its documents' entries, not cancelled
  const entriesOfVoucher = sql`(
    SELECT e.id FROM journal_entries e
     WHERE e.cancelled IS NULL AND e.client_account_id = v.client_account_id
       AND (e.voucher_id = v.id OR e.id IN (SELECT d.journal_entry_id FROM documents d WHERE d.voucher_id = v.id AND d.journal_entry_id IS NOT NULL)))`;
  if (a.hasJournalEntry != null) where.push(sql`${a.hasJournalEntry ? sql`` : sql`NOT`} EXISTS ${entriesOfVoucher}`);
  const line: PrismaNS.Sql[] = [];
  if (a.accountCodes?.length) line.push(sql`EXISTS (SELECT 1 FROM accounts ac WHERE ac.id = l.account_id AND ac.code = ANY(${a.accountCodes}::text[]))`);
  if (a.taxCodes?.length) line.push(sql`EXISTS (SELECT 1 FROM tax_codes tc WHERE tc.id = l.tax_code_id AND tc.code = ANY(${a.taxCodes}::text[]))`);
  if (a.postingDateFrom) line.push(sql`l.posting_date >= ${formatDate(a.postingDateFrom)}::date`);
  if (a.postingDateTo) line.push(sql`l.posting_date <= ${formatDate(a.postingDateTo)}::date`);
  if (line.length) where.push(sql`EXISTS (SELECT 1 FROM journal_entry_lines l WHERE l.journal_entry_id IN ${entriesOfVoucher} AND ${join(line, ' AND ')})`);

  // one document of the voucher matches every document filter, payment_status as the documents module derives it
  const doc: PrismaNS.Sql[] = [];
  if (a.documentStatuses?.length) doc.push(sql`x.document_status = ANY(${a.documentStatuses}::text[])`);
  if (a.paymentStatuses?.length) doc.push(sql`x.payment_status = ANY(${a.paymentStatuses}::text[])`);
  if (a.businessPartnerIds?.length) doc.push(sql`x.business_partner_id = ANY(${a.businessPartnerIds}::int[])`);
  if (a.dueDateFrom) doc.push(sql`x.due_date >= ${formatDate(a.dueDateFrom)}::date`);
  if (a.dueDateTo) doc.push(sql`x.due_date <= ${formatDate(a.dueDateTo)}::date`);
  if (doc.length) where.push(sql`EXISTS (SELECT 1 FROM (${PrismaNS.raw(derivedDocumentsSql('d.voucher_id = v.id'))}) x WHERE ${join(doc, ' AND ')})`);
  if (a.hasDocument != null) where.push(sql`${a.hasDocument ? sql`` : sql`NOT`} EXISTS (SELECT 1 FROM documents d WHERE d.voucher_id = v.id)`);
  if (a.hasAttachment != null) where.push(sql`${a.hasAttachment ? sql`` : sql`NOT`} EXISTS (SELECT 1 FROM files af WHERE af.voucher_id = v.id)`);

  const text = a.freeText?.trim();
  if (text) {
    const p = containsPattern(text);
    where.push(sql`(
      f.file_name ILIKE ${p} OR v.extracted_text ILIKE ${p}
      OR EXISTS (SELECT 1 FROM voucher_statements s WHERE s.voucher_id = v.id AND (s.purpose ILIKE ${p} OR s.comment ILIKE ${p}))
      OR EXISTS (SELECT 1 FROM documents d LEFT JOIN business_partners bp ON bp.id = d.business_partner_id
                  WHERE d.voucher_id = v.id AND (d.document_number ILIKE ${p} OR d.document_description ILIKE ${p} OR bp.name ILIKE ${p}))
      OR EXISTS (SELECT 1 FROM journal_entries e WHERE e.voucher_id = v.id AND e.client_account_id = v.client_account_id AND e.description ILIKE ${p}))`);
  }

  let similarity = sql`NULL::float8`;
  if (target) {
    // cosine similarity of two REAL[] of the same length, in SQL (PGlite and PostgreSQL 15 alike)
    similarity = sql`(SELECT SUM(x::float8 * y::float8) / NULLIF(SQRT(SUM(x::float8 * x::float8)) * SQRT(SUM(y::float8 * y::float8)), 0)
                        FROM unnest(v.embedding, ${target}::real[]) AS u(x, y))`;
    where.push(sql`v.id <> ${a.similarTo!} AND cardinality(v.embedding) = ${target.length}`);
  }

  const order = orderTerms(a.orderBy ? [a.orderBy] : null, VOUCHER_ORDER_FIELDS, DEFAULT_VOUCHER_ORDER);
  const orderSql = (similar: PrismaNS.Sql) => [
    ...(target ? [sql`${similar} DESC NULLS LAST`] : []),
    ...order.map((o) => PrismaNS.raw(`${o.field} ${o.direction === 'desc' ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}`)),
    ...(order.some((o) => o.field === VOUCHER_ORDER_FIELDS.id) ? [] : [PrismaNS.raw(`v.id ${order[0]!.direction === 'desc' ? 'DESC' : 'ASC'}`)]),
  ];
  const from = sql`FROM vouchers v JOIN files f ON f.id = v.file_id WHERE ${join(where, ' AND ')}`;

  return findPage(
    window,
    async ({ skip, take }) => {
      const rows = await ctx.db.$queryRaw<{ id: number }[]>`SELECT v.id, ${similarity} AS similarity ${from} ORDER BY ${join(orderSql(sql`similarity`), ', ')} LIMIT ${take} OFFSET ${skip}`;
      if (!rows.length) return [];
      return inIdOrder(rows, await ctx.db.voucher.findMany({ ...query, where: { id: { in: rows.map((r) => r.id) } } }));
    },
    async () => Number((await ctx.db.$queryRaw<{ n: number | bigint }[]>`SELECT count(*)::int AS n ${from}`)[0]?.n ?? 0),
    sqlPosition(ctx, sql`v.id`, from, orderSql(similarity)),
  );
}

// ── Removal (DELETE, and merge/split with source_action DELETE) ──────────────────────────────────

/** Receivable document types (AR…): one created in this service blocks deleting its voucher. */
const isReceivable = (documentType: string) => documentType.startsWith('AR');

/**
 * Why a voucher cannot be removed, or nothing. DELETE (spec 001 "States and transitions"): posted,
 * non-cancelled journal entries or documents, or in-app created receivable documents. A merge or
 * split with source_action DELETE has the spec's one condition, "No posted journal entries on the
 * source": a cancelled posted entry (and its reversal) blocks it too, documents do not (a posted
 * document's entry carries the voucher; its drafts are removed with it, as DELETE removes them).
 */
async function removalBlockers(tx: RequestContext, v: { id: number; clientAccountId: number }, mode: 'delete' | 'source'): Promise<string[]> {
  const [entries, documents] = await Promise.all([
    tx.db.journalEntry.findMany({
      where: { clientAccountId: v.clientAccountId, voucherId: v.id, isDraft: false, ...(mode === 'delete' ? { cancelled: null } : {}) },
      select: { id: true, sequenceNumber: true },
      orderBy: { id: 'asc' },
    }),
    mode === 'source'
      ? []
      : tx.db.document.findMany({
          where: { voucherId: v.id, OR: [{ isDraft: false, documentStatus: { notIn: ['CANCELLED', 'CREDITED'] } }, { createdInApp: true, documentType: { startsWith: 'AR' } }] },
          select: { id: true, documentType: true, documentNumber: true, isDraft: true, createdInApp: true },
          orderBy: { id: 'asc' },
        }),
  ]);
  return [
    ...entries.map((e) => `posted journal entry ${e.id} (number ${e.sequenceNumber})`),
    ...documents.map((d) =>
      d.createdInApp && isReceivable(d.documentType)
        ? `receivable document ${d.id} (${d.documentType}${d.documentNumber ? ` ${d.documentNumber}` : ''}) created in the app`
        : `posted document ${d.id} (${d.documentType}${d.documentNumber ? ` ${d.documentNumber}` : ''})`,
    ),
  ];
}

const blockedMessage = (id: number, blockers: string[], what: string) =>
  `Voucher ${id} cannot be ${what}: it has ${blockers.join(', ')}; cancel or credit them first`;

/**
 * Removes a voucher inside the caller's transaction: its draft journal entries and draft documents
 * are deleted, the voucher is marked DELETED (inactive) and no longer listed or found. The record and
 * its file are kept, because cancelled posted entries still point at it (evidence is kept, not erased).
 */
async function removeVoucher(tx: RequestContext, v: { id: number; clientAccountId: number }): Promise<void> {
  await tx.db.journalEntry.deleteMany({ where: { clientAccountId: v.clientAccountId, voucherId: v.id, isDraft: true } });
  await tx.db.document.deleteMany({ where: { voucherId: v.id, isDraft: true } });
  await tx.db.voucher.update({ where: { id: v.id }, data: { status: 'DELETED', isActive: false, updatedById: auditUserId(tx) }, select: { id: true } });
}

/** Locks vouchers for the rest of the transaction (in id order, so two operations cannot deadlock). */
const lockVouchers = (tx: RequestContext, ids: readonly number[]) =>
  tx.db.$queryRaw`SELECT id FROM vouchers WHERE id = ANY(${[...ids].sort((x, y) => x - y)}::int[]) ORDER BY id FOR UPDATE`;

/** DELETE /vouchers/{id}: 204; 400 (v2 envelope) when posted entries, posted documents or in-app receivables block it. */
export async function deleteVoucher(ctx: RequestContext, { id }: { id: number }): Promise<boolean> {
  return inTransaction(ctx, async (tx) => {
    await lockVouchers(tx, [id]);
    const v = await getVoucher(tx, { id }, { select: { id: true, clientAccountId: true } });
    const blockers = await removalBlockers(tx, v, 'delete');
    if (blockers.length) throw new ValidationError(blockedMessage(id, blockers, 'deleted'));
    await removeVoucher(tx, v);
    return true;
  });
}

// ── Merge and split ──────────────────────────────────────────────────────────────────────────────

const SOURCE_SELECT = {
  id: true,
  clientAccountId: true,
  status: true,
  type: true,
  documentDate: true,
  collectionId: true,
  projectId: true,
  extractedText: true,
  file: { select: { id: true, fileName: true, contentType: true, storageKey: true, pageCount: true } },
  attachments: { select: { id: true, fileName: true, contentType: true, storageKey: true, pageCount: true }, orderBy: { id: 'asc' } },
} as const satisfies PrismaNS.VoucherSelect;

/** The sources, each the caller's (404, 403), in the order asked. */
async function loadSources(ctx: RequestContext, ids: readonly number[]) {
  const rows = await ctx.db.voucher.findMany({ where: { id: { in: [...ids] }, status: { not: 'DELETED' } }, select: SOURCE_SELECT });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out = [];
  for (const id of ids) out.push(await requireOwned(ctx, `Voucher ${id}`, byId.get(id)));
  return out;
}
type Source = Awaited<ReturnType<typeof loadSources>>[number];

/** One value when every source has the same, else null (a merged voucher keeps what its sources agree on). */
const common = <T>(values: T[]): T | null => (values.length && values.every((v) => v === values[0]) ? values[0] : null);

/** 400 for a DELETE whose source has what removal refuses (checked before any work, and again under the lock). */
async function checkSourcesRemovable(ctx: RequestContext, sources: readonly { id: number; clientAccountId: number }[], action: SourceAction, path: (i: number) => string[]) {
  if (action !== 'DELETE') return;
  const issues = [];
  for (const [i, s] of sources.entries()) {
    const blockers = await removalBlockers(ctx, s, 'source');
    if (blockers.length) issues.push({ path: path(i), message: `${blockedMessage(s.id, blockers, 'deleted')} (or use source_action NONE or ARCHIVE)` });
  }
  if (issues.length) throw ValidationError.of(issues);
}

/** The sources after the new vouchers exist: kept (NONE), archived (ARCHIVED, inactive) or removed as DELETE removes. */
async function applySourceAction(tx: RequestContext, sources: readonly { id: number; clientAccountId: number }[], action: SourceAction): Promise<void> {
  if (action === 'ARCHIVE') {
    await tx.db.voucher.updateMany({ where: { id: { in: sources.map((s) => s.id) } }, data: { status: 'ARCHIVED', isActive: false, updatedById: auditUserId(tx) } });
  } else if (action === 'DELETE') {
    for (const s of sources) await removeVoucher(tx, s);
  }
}

/** Locks the sources and checks they are still there (a concurrent DELETE) and still removable. */
async function relockSources(tx: RequestContext, sources: readonly Source[], action: SourceAction, path: (i: number) => string[]) {
  await lockVouchers(tx, sources.map((s) => s.id));
  const live = await tx.db.voucher.findMany({ where: { id: { in: sources.map((s) => s.id) }, status: { not: 'DELETED' } }, select: { id: true } });
  const missing = sources.find((s) => !live.some((l) => l.id === s.id));
  if (missing) throw new NotFoundError(`Voucher ${missing.id}`);
  await checkSourcesRemovable(tx, sources, action, path);
}

const baseName = (fileName: string) => fileName.replace(/\.[A-Za-z0-9]{1,5}$/, '');
/** A file name of at most 255 characters (the column), ending in `suffix`. */
const pdfName = (stem: string, suffix: string) => `${stem.slice(0, 255 - suffix.length)}${suffix}`;

/**
 * POST /vouchers/merge (spec 001): the PDFs' pages and the images (JPEG, PNG), in voucher_ids order,
 * become one new PDF voucher (channel merge, status DRAFT); every other file — a source's own file
 * that is no PDF or image, and the sources' attachments — is copied to it as an attachment.
 */
export async function mergeVouchers(ctx: RequestContext, args: Args<typeof rules.merge>, query: Query = {}) {
  const { input } = parse(rules.merge, args);
  const action = input.sourceAction ?? 'NONE';
  const sources = await loadSources(ctx, input.voucherIds);
  const accounts = [...new Set(sources.map((s) => s.clientAccountId))];
  if (accounts.length > 1) {
    throw ValidationError.field('voucherIds', `the vouchers belong to different client accounts (${accounts.join(', ')}); merge vouchers of one client account`);
  }
  const paged = sources.filter((s) => isPdfable(s.file.contentType));
  if (!paged.length) {
    throw ValidationError.field('voucherIds', 'none of the vouchers has a PDF or an image (JPEG, PNG) to combine; other files can only be attachments');
  }
  await checkSourcesRemovable(ctx, sources, action, (i) => ['voucherIds', String(i)]);

  // the PDF work before the transaction: reading and combining files can take longer than a transaction should
  const parts: PdfPart[] = [];
  for (const s of paged) parts.push({ bytes: await readStoredFile(ctx, s.file), contentType: s.file.contentType });
  let merged;
  try {
    merged = await fileServices(ctx).heavy.run('combinePdf', { parts });
  } catch (e) {
    if (e instanceof HeavyWorkError) throw ValidationError.field('voucherIds', `the files could not be combined within the limits: ${e.message}`);
    if (!(e instanceof FileProblem)) throw e;
    const s = paged[e.partIndex ?? 0];
    throw ValidationError.field(['voucherIds', String(input.voucherIds.indexOf(s.id))], `the file of voucher ${s.id} (${s.file.fileName}) ${e.message}`);
  }
  const attachments = [
    ...sources.filter((s) => !isPdfable(s.file.contentType)).map((s) => s.file),
    ...sources.flatMap((s) => s.attachments),
  ];
  const attachmentBytes = await Promise.all(attachments.map((f) => readStoredFile(ctx, f)));

  const clientAccountId = accounts[0];
  const id = await inTransaction(ctx, async (tx) => {
    await relockSources(tx, sources, action, (i) => ['voucherIds', String(i)]);
    const user = auditUserId(tx);
    const file = await createStoredFile(tx, {
      clientAccountId,
      type: 'VOUCHER',
      fileName: pdfName(baseName(paged[0].file.fileName), paged.length > 1 ? ' (merged).pdf' : '.pdf'),
      contentType: PDF,
      bytes: Buffer.from(merged.bytes),
      pageCount: merged.pageCount,
    });
    const text = paged.map((s) => s.extractedText).filter((t): t is string => !!t);
    const voucher = await tx.db.voucher.create({
      data: {
        clientAccountId,
        fileId: file.id,
        channel: 'merge',
        status: 'DRAFT',
        type: common(sources.map((s) => s.type)),
        documentDate: paged[0].documentDate,
        collectionId: common(sources.map((s) => s.collectionId)),
        projectId: common(sources.map((s) => s.projectId)),
        extractedText: text.length ? text.join('\n\f\n') : null,
        createdById: user,
        updatedById: user,
      },
      select: { id: true },
    });
    for (const [i, f] of attachments.entries()) {
      await createStoredFile(tx, { clientAccountId, type: 'ATTACHMENT', fileName: f.fileName, contentType: f.contentType, bytes: attachmentBytes[i], pageCount: f.pageCount, voucherId: voucher.id });
    }
    await applySourceAction(tx, sources, action);
    return voucher.id;
  });
  return ctx.db.voucher.findUniqueOrThrow({ ...query, where: { id } });
}

/**
 * POST /vouchers/split (spec 001): one new PDF voucher (channel split, status DRAFT) per page range
 * of a PDF voucher, in the order of the ranges; "a statement on the source is copied to every new
 * voucher": every statement of the source, each to every new voucher, in their order.
 */
export async function splitVoucher(ctx: RequestContext, args: Args<typeof rules.split>, query: Query = {}) {
  const { input } = parse(rules.split, args);
  const action = input.sourceAction ?? 'NONE';
  const [source] = await loadSources(ctx, [input.voucherId]);
  if (source.file.contentType !== PDF) {
    throw ValidationError.field('voucherId', `voucher ${source.id} is not a PDF (${source.file.contentType}); only a PDF can be split`);
  }
  const ranges = input.pageRanges.map(([s, e]) => [s, e] as [number, number]);
  let cutting;
  try {
    cutting = await fileServices(ctx).heavy.run('cutPdf', { bytes: await readStoredFile(ctx, source.file), ranges });
  } catch (e) {
    if (e instanceof FileProblem) throw ValidationError.field('voucherId', `the file of voucher ${source.id} ${e.message}`);
    if (e instanceof HeavyWorkError) throw ValidationError.field('voucherId', `the file of voucher ${source.id} could not be split within the limits: ${e.message}`);
    throw e;
  }
  const { pageCount } = cutting;
  if (pageCount < 2) throw ValidationError.field('voucherId', pageCount ? `voucher ${source.id} has only one page; there is nothing to split` : `the file of voucher ${source.id} has no readable pages`);
  const issues = rangeIssues(ranges, pageCount);
  if (issues.length) throw ValidationError.of(issues.map((i) => ({ path: i.path.map(String), message: i.message })));
  await checkSourcesRemovable(ctx, [source], action, () => ['voucherId']);
  const pieces = cutting.pieces!.map((p) => ({ bytes: Buffer.from(p.bytes), pageCount: p.pageCount }));

  const ids = await inTransaction(ctx, async (tx) => {
    await relockSources(tx, [source], action, () => ['voucherId']);
    const user = auditUserId(tx);
    // every statement, oldest first: the copies keep their content, author and time, and (inserted in this order) their order
    const statements = await tx.db.voucherStatement.findMany({ where: { voucherId: source.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    const made: number[] = [];
    for (const [i, piece] of pieces.entries()) {
      const [start, end] = ranges[i];
      const file = await createStoredFile(tx, {
        clientAccountId: source.clientAccountId,
        type: 'VOUCHER',
        fileName: pdfName(baseName(source.file.fileName), start === end ? ` (page ${start}).pdf` : ` (pages ${start}-${end}).pdf`),
        contentType: PDF,
        bytes: piece.bytes,
        pageCount: piece.pageCount,
      });
      const voucher = await tx.db.voucher.create({
        data: {
          clientAccountId: source.clientAccountId,
          fileId: file.id,
          channel: 'split',
          status: 'DRAFT',
          type: source.type,
          documentDate: source.documentDate,
          collectionId: source.collectionId,
          projectId: source.projectId,
          createdById: user,
          updatedById: user,
        },
        select: { id: true },
      });
      if (statements.length) {
        await tx.db.voucherStatement.createMany({ data: statements.map(({ id: _id, ...copy }) => ({ ...copy, voucherId: voucher.id })) });
      }
      made.push(voucher.id);
    }
    await applySourceAction(tx, [source], action);
    return made;
  });
  const rows = await ctx.db.voucher.findMany({ ...query, where: { id: { in: ids } } });
  return ids.map((id) => rows.find((r) => r.id === id)!);
}

// ── Statements ───────────────────────────────────────────────────────────────────────────────────

/** GET /vouchers/{id}/statements: newest first, page-based. */
export async function listVoucherStatements(ctx: RequestContext, args: Args<typeof rules.statements>, query: StatementQuery = {}) {
  const { voucherId, ...window } = parse(rules.statements, args);
  await getVoucher(ctx, { id: voucherId }, { select: { id: true, clientAccountId: true } });
  const where = { voucherId };
  return findPage(
    pageWindow(window, VOUCHER_STATEMENT_PAGE_LIMITS),
    (w) => ctx.db.voucherStatement.findMany({ ...query, where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...w }),
    () => ctx.db.voucherStatement.count({ where }),
  );
}

/** What creating a statement changed besides itself (only in the answer of createVoucherStatement). */
export interface StatementEffects {
  /** the voucher's project_id was set to the statement's project */
  voucherProjectSet: boolean;
  /** draft journal entries of the voucher whose every line got the project */
  draftJournalEntryIds: number[];
  /** posted entries of the voucher: immutable, left as they are (cancel and re-post to change them) */
  postedJournalEntryIdsUnchanged: number[];
  /** documents of the voucher whose stated_payment_status was set (PAID) or cleared (is_paid false) */
  documentIdsPaymentStated: number[];
}

/**
 * POST /vouchers/{id}/statements: what a person says about the voucher. A project sets the voucher's
 * project_id and the project dimension of every line of its draft journal entries (posted entries
 * are immutable: they are listed as left unchanged); is_paid true states its documents PAID
 * (stated_payment_status), false clears that. All in one transaction.
 */
export async function createVoucherStatement(ctx: RequestContext, args: Args<typeof rules.createStatement>, query: StatementQuery = {}) {
  const parsed = parse(rules.createStatement, args);
  const { id, effects } = await inTransaction(ctx, async (tx) => {
    await lockVouchers(tx, [args.voucherId]);
    const voucher = await getVoucher(tx, { id: args.voucherId }, { select: { id: true, clientAccountId: true } });
    const { input } = await check(tx, parsed, {
      clientAccountId: voucher.clientAccountId,
      references: ({ input }) => [
        { path: ['payorId'], model: 'businessPartner', id: input?.payorId },
        { path: ['projectId'], model: 'project', id: input?.projectId, select: { isActive: true, name: true } },
      ],
      check: ({ input }, found, issues) => {
        const project = found.get<{ isActive: boolean; name: string }>('project', input.projectId);
        if (project && !project.isActive) issues.add(['projectId'], `project ${input.projectId} (${project.name}) is inactive`);
      },
    });
    const user = auditUserId(tx);
    const statement = await tx.db.voucherStatement.create({
      data: {
        clientAccountId: voucher.clientAccountId,
        voucherId: voucher.id,
        purpose: input.purpose ?? null,
        itemCategories: input.itemCategories ?? [],
        paymentMethod: input.paymentMethod ?? null,
        payorId: input.payorId ?? null,
        projectId: input.projectId ?? null,
        isPaid: input.isPaid ?? null,
        comment: input.comment ?? null,
        createdById: user,
      },
      select: { id: true },
    });
    const effects: StatementEffects = { voucherProjectSet: false, draftJournalEntryIds: [], postedJournalEntryIdsUnchanged: [], documentIdsPaymentStated: [] };
    if (input.projectId != null) {
      await tx.db.voucher.update({ where: { id: voucher.id }, data: { projectId: input.projectId, updatedById: user }, select: { id: true } });
      effects.voucherProjectSet = true;
      const entries = await tx.db.journalEntry.findMany({
        where: { clientAccountId: voucher.clientAccountId, voucherId: voucher.id, cancelled: null },
        select: { id: true, isDraft: true },
        orderBy: { id: 'asc' },
      });
      effects.draftJournalEntryIds = entries.filter((e) => e.isDraft).map((e) => e.id);
      effects.postedJournalEntryIdsUnchanged = entries.filter((e) => !e.isDraft).map((e) => e.id);
      if (effects.draftJournalEntryIds.length) {
        await tx.db.journalEntryLine.updateMany({ where: { journalEntryId: { in: effects.draftJournalEntryIds } }, data: { projectId: input.projectId } });
        await tx.db.journalEntry.updateMany({ where: { id: { in: effects.draftJournalEntryIds } }, data: { updatedById: user } });
      }
    }
    if (input.isPaid != null) {
      const documents = await tx.db.document.findMany({ where: { voucherId: voucher.id }, select: { id: true }, orderBy: { id: 'asc' } });
      effects.documentIdsPaymentStated = documents.map((d) => d.id);
      if (documents.length) {
        await tx.db.document.updateMany({ where: { voucherId: voucher.id }, data: { statedPaymentStatus: input.isPaid ? 'PAID' : null, updatedById: user } });
      }
    }
    return { id: statement.id, effects };
  });
  const row = await ctx.db.voucherStatement.findUniqueOrThrow({ ...query, where: { id } });
  return Object.assign(row, { effects });
}
