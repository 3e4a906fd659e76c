import type { Prisma as PrismaNS, TaxReturn } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { NotFoundError, ValidationError } from '../../shared/errors.ts';
import { findPage, pageWindow, toOrderBy } from '../../shared/pagination.ts';
import { Decimal, formatDate } from '../../shared/scalars.ts';
import { listedAccounts, lockClientAccount, requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { parse, type Args } from '../../shared/validation.ts';
import { UpstreamError } from '../../integrations/connector.ts';
import { integrationsOf, upstream } from '../../integrations/integrations.ts';
import { FILINGS_READ_SCOPE } from '../../integrations/govportal/portal.ts';
import { systemUserTokenFor } from '../portal-integrations/portal-integrations.service.ts';
import { requireOrganizationNumber } from '../client-accounts/client-accounts.service.ts';
import { cancelFiling, createFiling, filingData, filingReceipt, getFiling, listFilings, type Filing, type Finding } from '../../integrations/govportal/filings.ts';
import { fetchPrefilled, validateTaxReturn as validateAtAuthority, type Prefilled } from '../../integrations/taxauthority/tax-returns.ts';
import { fileServices } from '../files/file-services.ts';
import { createFileVoucher } from '../files/files.service.ts';
import { PDF } from '../files/files.rules.ts';
import { computePreview, parseFilingData, toFilingData, type LedgerAccountFigures, type TaxReturnPreview } from './naeringsspesifikasjon.ts';
import {
  blocksOriginal,
  CANCELLABLE,
  DEFAULT_TAX_RETURN_ORDER,
  isFiled,
  STATUS_OF_FILING,
  TAX_RETURN_ORDER,
  TAX_RETURN_PAGE_LIMITS,
  taxReturnRules as rules,
} from './tax-returns.rules.ts';

/**
 * Tax returns (spec 002 "Tax return", "Tax returns"): the næringsspesifikasjon computed from the
 * ledger, validated by the tax authority and filed through the government portal as a filing
 * instance (kind `tax-return`). Every portal or authority call is made before anything is written,
 * and what it answered is written in one transaction: a failed call leaves nothing half-written.
 * Upstream failures are 500 (`{error, status}`), the portal refusing our credentials 403.
 */

type Query = { include?: PrismaNS.TaxReturnInclude; select?: PrismaNS.TaxReturnSelect };

const UPSTREAM = 500;
const portal = (ctx: RequestContext) => integrationsOf(ctx).connector('govportal');
const authority = (ctx: RequestContext) => integrationsOf(ctx).connector('taxauthority');


// ── Preview: the næringsspesifikasjon from the ledger ─────────────────────────────────────────────

/**
 * Every account with posted lines up to to_date: its closing balance then and its movement in the
 * period (drafts left out; a cancellation's reversal is a posted entry, so both count and net out).
 */
async function ledgerFigures(ctx: RequestContext, clientAccountId: number, from: Date, to: Date): Promise<LedgerAccountFigures[]> {
  const rows = await ctx.db.$queryRaw<{ code: string; name: string; category: string | null; grouping: string | null; closing: string; movement: string }[]>`
    SELECT a.code, a.name, a.saft_grouping_category AS category, a.saft_grouping_code AS grouping, t.closing::text AS closing, t.movement::text AS movement
    FROM (SELECT l.account_id,
                 SUM(l.debit - l.credit) AS closing,
                 SUM(CASE WHEN l.posting_date >= ${formatDate(from)}::date THEN l.debit - l.credit ELSE 0 END) AS movement
          FROM journal_entry_lines l
          WHERE l.client_account_id = ${clientAccountId}
            AND l.posting_date <= ${formatDate(to)}::date
            AND l.journal_entry_id NOT IN (SELECT d.id FROM journal_entries d WHERE d.client_account_id = ${clientAccountId} AND d.is_draft)
          GROUP BY l.account_id) t
    JOIN accounts a ON a.id = t.account_id
    ORDER BY a.code`;
  return rows.map((r) => ({ code: r.code, name: r.name, saftGroupingCategory: r.category, saftGroupingCode: r.grouping, closing: new Decimal(r.closing), movement: new Decimal(r.movement) }));
}

async function computeFor(ctx: RequestContext, p: { clientAccountId: number; reportingYear: number; fromDate: Date; toDate: Date }): Promise<TaxReturnPreview> {
  const account = await ctx.db.clientAccount.findUniqueOrThrow({ where: { id: p.clientAccountId }, select: { organizationNumber: true } });
  const figures = await ledgerFigures(ctx, p.clientAccountId, p.fromDate, p.toDate);
  return computePreview({ ...p, orgNumber: account.organizationNumber }, figures);
}

/** GET /tax-returns/preview: the næringsspesifikasjon of the period, computed from the ledger. */
export async function previewTaxReturn(ctx: RequestContext, args: Args<typeof rules.preview>): Promise<TaxReturnPreview> {
  const a = parse(rules.preview, args);
  await requireAccount(ctx, a.clientAccountId);
  return computeFor(ctx, a);
}

// ── The tax authority: pre-filled data and validation ─────────────────────────────────────────────

/** POST /tax-returns/{year}/fetch-prefilled: what the authority holds for the organisation and year. */
export async function fetchPrefilledTaxData(ctx: RequestContext, args: { clientAccountId: number; year: number }): Promise<Prefilled> {
  const a = parse(rules.prefilled, args);
  await requireAccount(ctx, a.clientAccountId);
  const orgNumber = await requireOrganizationNumber(ctx, a.clientAccountId, 'fetching pre-filled data');
  try {
    return await fetchPrefilled(authority(ctx), { orgNumber, incomeYear: a.year });
  } catch (e) {
    if (e instanceof UpstreamError && e.failure === 'status' && e.status === 404) throw new NotFoundError(`Pre-filled data for ${a.year}`);
    return upstream(() => Promise.reject(e), { status: UPSTREAM, what: 'Fetching pre-filled data from the tax authority' });
  }
}

export interface TaxValidationResult {
  valid: boolean;
  errors: Finding[];
  warnings: Finding[];
}

/** POST /tax-returns/{year}/validate: the computed næringsspesifikasjon checked by the authority's rules. */
export async function validateTaxReturn(ctx: RequestContext, args: { clientAccountId: number; year: number; fromDate?: Date | null; toDate?: Date | null }): Promise<TaxValidationResult> {
  const a = parse(rules.preview, { clientAccountId: args.clientAccountId, reportingYear: args.year, fromDate: args.fromDate, toDate: args.toDate });
  await requireAccount(ctx, a.clientAccountId);
  const orgNumber = await requireOrganizationNumber(ctx, a.clientAccountId, 'validation');
  const data = toFilingData(await computeFor(ctx, a));
  const answer = await upstream(() => validateAtAuthority(authority(ctx), { orgNumber, incomeYear: a.reportingYear, data }), { status: UPSTREAM, what: 'Validation by the tax authority' });
  return { valid: answer.valid, errors: answer.findings.filter((f) => f.severity === 'error'), warnings: answer.findings.filter((f) => f.severity === 'warning') };
}

// ── Submit ────────────────────────────────────────────────────────────────────────────────────────

const findingText = (findings: readonly Finding[]) => findings.map((f) => `${f.severity === 'error' ? 'Error' : 'Warning'} ${f.code}: ${f.message}`).join('; ').slice(0, 4000);

/** The receipt PDF of a submitted instance, or null when the portal has none or could not give one (logged; the return is kept, and a status refresh tries again). */
async function receiptOf(ctx: RequestContext, filing: Filing): Promise<Buffer | null> {
  if (!filing.receipt_available) return null;
  try {
    const bytes = await filingReceipt(portal(ctx), filing.id);
    if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') {
      ctx.logger.warn({ portalInstanceId: filing.id }, 'the portal’s receipt of a tax return is not a PDF; the return is kept without one');
      return null;
    }
    return bytes;
  } catch (e) {
    ctx.logger.warn({ err: e, portalInstanceId: filing.id }, 'the portal did not give the receipt of a submitted tax return; the return is kept without one');
    return null;
  }
}

/** Stores a receipt as a voucher of the account (ARCHIVED: evidence, nothing to book), inside the caller's transaction. */
async function storeReceipt(tx: RequestContext, clientAccountId: number, year: number, filing: Filing, bytes: Buffer): Promise<number> {
  const pageCount = await fileServices(tx)
    .heavy.run('inspectFile', { bytes, fileName: 'receipt.pdf', allowed: [PDF] })
    .then((facts) => facts.pageCount, () => null);
  const { voucherId } = await createFileVoucher(tx, {
    clientAccountId,
    fileName: `Skattemelding ${year} kvittering${filing.reference ? ` ${filing.reference}` : ''}.pdf`,
    contentType: PDF,
    bytes,
    pageCount,
    channel: 'govportal',
    process: false,
  });
  return voucherId;
}

/**
 * POST /tax-returns: files the næringsspesifikasjon computed from the ledger for the period. An
 * original (egenfastsetting) is refused while the year has a SUBMITTED or APPROVED return (or an
 * IMPORTED one the portal shows as filed); a correction (endringsanmodning) needs a filed (assessed)
 * return of the year and names its instance as `corrects`. The portal answers submitted (SUBMITTED,
 * its receipt stored as a voucher) or draft with the findings that blocked it (DRAFT, error_message).
 */
/**
 * The submit rules on the account's returns of the year: an original is refused while one blocks it
 * (blocksOriginal), a correction needs a filed return, which it answers (the newest).
 */
async function checkFilingAllowed(ctx: RequestContext, a: { clientAccountId: number; reportingYear: number }, correction: boolean) {
  const existing = await ctx.db.taxReturn.findMany({
    where: { clientAccountId: a.clientAccountId, reportingYear: a.reportingYear },
    select: { id: true, status: true, portalStatus: true, portalInstanceId: true, createdAt: true },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
  if (correction) {
    const corrects = existing.find(isFiled);
    if (!corrects) {
      const draft = existing.some((r) => r.status === 'DRAFT');
      throw ValidationError.field(
        'innsendingsformaal',
        `endringsanmodning corrects a filed (assessed) tax return, and client account ${a.clientAccountId} has none for ${a.reportingYear}${draft ? ' (only a draft)' : ''}`,
      );
    }
    return corrects;
  }
  const duplicate = existing.find(blocksOriginal);
  if (duplicate) {
    throw ValidationError.field(
      'reporting_year',
      `a tax return for ${a.reportingYear} was already submitted (tax return ${duplicate.id}, ${duplicate.status}); file a correction with innsendingsformaal endringsanmodning`,
    );
  }
  return undefined;
}

export async function submitTaxReturn(ctx: RequestContext, args: Args<typeof rules.submit>, query: Query = {}) {
  const { input: a } = parse(rules.submit, args);
  await requireAccount(ctx, a.clientAccountId);
  const orgNumber = await requireOrganizationNumber(ctx, a.clientAccountId, 'filing a tax return');
  const correction = a.innsendingsformaal === 'endringsanmodning';
  const corrects = await checkFilingAllowed(ctx, a, correction);
  const data = toFilingData(await computeFor(ctx, a));
  const filing = await upstream(
    () =>
      createFiling(portal(ctx), {
        kind: 'tax-return',
        orgNumber,
        reportingYear: a.reportingYear,
        fromDate: formatDate(a.fromDate),
        toDate: formatDate(a.toDate),
        purpose: correction ? 'correction' : 'original',
        corrects: corrects?.portalInstanceId ?? undefined,
        data,
        submit: true,
        ignoreWarnings: a.ignoreWarnings,
      }),
    { status: UPSTREAM, what: 'Filing the tax return at the portal' },
  );
  const receipt = filing.status === 'submitted' ? await receiptOf(ctx, filing) : null;
  return inTransaction(ctx, async (tx) => {
    // The check above ran before the portal call; an original submitted meanwhile by another request
    // is found here, under the account's lock, and this filing is withdrawn at the portal instead.
    await lockClientAccount(tx, a.clientAccountId);
    if (!correction && filing.status === 'submitted') {
      await checkFilingAllowed(tx, a, false).catch(async (e: unknown) => {
        await cancelFiling(portal(ctx), filing.id).catch((err: unknown) => ctx.logger.warn({ err, instance: filing.id }, 'withdrawing a duplicate tax return filing failed'));
        throw e;
      });
    }
    const receiptVoucherId = receipt ? await storeReceipt(tx, a.clientAccountId, a.reportingYear, filing, receipt) : null;
    const status = STATUS_OF_FILING[filing.status];
    return tx.db.taxReturn.create({
      ...query,
      data: {
        clientAccountId: a.clientAccountId,
        reportingYear: a.reportingYear,
        fromDate: a.fromDate,
        toDate: a.toDate,
        status,
        portalInstanceId: filing.id,
        portalStatus: filing.status,
        taxAuthorityReference: filing.reference ?? null,
        submittedAt: filing.submitted_at ? new Date(filing.submitted_at) : null,
        errorMessage: status === 'DRAFT' ? findingText(filing.findings) || 'The portal kept the filing a draft' : null,
        findings: filing.findings,
        receiptVoucherId,
        innsendingsformaal: a.innsendingsformaal,
        correctsId: corrects?.id ?? null,
        data,
        createdById: auditUserId(tx),
      },
    });
  });
}

// ── Status refresh ────────────────────────────────────────────────────────────────────────────────

/** Whether a return's status is refreshed from the portal: SUBMITTED with an instance id (never IMPORTED). */
const refreshable = (r: Pick<TaxReturn, 'status' | 'portalInstanceId'>) => r.status === 'SUBMITTED' && !!r.portalInstanceId;

/**
 * Reads the instance at the portal and writes what changed (status, decision, reference, a receipt
 * not stored yet) in one transaction. An upstream failure throws before anything is written.
 */
async function refresh(ctx: RequestContext, r: TaxReturn): Promise<void> {
  const filing = await upstream(() => getFiling(portal(ctx), r.portalInstanceId!), { status: UPSTREAM, what: 'Reading the tax return’s status at the portal' });
  const status = STATUS_OF_FILING[filing.status];
  const receipt = !r.receiptVoucherId && filing.receipt_available ? await receiptOf(ctx, filing) : null;
  if (status === r.status && filing.status === r.portalStatus && !receipt) return;
  await inTransaction(ctx, async (tx) => {
    // a concurrent refresh may have written first: only a return still SUBMITTED moves
    const current = await tx.db.taxReturn.findUniqueOrThrow({ where: { id: r.id }, select: { status: true, receiptVoucherId: true } });
    if (current.status !== 'SUBMITTED') return;
    const receiptVoucherId = receipt && !current.receiptVoucherId ? await storeReceipt(tx, r.clientAccountId, r.reportingYear, filing, receipt) : undefined;
    await tx.db.taxReturn.update({
      where: { id: r.id },
      data: {
        status,
        portalStatus: filing.status,
        taxAuthorityReference: filing.reference ?? r.taxAuthorityReference,
        errorMessage: status === 'REJECTED' ? (filing.decision_reason ?? 'Rejected by the tax authority') : r.errorMessage,
        receiptVoucherId,
      },
    });
  });
}

/**
 * GET /tax-returns/{id}/status: a SUBMITTED return with a portal instance id is refreshed from the
 * portal first (APPROVED, REJECTED with the reason in error_message, CANCELLED there). Other statuses,
 * IMPORTED included, answer as stored. When the portal cannot be read the answer is 500 and nothing
 * changes: a stored status is never passed off as fresh (the hourly job keeps trying).
 */
export async function taxReturnStatus(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  const r = await getTaxReturn(ctx, { id });
  if (refreshable(r)) await refresh(ctx, r);
  return ctx.db.taxReturn.findUniqueOrThrow({ ...query, where: { id } });
}

/** The scheduled refresh (tax-returns.refresh): every SUBMITTED return with an instance id; a failure is logged and the rest go on. */
export async function refreshSubmittedTaxReturns(ctx: RequestContext, options: { clientAccountIds?: number[] | null } = {}): Promise<{ checked: number; changed: number; failed: number }> {
  const returns = await ctx.db.taxReturn.findMany({
    where: { status: 'SUBMITTED', portalInstanceId: { not: null }, ...(options.clientAccountIds?.length ? { clientAccountId: { in: options.clientAccountIds } } : {}) },
    orderBy: { id: 'asc' },
  });
  let changed = 0;
  let failed = 0;
  for (const r of returns) {
    try {
      await refresh(ctx, r);
      const after = await ctx.db.taxReturn.findUniqueOrThrow({ where: { id: r.id }, select: { status: true } });
      if (after.status !== r.status) changed++;
    } catch (e) {
      failed++;
      ctx.logger.warn({ err: e, taxReturnId: r.id }, 'refreshing a tax return from the portal failed');
    }
  }
  return { checked: returns.length, changed, failed };
}

// ── Cancel ────────────────────────────────────────────────────────────────────────────────────────

/** POST /tax-returns/{id}/cancel: DRAFT or SUBMITTED only (else 400), cancelled at the portal first. */
export async function cancelTaxReturn(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  const r = await getTaxReturn(ctx, { id });
  if (!CANCELLABLE.includes(r.status)) throw new ValidationError(`Tax return ${id} is ${r.status}; only a DRAFT or SUBMITTED tax return can be cancelled`);
  const filing = r.portalInstanceId ? await upstream(() => cancelFiling(portal(ctx), r.portalInstanceId!), { status: UPSTREAM, what: 'Cancelling the tax return at the portal' }) : null;
  return inTransaction(ctx, async (tx) => {
    const current = await tx.db.taxReturn.findUniqueOrThrow({ where: { id }, select: { status: true } });
    if (!CANCELLABLE.includes(current.status)) throw new ValidationError(`Tax return ${id} is ${current.status}; only a DRAFT or SUBMITTED tax return can be cancelled`);
    return tx.db.taxReturn.update({ ...query, where: { id }, data: { status: 'CANCELLED', portalStatus: filing?.status ?? r.portalStatus } });
  });
}

// ── Import ────────────────────────────────────────────────────────────────────────────────────────

export interface ImportedEntry {
  year: number;
  portalInstanceId: string;
  seeded: boolean;
  warning: boolean;
  dryRun: boolean;
  taxReturnId: number | null;
}
export interface ImportResult {
  imported: ImportedEntry[];
  skipped: { year: number; portalInstanceId: string }[];
  errors: { portalInstanceId: string; reason: string }[];
}

/** Filings that were filed (submitted or assessed) are imported; a draft or a cancelled instance is not a filing. */
const FILED: readonly Filing['status'][] = ['submitted', 'approved', 'rejected'];

/**
 * POST /tax-returns/import: the organisation's tax-return filings at the portal (one year, or all).
 * An instance not yet known for the account becomes an IMPORTED return, seeded with the filing's data
 * when it reads as a næringsspesifikasjon (else imported with warning true and no data); known ones
 * are skipped; an instance that is no filing, or whose data cannot be fetched, is an error with the
 * reason. auth: `maskinporten` calls as the account's Active system user (a Maskinporten-style token
 * of the scope govportal:filings.read; none: 403), `service` with the service's own portal
 * credentials (GOVPORTAL_CLIENT_ID/SECRET), `auto` the system user when the account has one, else the
 * service. A dry run makes the same calls and writes nothing.
 */
export async function importTaxReturns(ctx: RequestContext, args: Args<typeof rules.import>): Promise<ImportResult> {
  const { input: a } = parse(rules.import, args);
  await requireAccount(ctx, a.clientAccountId);
  const orgNumber = await requireOrganizationNumber(ctx, a.clientAccountId, 'importing tax returns');
  // maskinporten: as the organisation's system user (its Active one with govportal:filings.read, else
  // 403); auto: that when the account has one, else the service's own credentials; service: those.
  const token =
    a.auth === 'service'
      ? undefined
      : await systemUserTokenFor(ctx, a.clientAccountId, FILINGS_READ_SCOPE, 'importing filings from the portal', { optional: a.auth === 'auto' });
  const as = { token };
  const filings = await upstream(() => listFilings(portal(ctx), { orgNumber, kind: 'tax-return', reportingYear: a.year ?? undefined }, as), {
    status: UPSTREAM,
    what: 'Listing the tax returns at the portal',
  });
  const known = new Set(
    (await ctx.db.taxReturn.findMany({ where: { clientAccountId: a.clientAccountId, portalInstanceId: { in: filings.map((f) => f.id) } }, select: { portalInstanceId: true } })).map((r) => r.portalInstanceId),
  );
  const result: ImportResult = { imported: [], skipped: [], errors: [] };
  const toWrite: { filing: Filing; data: unknown; seeded: boolean; entry: ImportedEntry }[] = [];
  for (const filing of filings) {
    if (known.has(filing.id)) {
      result.skipped.push({ year: filing.reporting_year, portalInstanceId: filing.id });
      continue;
    }
    if (!FILED.includes(filing.status)) {
      result.errors.push({ portalInstanceId: filing.id, reason: `the instance is ${filing.status} at the portal: only filed returns (submitted, approved, rejected) are imported` });
      continue;
    }
    let raw: unknown;
    try {
      raw = await filingData(portal(ctx), filing.id, as);
    } catch (e) {
      if (!(e instanceof UpstreamError)) throw e;
      result.errors.push({ portalInstanceId: filing.id, reason: `its data could not be read: ${e.message}` });
      continue;
    }
    const data = parseFilingData(raw);
    const entry: ImportedEntry = { year: filing.reporting_year, portalInstanceId: filing.id, seeded: !!data && !a.dryRun, warning: !data, dryRun: a.dryRun, taxReturnId: null };
    result.imported.push(entry);
    toWrite.push({ filing, data, seeded: !!data, entry });
  }
  if (a.dryRun || !toWrite.length) return result;
  await inTransaction(ctx, async (tx) => {
    const user = auditUserId(tx);
    for (const w of toWrite) {
      const f = w.filing;
      const created = await tx.db.taxReturn.create({
        data: {
          clientAccountId: a.clientAccountId,
          reportingYear: f.reporting_year,
          fromDate: new Date(`${f.from_date ?? `${f.reporting_year}-01-01`}T00:00:00Z`),
          toDate: new Date(`${f.to_date ?? `${f.reporting_year}-12-31`}T00:00:00Z`),
          status: 'IMPORTED',
          portalInstanceId: f.id,
          portalStatus: f.status,
          taxAuthorityReference: f.reference ?? null,
          submittedAt: f.submitted_at ? new Date(f.submitted_at) : null,
          errorMessage: w.seeded ? (f.status === 'rejected' ? (f.decision_reason ?? 'Rejected by the tax authority') : null) : 'The filing’s data is not a næringsspesifikasjon this API can read: imported without it',
          findings: f.findings,
          innsendingsformaal: f.purpose === 'correction' ? 'endringsanmodning' : 'egenfastsetting',
          data: w.seeded ? (w.data as PrismaNS.InputJsonValue) : undefined,
          createdById: user,
        },
        select: { id: true },
      });
      w.entry.taxReturnId = created.id;
    }
  });
  return result;
}

// ── Read ──────────────────────────────────────────────────────────────────────────────────────────

/** GET /tax-returns/{id}: 404 when missing, 403 for another account's. */
export async function getTaxReturn(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, `Tax return ${id}`, await ctx.db.taxReturn.findUnique({ ...query, where: { id } }));
}

/** GET /tax-returns: the caller's eligible accounts unless client_account_id names some (each must be the caller's: 403). */
export async function listTaxReturns(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const a = parse(rules.list, args);
  const accounts = await listedAccounts(ctx, a.clientAccountIds);
  const where: PrismaNS.TaxReturnWhereInput = {};
  if (accounts) where.clientAccountId = { in: accounts };
  if (a.reportingYear != null) where.reportingYear = a.reportingYear;
  if (a.status?.length) where.status = { in: a.status };
  return findPage(
    pageWindow({ ...a, perPage: a.pageSize }, TAX_RETURN_PAGE_LIMITS),
    (w) => ctx.db.taxReturn.findMany({ ...query, where, orderBy: toOrderBy(a.orderBy, TAX_RETURN_ORDER, DEFAULT_TAX_RETURN_ORDER), ...w }),
    () => ctx.db.taxReturn.count({ where }),
  );
}
