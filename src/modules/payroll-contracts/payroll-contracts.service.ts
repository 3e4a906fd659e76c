import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { enqueue } from '../../jobs/jobs.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { findPage, pageWindow, type PageLimits } from '../../shared/pagination.ts';
import type { Reference } from '../../shared/references.ts';
import { lockClientAccount, requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, parse, validate, type Args, type Issues } from '../../shared/validation.ts';
import { fetchTaxCardJob, reportEmploymentEndJob } from './payroll-contracts.job.ts';
import { contractIssues, payrollContractRules as rules } from './payroll-contracts.rules.ts';
import { currentTaxYear } from './payroll-tax-cards.service.ts';
import { markEmployee } from '../business-partners/business-partners.service.ts';
import { osloToday } from '../journal-entries/journal-entries.rules.ts';

type Query = { include?: PrismaNS.PayrollContractInclude; select?: PrismaNS.PayrollContractSelect };

/** spec 002 "GET /payroll/contracts": page 1, per_page 100 (no maximum named; 100 as the other lists). */
export const PAYROLL_CONTRACT_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 100 };

export async function listPayrollContracts(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, businessPartnerId, isActive, ...window } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.PayrollContractWhereInput = { clientAccountId };
  if (businessPartnerId != null) where.businessPartnerId = businessPartnerId;
  if (isActive != null) where.isActive = isActive;
  return findPage(
    pageWindow(window, PAYROLL_CONTRACT_PAGE_LIMITS),
    (w) => ctx.db.payrollContract.findMany({ ...query, where, orderBy: { id: 'asc' }, ...w }),
    () => ctx.db.payrollContract.count({ where }),
  );
}

/** 404 when missing, 403 when it belongs to a client account the caller cannot access. */
export async function getPayrollContract(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, `Payroll contract ${id}`, await ctx.db.payrollContract.findUnique({ ...query, where: { id } }));
}

/**
 * The employee and the pension provider are business partners of the account. Any partner may be the
 * employee (spec 002: business_partner_id is "the employee"; no flag is asked for): an active contract
 * marks it is_employee (markEmployee).
 */
function partnerReferences(input: { businessPartnerId?: unknown; pensionProviderId?: unknown } | undefined, employee: boolean): Reference[] {
  const refs: Reference[] = [{ path: ['pensionProviderId'], model: 'businessPartner', id: input?.pensionProviderId as number | undefined }];
  if (employee) refs.push({ path: ['businessPartnerId'], model: 'businessPartner', id: input?.businessPartnerId as number | undefined });
  return refs;
}

const addAll = (issues: Issues, list: { path: string[]; message: string }[]) => {
  for (const i of list) issues.add(i.path, i.message);
};

/**
 * A contract is its employee's payroll default alone: setting is_payroll_default clears it on the
 * employee's other contracts in the account, in the same transaction (the account is locked first,
 * so two contracts made default at once cannot both keep it).
 */
async function clearOtherDefaults(tx: RequestContext, c: { clientAccountId: number; businessPartnerId: number; id?: number }) {
  await tx.db.payrollContract.updateMany({
    where: { clientAccountId: c.clientAccountId, businessPartnerId: c.businessPartnerId, isPayrollDefault: true, ...(c.id ? { NOT: { id: c.id } } : {}) },
    data: { isPayrollDefault: false },
  });
}

const taxCardFetch = (tx: RequestContext, c: { clientAccountId: number; businessPartnerId: number }) =>
  enqueue(tx, fetchTaxCardJob, { clientAccountId: c.clientAccountId, businessPartnerId: c.businessPartnerId, year: currentTaxYear() });

/**
 * Creates a contract (spec 002 "POST /payroll/contracts"): arbeidsforhold_id generated; defaults
 * is_primary_employer true, is_active true, is_payroll_default false. An active contract marks its
 * business partner as an employee (is_employee). It queues the fetch of the employee's tax card for
 * the current tax year, in the same transaction (the spec's POST "Queues a background fetch of tax
 * cards", whether the contract is active or not).
 */
export async function createPayrollContract(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    const clientAccountId = args.input.clientAccountId;
    await requireAccount(tx, clientAccountId);
    const { input } = await check(tx, parsed, {
      clientAccountId,
      references: ({ input }) => partnerReferences(input, true),
    });
    if (input.isPayrollDefault) {
      await lockClientAccount(tx, clientAccountId);
      await clearOtherDefaults(tx, input);
    }
    // marked first, so a business_partner the answer embeds reads as the employee
    if (input.isActive !== false) await markEmployee(tx, input.businessPartnerId);
    const contract = await tx.db.payrollContract.create({ ...query, data: { ...input, createdById: auditUserId(tx) } });
    await taxCardFetch(tx, input);
    return contract;
  });
}

/**
 * Changes the fields sent (spec 002 "POST or PUT /payroll/contracts/{id}"); client_account_id and
 * business_partner_id cannot change. The rules across fields are checked on the stored contract with
 * the changes. Activating (is_active false → true) queues a tax-card fetch; is_active true sent marks
 * the partner as an employee (deactivating unmarks nothing). Deactivating (true → false) queues the
 * report of the employment's end with its end_date: the one sent or stored, else today in Norway (not
 * before start_date), which is then stored as the contract's end_date.
 */
export async function updatePayrollContract(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    // the row locked first: two updates at once see each other's is_active, so one deactivation
    // (or activation) is reported (or fetched) once
    await tx.db.$queryRaw`SELECT id FROM payroll_contracts WHERE id = ${args.id} FOR UPDATE`;
    const contract = await getPayrollContract(tx, args);
    const { input } = await check(tx, parsed, {
      clientAccountId: contract.clientAccountId,
      immutable: { clientAccountId: contract.clientAccountId, businessPartnerId: contract.businessPartnerId },
      references: ({ input }) => partnerReferences(input, false),
      check: ({ input }, _found, issues) => {
        const merged = { ...contract, ...definedOf(input) };
        addAll(issues, contractIssues(merged));
      },
    });
    const { clientAccountId: _ca, businessPartnerId: _bp, ...fields } = input;
    const changes = definedOf(fields);
    if (changes.isPayrollDefault) {
      await lockClientAccount(tx, contract.clientAccountId);
      await clearOtherDefaults(tx, contract);
    }
    const activating = !contract.isActive && changes.isActive === true;
    const deactivating = contract.isActive && changes.isActive === false;
    const sentOrStored = changes.endDate !== undefined ? changes.endDate : contract.endDate;
    const endDate = deactivating && !sentOrStored ? defaultEndDate(changes.startDate ?? contract.startDate) : sentOrStored;
    if (endDate !== sentOrStored) changes.endDate = endDate;
    const report: PrismaNS.PayrollContractUncheckedUpdateInput = deactivating
      ? { employmentEndReportStatus: 'PENDING', employmentEndReportedDate: endDate, employmentEndReportedAt: null, employmentEndReference: null, employmentEndReportError: null, employmentEndReportAttempts: 0 }
      : activating && contract.employmentEndReportStatus === 'PENDING'
        ? { employmentEndReportStatus: null } // activated again before the end was reported: nothing to report
        : {};
    if (changes.isActive === true) await markEmployee(tx, contract.businessPartnerId);
    const updated = await tx.db.payrollContract.update({ ...query, where: { id: contract.id }, data: { ...changes, ...report } });
    if (activating) await taxCardFetch(tx, contract);
    if (deactivating) await enqueue(tx, reportEmploymentEndJob, { contractId: contract.id });
    return updated;
  });
}

/**
 * The end of an employment deactivated without an end_date (sent or stored): today in Norway, or the
 * start_date when the employment has not started yet (end_date is never before start_date).
 */
function defaultEndDate(startDate: Date): Date {
  const today = osloToday();
  return today < startDate ? startDate : today;
}

/** The fields that were sent (omitted ones are undefined and keep their value; null clears). */
function definedOf<T extends object>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
