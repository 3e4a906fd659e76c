import { loadUser, UserRef } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { described } from '../../shared/enum-values.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { fixedOrNull } from '../../shared/scalars.ts';
import { DEDUCTION_TYPE_DESCRIPTIONS, FETCH_RUN_PAGE_LIMITS, GARNISHMENT_PAGE_LIMITS, GARNISHMENT_STATUS_DESCRIPTIONS, GARNISHMENT_STATUSES } from './payroll-garnishments.rules.ts';
import { getPayrollGarnishment, listGarnishmentFetchRuns, listPayrollGarnishments, requestGarnishmentFetch } from './payroll-garnishments.service.ts';

/** Payroll garnishments (spec 002 "Garnishment (read-only)", "Payroll garnishments"). */
export const GarnishmentStatusEnum = builder.enumType('GarnishmentStatus', {
  description: 'Where a garnishment order is; set by the fetch from the tax authority (README "Payroll garnishments")',
  values: described(GARNISHMENT_STATUSES, GARNISHMENT_STATUS_DESCRIPTIONS),
});

export const GarnishmentDeductionTypeEnum = builder.enumType('GarnishmentDeductionType', {
  values: described(['FIXED', 'PERCENTAGE'] as const, DEDUCTION_TYPE_DESCRIPTIONS),
});

export const GarnishmentFetchStatusEnum = builder.enumType('GarnishmentFetchStatus', {
  values: described(['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED'] as const, {
    QUEUED: 'Asked for; the job has not started',
    RUNNING: 'The job is asking the tax authority or storing its answer',
    SUCCEEDED: 'The answer is stored; the counts say what changed',
    FAILED: 'Nothing was stored; error says why (the tax authority could not be asked, or storing failed)',
  }),
});

export const PayrollGarnishment = builder.prismaObject('PayrollGarnishment', {
  ...tenantScoped,
  description:
    'A garnishment order (trekkpålegg) on an employee’s pay, fetched from the tax authority; read-only. ' +
    'Active garnishments are deducted in priority order (lowest first); this API runs no payroll, it exposes the order (payrollGarnishments lists by priority then id).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true, description: 'Who asked for the fetch that created it' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Last change by a fetch' }),
    businessPartnerId: t.exposeInt('businessPartnerId', { description: 'The employee (matched by national id number)' }),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    externalId: t.exposeString('externalId', { description: 'The tax authority’s order id; unique in the client account' }),
    garnishmentType: t.exposeString('garnishmentType', { description: 'As the authority names it, e.g. UTLEGGSTREKK, BIDRAGSTREKK, RESTSKATT' }),
    deductionType: t.expose('deductionType', { type: GarnishmentDeductionTypeEnum }),
    amount: t.field({ type: 'Decimal', nullable: true, description: 'FIXED: deducted per pay period (2 decimals)', resolve: fixedOrNull('amount', 2) }),
    percentage: t.field({ type: 'Decimal', nullable: true, description: 'PERCENTAGE: percent of net pay (2 decimals, e.g. "12.50")', resolve: fixedOrNull('percentage', 2) }),
    priority: t.exposeInt('priority', { description: 'Lower is deducted first' }),
    creditorId: t.exposeInt('creditorId', { nullable: true, description: 'The creditor as a business partner of the account (created as a supplier when missing)' }),
    creditorBankAccount: t.relation('creditorBankAccount', { nullable: true }),
    creditorBankAccountId: t.exposeInt('creditorBankAccountId', { nullable: true, description: 'The bank account the deductions are paid to' }),
    paymentReference: t.exposeString('paymentReference', { nullable: true, description: 'KID or message for the payment' }),
    validFrom: t.expose('validFrom', { type: 'Date' }),
    validTo: t.expose('validTo', { type: 'Date', nullable: true }),
    status: t.expose('status', { type: GarnishmentStatusEnum }),
    caseNumber: t.exposeString('caseNumber', { nullable: true }),
    externalVersion: t.exposeInt('externalVersion', { description: 'The authority’s version of the order; a fetch only takes a higher one' }),
    sequenceNumber: t.exposeInt('sequenceNumber', { description: 'The order’s running number among the person’s orders at the authority (løpenummer)' }),
    rawResponse: t.expose('rawResponse', { type: 'JSON', description: 'The order as the authority sent it (the version stored)' }),
    businessPartner: t.relation('businessPartner', { description: 'The employee' }),
    creditor: t.relation('creditor', { nullable: true }),
  }),
});

export const PayrollGarnishmentFetchRun = builder.prismaObject('PayrollGarnishmentFetchRun', {
  ...tenantScoped,
  description: 'One fetch of the account’s garnishment orders from the tax authority and what it changed',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    status: t.expose('status', { type: GarnishmentFetchStatusEnum }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was asked for' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    listed: t.exposeInt('listed', { description: 'Orders the authority listed' }),
    created: t.exposeInt('created'),
    updated: t.exposeInt('updated', { description: 'A newer version stored, or a cancelled order listed again' }),
    cancelled: t.exposeInt('cancelled', { description: 'ACTIVE orders the authority no longer lists' }),
    expired: t.exposeInt('expired', { description: 'Orders whose valid_to has passed since the last fetch' }),
    unchanged: t.exposeInt('unchanged'),
    skipped: t.exposeInt('skipped', { description: 'Orders for persons no employee of the account has the national id number of' }),
    error: t.exposeString('error', { nullable: true }),
  }),
});

const PayrollGarnishmentPage = pageType('PayrollGarnishmentPage', PayrollGarnishment);
const FetchRunPage = pageType('PayrollGarnishmentFetchRunPage', PayrollGarnishmentFetchRun);

const GarnishmentFetchRequest = builder.objectRef<{ message: string; run: { id: number } }>('PayrollGarnishmentFetchRequest').implement({
  description: 'A queued fetch of garnishments from the tax authority',
  fields: (t) => ({
    message: t.exposeString('message'),
    run: t.prismaField({
      type: 'PayrollGarnishmentFetchRun',
      description: 'The fetch run: follow it in payrollGarnishmentFetchRuns',
      resolve: (query, r, _args, ctx) => ctx.db.payrollGarnishmentFetchRun.findUniqueOrThrow({ ...query, where: { id: r.run.id } }),
    }),
  }),
});

builder.queryFields((t) => ({

  payrollGarnishments: t.field({
    type: PayrollGarnishmentPage,
    extensions: pageCost(GARNISHMENT_PAGE_LIMITS),
    description: 'Garnishments of a client account, ordered by priority then id (page-based; per_page 100 by default, at most 100).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      businessPartnerId: t.arg.int({ description: 'The employee' }),
      status: t.arg({ type: GarnishmentStatusEnum }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listPayrollGarnishments(ctx, args, nodesQuery(ctx, info)),
  }),
  payrollGarnishment: t.prismaField({
    nullable: true,
    type: 'PayrollGarnishment',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getPayrollGarnishment(ctx, args, query),
  }),

  payrollGarnishmentFetchRuns: t.field({
    type: FetchRunPage,
    extensions: pageCost(FETCH_RUN_PAGE_LIMITS),
    description: 'The fetches of the account’s garnishments from the tax authority, newest first: status, times, counts, error.',
    args: { clientAccountId: t.arg.int({ required: true }), page: t.arg.int(), perPage: t.arg.int(), ...cursorArgs(t) },
    resolve: (_root, args, ctx, info) => listGarnishmentFetchRuns(ctx, args, nodesQuery(ctx, info)),
  }),
}));

builder.mutationFields((t) => ({
  fetchPayrollGarnishments: t.field({
    type: GarnishmentFetchRequest,
    description:
      'Queues a fetch of the account’s garnishment orders from the tax authority (REST POST /payroll/garnishments/fetch, 202): the job creates and updates garnishments and records the run (payrollGarnishmentFetchRuns). The account needs an organization number.',
    args: { clientAccountId: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => requestGarnishmentFetch(ctx, args),
  }),
}));
