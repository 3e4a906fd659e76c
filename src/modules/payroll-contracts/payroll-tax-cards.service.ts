import { Decimal } from '@prisma/client/runtime/client';
import { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { UpstreamError } from '../../integrations/connector.ts';
import { integrationsOf } from '../../integrations/integrations.ts';
import { reportEmploymentEnd } from '../../integrations/taxauthority/employments.ts';
import { fetchTaxCard, type TaxCardAnswer } from '../../integrations/taxauthority/tax-cards.ts';
import { inTransaction, type RequestContext } from '../../shared/context.ts';
import { formatDate } from '../../shared/scalars.ts';
import { findPage, pageArgs, pageWindow, type PageLimits } from '../../shared/pagination.ts';
import { requireAccount } from '../../shared/tenancy.ts';
import { parse, id } from '../../shared/validation.ts';
import { z } from 'zod';

/**
 * Tax cards (skattekort) and reports of an employment's end: what the payroll contract operations set
 * off through the tax authority's connector, run as jobs (payroll-contracts.job.ts).
 */

/** The current tax year: the calendar year of today in Norway. */
export function currentTaxYear(now = new Date()): number {
  return Number(new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Oslo', year: 'numeric' }).format(now));
}

const authority = (ctx: RequestContext) => integrationsOf(ctx).connector('taxauthority');

/** How one tax-card run ended (the job's output). */
export type TaxCardOutcome = PrismaNS.PayrollTaxCardGetPayload<object>['status'] | 'SKIPPED';

/** The card's own columns from the authority's answer. */
function cardColumns(answer: TaxCardAnswer) {
  const trekk = answer.skattekort.forskuddstrekk[0]!;
  const base = {
    issuedDate: new Date(`${answer.skattekort.utstedtDato}T00:00:00.000Z`),
    taxCardIdentifier: answer.skattekort.skattekortidentifikator.slice(0, 100),
    tableNumber: null as string | null,
    withholdingPercentage: null as Decimal | null,
    exemptionAmount: null as Decimal | null,
  };
  if (trekk.trekktabell) return { ...base, deductionType: 'TABLE' as const, tableNumber: trekk.trekktabell.tabellnummer, withholdingPercentage: new Decimal(trekk.trekktabell.prosentsats).toDecimalPlaces(2) };
  if (trekk.trekkprosent) return { ...base, deductionType: 'PERCENTAGE' as const, withholdingPercentage: new Decimal(trekk.trekkprosent.prosentsats).toDecimalPlaces(2) };
  const limit = trekk.frikort?.frikortbeloep;
  return { ...base, deductionType: 'EXEMPTION' as const, exemptionAmount: limit == null ? null : new Decimal(limit).toDecimalPlaces(2) };
}

const NO_CARD = { deductionType: null, tableNumber: null, withholdingPercentage: null, exemptionAmount: null, issuedDate: null, taxCardIdentifier: null } as const;

/**
 * Fetches an employee's tax card for a year and stores it (one row per client account, employee and
 * year). Without an organization number of the account or a national id number of the employee
 * nothing is asked and the row says which is missing. An upstream failure is recorded (status
 * FAILED, or a card fetched earlier kept with `lastError`) and thrown, so the job retries.
 */
export async function fetchEmployeeTaxCard(ctx: RequestContext, key: { clientAccountId: number; businessPartnerId: number; year: number }): Promise<TaxCardOutcome> {
  const [account, partner] = await Promise.all([
    ctx.db.clientAccount.findUnique({ where: { id: key.clientAccountId }, select: { organizationNumber: true } }),
    ctx.db.businessPartner.findUnique({ where: { id: key.businessPartnerId }, select: { clientAccountId: true, nationalIdNumber: true } }),
  ]);
  if (!account || !partner || partner.clientAccountId !== key.clientAccountId) return 'SKIPPED';
  const where = { clientAccountId_businessPartnerId_year: key };
  const store = (data: Omit<PrismaNS.PayrollTaxCardUncheckedCreateInput, 'clientAccountId' | 'businessPartnerId' | 'year' | 'lastAttemptAt'>) =>
    ctx.db.payrollTaxCard.upsert({
      where,
      create: { ...key, lastAttemptAt: new Date(), attempts: 1, ...data },
      update: { lastAttemptAt: new Date(), attempts: { increment: 1 }, ...data },
    });
  if (!account.organizationNumber) {
    await store({ status: 'MISSING_ORGANIZATION_NUMBER', ...NO_CARD, rawResponse: PrismaNS.DbNull, lastError: `Client account ${key.clientAccountId} has no organization number: the tax authority gives tax cards to an employer by its organization number` });
    return 'MISSING_ORGANIZATION_NUMBER';
  }
  if (!partner.nationalIdNumber) {
    await store({ status: 'MISSING_NATIONAL_ID', ...NO_CARD, rawResponse: PrismaNS.DbNull, lastError: `Business partner ${key.businessPartnerId} has no national_id_number: the tax authority finds a tax card by it` });
    return 'MISSING_NATIONAL_ID';
  }
  let answer: TaxCardAnswer | null;
  try {
    answer = await fetchTaxCard(authority(ctx), { orgNumber: account.organizationNumber, nationalIdNumber: partner.nationalIdNumber, year: key.year });
  } catch (e) {
    if (!(e instanceof UpstreamError)) throw e;
    await inTransaction(ctx, async (tx) => {
      const known = await tx.db.payrollTaxCard.findUnique({ where, select: { status: true } });
      // a card fetched before stays usable; the failure is noted beside it
      const status = known?.status === 'FETCHED' ? 'FETCHED' : 'FAILED';
      await tx.db.payrollTaxCard.upsert({
        where,
        create: { ...key, status, lastAttemptAt: new Date(), attempts: 1, lastError: e.message.slice(0, 2000) },
        update: { status, lastAttemptAt: new Date(), attempts: { increment: 1 }, lastError: e.message.slice(0, 2000) },
      });
    });
    throw e;
  }
  const now = new Date();
  if (!answer) {
    await store({ status: 'NOT_FOUND', ...NO_CARD, rawResponse: PrismaNS.DbNull, fetchedAt: now, lastError: null });
    return 'NOT_FOUND';
  }
  await store({ status: 'FETCHED', ...cardColumns(answer), rawResponse: answer as PrismaNS.InputJsonValue, fetchedAt: now, lastError: null });
  return 'FETCHED';
}

/**
 * Reports a deactivated contract's end (the end date stored when it was deactivated) to the tax
 * authority and records the outcome on the contract. Runs only while the report is PENDING (a
 * contract activated again meanwhile is no longer). An answer that the report itself is wrong (a
 * 4xx other than 401/403), or no organization number, fails it for good; any other failure is
 * recorded and thrown, so the job retries, and the last retry's failure marks it FAILED.
 */
export async function reportContractEnd(ctx: RequestContext, a: { contractId: number }, run: { lastAttempt: boolean }): Promise<'REPORTED' | 'FAILED' | 'SKIPPED'> {
  const c = await ctx.db.payrollContract.findUnique({
    where: { id: a.contractId },
    include: { businessPartner: { select: { nationalIdNumber: true } }, clientAccount: { select: { organizationNumber: true } } },
  });
  if (!c || c.employmentEndReportStatus !== 'PENDING' || c.isActive || !c.employmentEndReportedDate) return 'SKIPPED';
  const record = (data: PrismaNS.PayrollContractUpdateInput) =>
    ctx.db.payrollContract.update({ where: { id: c.id }, data: { employmentEndReportAttempts: { increment: 1 }, ...data } });
  const orgNumber = c.clientAccount.organizationNumber;
  if (!orgNumber) {
    await record({ employmentEndReportStatus: 'FAILED', employmentEndReportError: `Client account ${c.clientAccountId} has no organization number: the end of an employment is reported by the employer's organization number` });
    return 'FAILED';
  }
  try {
    const receipt = await reportEmploymentEnd(authority(ctx), {
      orgNumber,
      arbeidsforholdId: c.arbeidsforholdId,
      nationalIdNumber: c.businessPartner.nationalIdNumber,
      startDate: formatDate(c.startDate),
      endDate: formatDate(c.employmentEndReportedDate),
      endDateReason: c.endDateReason,
    });
    await record({ employmentEndReportStatus: 'REPORTED', employmentEndReportedAt: new Date(), employmentEndReference: receipt.referanse.slice(0, 100), employmentEndReportError: null });
    return 'REPORTED';
  } catch (e) {
    if (!(e instanceof UpstreamError)) throw e;
    const refused = e.failure === 'status' && e.status !== undefined && e.status >= 400 && e.status < 500 && e.status !== 401 && e.status !== 403 && e.status !== 408 && e.status !== 429;
    const final = refused || run.lastAttempt;
    await record({ employmentEndReportStatus: final ? 'FAILED' : 'PENDING', employmentEndReportError: e.message.slice(0, 2000) });
    if (refused) return 'FAILED';
    throw e;
  }
}

/** spec-less list: GraphQL `payrollTaxCards` (100 a page by default, at most 100). */
export const TAX_CARD_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 100 };

export const taxCardRules = {
  list: z.object({ clientAccountId: id, businessPartnerId: id.nullish(), year: z.number().int().min(1900).max(2999).nullish(), ...pageArgs }),
};

type TaxCardQuery = { include?: PrismaNS.PayrollTaxCardInclude; select?: PrismaNS.PayrollTaxCardSelect };

/** The stored tax cards of a client account, newest year first. */
export async function listPayrollTaxCards(ctx: RequestContext, args: z.input<typeof taxCardRules.list>, query: TaxCardQuery = {}) {
  const { clientAccountId, businessPartnerId, year, ...window } = parse(taxCardRules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.PayrollTaxCardWhereInput = { clientAccountId };
  if (businessPartnerId) where.businessPartnerId = businessPartnerId;
  if (year) where.year = year;
  return findPage(
    pageWindow(window, TAX_CARD_PAGE_LIMITS),
    (w) => ctx.db.payrollTaxCard.findMany({ ...query, where, orderBy: [{ year: 'desc' }, { businessPartnerId: 'asc' }, { id: 'asc' }], ...w }),
    () => ctx.db.payrollTaxCard.count({ where }),
  );
}
