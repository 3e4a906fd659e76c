import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { findPage, pageWindow } from '../../shared/pagination.ts';
import { lockClientAccount, requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { parse, type Args } from '../../shared/validation.ts';
import { Decimal } from '../../shared/scalars.ts';
import { isValidBankAccountNumber, isValidOrganizationNumber } from '../../shared/norwegian-ids.ts';
import { enqueue } from '../../jobs/jobs.ts';
import { fetchGarnishmentsJob } from './payroll-garnishments.job.ts';
import { UpstreamError } from '../../integrations/connector.ts';
import { integrationsOf, upstreamFailed } from '../../integrations/integrations.ts';
import { searchGarnishments, type GarnishmentOrder } from '../../integrations/taxauthority/garnishments.ts';
import { requireOrganizationNumber } from '../client-accounts/client-accounts.service.ts';
import { osloToday } from '../journal-entries/journal-entries.rules.ts';
import { FETCH_RUN_PAGE_LIMITS, GARNISHMENT_PAGE_LIMITS, payrollGarnishmentRules as rules, planFetch, type PlannedWrite } from './payroll-garnishments.rules.ts';

/**
 * Payroll garnishments (spec 002 "Garnishment", "Payroll garnishments"): read-only through the API;
 * only the fetch from the tax authority writes them. POST /payroll/garnishments/fetch records a fetch
 * run (QUEUED) and enqueues the job `payroll.fetch-garnishments` in one transaction; the job asks the
 * authority and writes everything its answer changes, with the run's counts, in one transaction. A
 * failed call writes no garnishment: the run is recorded FAILED with the error.
 */

type Query = { include?: PrismaNS.PayrollGarnishmentInclude; select?: PrismaNS.PayrollGarnishmentSelect };
type RunQuery = { include?: PrismaNS.PayrollGarnishmentFetchRunInclude; select?: PrismaNS.PayrollGarnishmentFetchRunSelect };

/** GET /payroll/garnishments: ordered by priority then id (spec 002). */
export async function listPayrollGarnishments(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, businessPartnerId, status, ...window } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.PayrollGarnishmentWhereInput = { clientAccountId };
  if (businessPartnerId != null) where.businessPartnerId = businessPartnerId;
  if (status != null) where.status = status;
  return findPage(
    pageWindow(window, GARNISHMENT_PAGE_LIMITS),
    (w) => ctx.db.payrollGarnishment.findMany({ ...query, where, orderBy: [{ priority: 'asc' }, { id: 'asc' }], ...w }),
    () => ctx.db.payrollGarnishment.count({ where }),
  );
}

/** 404 when missing, 403 when it belongs to a client account the caller cannot access. */
export async function getPayrollGarnishment(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, 'Garnishment', await ctx.db.payrollGarnishment.findUnique({ ...query, where: { id } }));
}

/** The account's fetch runs, newest first. */
export async function listGarnishmentFetchRuns(ctx: RequestContext, args: Args<typeof rules.runs>, query: RunQuery = {}) {
  const { clientAccountId, ...window } = parse(rules.runs, args);
  await requireAccount(ctx, clientAccountId);
  const where = { clientAccountId };
  return findPage(
    pageWindow(window, FETCH_RUN_PAGE_LIMITS),
    (w) => ctx.db.payrollGarnishmentFetchRun.findMany({ ...query, where, orderBy: [{ id: 'desc' }], ...w }),
    () => ctx.db.payrollGarnishmentFetchRun.count({ where }),
  );
}

export const FETCH_QUEUED_MESSAGE = 'Fetching garnishments from the tax authority has been queued';

/**
 * POST /payroll/garnishments/fetch: records a QUEUED fetch run and enqueues its job in the same
 * transaction (a rollback queues nothing). The account needs an organisation number (400): the
 * authority is asked on its behalf.
 */
export async function requestGarnishmentFetch(ctx: RequestContext, args: Args<typeof rules.fetch>) {
  const { clientAccountId } = parse(rules.fetch, args);
  await requireAccount(ctx, clientAccountId);
  await requireOrganizationNumber(ctx, clientAccountId, 'fetching garnishments from the tax authority');
  return inTransaction(ctx, async (tx) => {
    const run = await tx.db.payrollGarnishmentFetchRun.create({ data: { clientAccountId, createdById: auditUserId(tx) } });
    await enqueue(tx, fetchGarnishmentsJob, { runId: run.id });
    return { message: `${FETCH_QUEUED_MESSAGE} (fetch run ${run.id})`, run };
  });
}

export interface FetchOutcome {
  runId: number;
  status: 'SUCCEEDED' | 'FAILED' | 'SKIPPED';
  error?: string;
}

/**
 * The job's work for one run: the employees (business partners of the account with is_employee and a
 * national id number; the lowest id where two share one), the authority's orders for them, and every
 * change in one transaction under the account's lock (two runs of one account never interleave).
 * A run already SUCCEEDED (a second delivery) is left alone.
 */
export async function runGarnishmentFetch(ctx: RequestContext, runId: number): Promise<FetchOutcome> {
  const run = await ctx.db.payrollGarnishmentFetchRun.findUnique({ where: { id: runId } });
  if (!run || run.status === 'SUCCEEDED') return { runId, status: 'SKIPPED' };
  const clientAccountId = run.clientAccountId;
  await ctx.db.payrollGarnishmentFetchRun.update({ where: { id: runId }, data: { status: 'RUNNING', startedAt: new Date(), finishedAt: null, error: null } });
  const fail = async (message: string): Promise<FetchOutcome> => {
    await ctx.db.payrollGarnishmentFetchRun.update({ where: { id: runId }, data: { status: 'FAILED', finishedAt: new Date(), error: message.slice(0, 2000) } });
    return { runId, status: 'FAILED', error: message };
  };
  const account = await ctx.db.clientAccount.findUnique({ where: { id: clientAccountId }, select: { organizationNumber: true } });
  if (!account?.organizationNumber) return fail(`Client account ${clientAccountId} has no organization number`);
  const partners = await ctx.db.businessPartner.findMany({
    where: { clientAccountId, isEmployee: true, nationalIdNumber: { not: null } },
    select: { id: true, nationalIdNumber: true },
    orderBy: { id: 'asc' },
  });
  const employees = new Map<string, number>();
  for (const p of partners) if (!employees.has(p.nationalIdNumber!)) employees.set(p.nationalIdNumber!, p.id);
  let orders: GarnishmentOrder[];
  try {
    const answer = await searchGarnishments(integrationsOf(ctx).connector('taxauthority'), { orgNumber: account.organizationNumber, personNumbers: [...employees.keys()] });
    orders = answer.orders;
  } catch (e) {
    if (!(e instanceof UpstreamError)) throw e;
    return fail((upstreamFailed(e, { what: 'Fetching garnishments from the tax authority' }) as Error).message);
  }
  try {
    await inTransaction(ctx, async (tx) => {
      await lockClientAccount(tx, clientAccountId);
      const stored = await tx.db.payrollGarnishment.findMany({ where: { clientAccountId }, select: { id: true, externalId: true, externalVersion: true, status: true } });
      const plan = planFetch(stored, orders, employees, osloToday());
      const user = run.createdById;
      const creditors = new CreditorCache(tx, clientAccountId, user);
      for (const w of plan.create) {
        await tx.db.payrollGarnishment.create({ data: { clientAccountId, createdById: user, ...(await columns(w, creditors)) } });
      }
      for (const w of plan.update) await tx.db.payrollGarnishment.update({ where: { id: w.id }, data: await columns(w, creditors) });
      if (plan.expire.length) await tx.db.payrollGarnishment.updateMany({ where: { id: { in: plan.expire } }, data: { status: 'EXPIRED' } });
      if (plan.cancel.length) await tx.db.payrollGarnishment.updateMany({ where: { id: { in: plan.cancel } }, data: { status: 'CANCELLED' } });
      await tx.db.payrollGarnishmentFetchRun.update({
        where: { id: runId },
        data: {
          status: 'SUCCEEDED',
          finishedAt: new Date(),
          listed: plan.listed,
          created: plan.create.length,
          updated: plan.update.length,
          expired: plan.expire.length,
          cancelled: plan.cancel.length,
          unchanged: plan.unchanged,
          skipped: plan.skipped,
        },
      });
    });
  } catch (e) {
    await fail(`Storing the garnishments failed: ${(e as Error)?.message ?? String(e)}`);
    throw e;
  }
  return { runId, status: 'SUCCEEDED' };
}

/** The columns of a garnishment from an order (the order itself kept as raw_response). */
async function columns(w: PlannedWrite, creditors: CreditorCache) {
  const o = w.order;
  const creditor = o.creditor ? await creditors.of(o.creditor) : null;
  return {
    businessPartnerId: w.businessPartnerId,
    externalId: o.order_id,
    garnishmentType: o.garnishment_type,
    deductionType: o.deduction_type,
    amount: o.deduction_type === 'FIXED' && o.amount !== null ? new Decimal(o.amount) : null,
    percentage: o.deduction_type === 'PERCENTAGE' && o.percentage !== null ? new Decimal(o.percentage) : null,
    priority: o.priority,
    creditorId: creditor?.id ?? null,
    creditorBankAccountId: creditor?.bankAccountId ?? null,
    paymentReference: o.payment_reference,
    validFrom: new Date(`${o.valid_from}T00:00:00.000Z`),
    validTo: o.valid_to === null ? null : new Date(`${o.valid_to}T00:00:00.000Z`),
    status: w.status,
    caseNumber: o.case_number,
    externalVersion: o.version,
    sequenceNumber: o.sequence_number,
    rawResponse: o as unknown as PrismaNS.InputJsonValue,
  };
}

/**
 * The creditor of an order as a business partner of the account: found by organisation number (an
 * active supplier first, else any, lowest id), or created as a supplier with the creditor's name; its
 * bank account found by account number in the account, or created on the creditor. A creditor whose
 * organisation number fails the mod-11 check is not stored (creditor_id null); so is a bank account
 * number that fails its check.
 */
class CreditorCache {
  private readonly known = new Map<string, { id: number; bankAccountId: number | null } | null>();
  constructor(
    private readonly tx: RequestContext,
    private readonly clientAccountId: number,
    /** who asked for the fetch: the creator of what it creates */
    private readonly userId: number | null,
  ) {}

  async of(c: NonNullable<GarnishmentOrder['creditor']>) {
    const key = `${c.organization_number}:${c.bank_account_number ?? ''}`;
    if (!this.known.has(key)) this.known.set(key, await this.resolve(c));
    return this.known.get(key)!;
  }

  private async resolve(c: NonNullable<GarnishmentOrder['creditor']>) {
    if (!isValidOrganizationNumber(c.organization_number)) return null;
    const db = this.tx.db;
    const found = await db.businessPartner.findFirst({
      where: { clientAccountId: this.clientAccountId, organizationNumber: c.organization_number },
      orderBy: [{ isSupplier: 'desc' }, { isActive: 'desc' }, { id: 'asc' }],
      select: { id: true },
    });
    const user = this.userId;
    const partner =
      found ??
      (await db.businessPartner.create({
        data: { clientAccountId: this.clientAccountId, name: c.name.slice(0, 250), organizationNumber: c.organization_number, isSupplier: true, createdById: user, updatedById: user },
        select: { id: true },
      }));
    let bankAccountId: number | null = null;
    if (c.bank_account_number && isValidBankAccountNumber(c.bank_account_number)) {
      const bank =
        (await db.bankAccount.findUnique({ where: { clientAccountId_accountNumber: { clientAccountId: this.clientAccountId, accountNumber: c.bank_account_number } }, select: { id: true } })) ??
        (await db.bankAccount.create({
          data: { clientAccountId: this.clientAccountId, businessPartnerId: partner.id, accountNumber: c.bank_account_number, name: c.name.slice(0, 150), createdById: user, updatedById: user },
          select: { id: true },
        }));
      bankAccountId = bank.id;
    }
    return { id: partner.id, bankAccountId };
  }
}
