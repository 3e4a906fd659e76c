import { recordById } from '../../shared/record-by-id.ts';
import type { Decimal } from '@prisma/client/runtime/client';
import type { JournalEntry as PrismaJournalEntry } from '../../generated/prisma/client.ts';
import { builder, tenantScoped, wireSpelled } from '../../builder.ts';
import type { RequestContext } from '../../shared/context.ts';
import { requestLoader } from '../../shared/loaders.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import { fixed, fixedOrNull, inCurrency } from '../../shared/scalars.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import { Account, DimensionType } from '../ledger-accounts/ledger-accounts.types.ts';
import { DIMENSION_KIND_NAMES, DIMENSION_KINDS, lineDimensions, typeOfKind, type DimensionKind } from './dimensions.ts';
import { CANCELLATION_FLAGS, journalEntryRules as rules } from './journal-entries.rules.ts';
import {
  accountBalance,
  cancelJournalEntry,
  createJournalEntry,
  deleteJournalEntry,
  getJournalEntry,
  JOURNAL_ENTRY_PAGE_LIMITS,
  listJournalEntries,
  postJournalEntry,
  updateJournalEntry,
} from './journal-entries.service.ts';

/** The name a dimension shows: each type's own naming column, loaded per request, one query per type. */
const NAME_OF = {
  businesspartner: (ctx, ids) => ctx.db.businessPartner.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }),
  bankacc: async (ctx, ids) =>
    (await ctx.db.bankAccount.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, accountNumber: true } })).map((b) => ({ id: b.id, name: b.name ?? b.accountNumber })),
  project: (ctx, ids) => ctx.db.project.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }),
  department: (ctx, ids) => ctx.db.department.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }),
  asset: (ctx, ids) => ctx.db.asset.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }),
  tag: (ctx, ids) => ctx.db.tag.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }),
  item: async (ctx, ids) => (await ctx.db.item.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, itemNo: true } })).map((i) => ({ id: i.id, name: i.name ?? i.itemNo })),
} satisfies Record<DimensionKind, (ctx: RequestContext, ids: number[]) => Promise<{ id: number; name: string | null }[]>>;

function dimensionName(ctx: RequestContext, type: DimensionKind, id: number): Promise<string | null> {
  return requestLoader<string, string | null>(ctx.loaders, 'dimensionName', async (keys) => {
    const byType = new Map<DimensionKind, number[]>();
    for (const key of keys) {
      const [t, i] = key.split(':');
      byType.set(t as DimensionKind, [...(byType.get(t as DimensionKind) ?? []), Number(i)]);
    }
    const names = new Map<string, string | null>();
    await Promise.all(
      [...byType].map(async ([t, ids]) => {
        for (const row of await NAME_OF[t](ctx, ids)) names.set(`${t}:${row.id}`, row.name);
      }),
    );
    return keys.map((k) => names.get(k) ?? null);
  }).load(`${type}:${id}`);
}

export const LineDimension = builder.objectRef<{ type: DimensionKind; id: number }>('LineDimension').implement({
  description: 'A dimension of a journal line: the type and id of a record of the same client account, and its name (read-only).',
  fields: (t) => ({
    type: t.field({ type: DimensionType, ...wireSpelled, description: 'Never EMPLOYEE (spelled as the spec on REST and in MCP tools: businesspartner, bankacc, project, department, asset, tag, item)', resolve: (d) => typeOfKind(d.type) }),
    id: t.exposeInt('id'),
    name: t.string({ nullable: true, resolve: (d, _a, ctx) => dimensionName(ctx, d.type, d.id) }),
  }),
});

const fcAmount = <K extends 'debitFc' | 'creditFc' | 'reconciledAmountFc'>(key: K) => (l: { [P in K]: Decimal } & { currencyCode: string }) => inCurrency(l[key], l.currencyCode);
const fcAmountOrNull = <K extends 'taxBaseAmountFc' | 'taxAmountFc'>(key: K) => (l: { [P in K]: Decimal | null } & { currencyCode: string }) =>
  l[key] === null ? null : inCurrency(l[key], l.currencyCode);

/** The id of a currency row by code (system-wide reference data, from the app's cache). */
function currencyId(ctx: RequestContext, code: string): number | null | Promise<number | null> {
  const loaded = ctx.reference.peek<Map<string, number>>('currencyIds');
  if (loaded) return loaded.get(code) ?? null;
  const pending = ctx.reference.get('currencyIds', async () => new Map((await ctx.db.currency.findMany({ select: { id: true, code: true } })).map((c) => [c.code, c.id])));
  return Promise.resolve(pending).then((m) => m.get(code) ?? null);
}

export const JournalEntryLine = builder.prismaObject('JournalEntryLine', {
  ...tenantScoped,
  description: 'A line of a journal entry: an amount on one side of one ledger account, in the accounting currency and in the line currency (_fc).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    journalEntry: t.relation('journalEntry'),
    journalEntryId: t.exposeInt('journalEntryId'),
    lineId: t.exposeInt('lineId', { description: 'Position within the entry (1, 2, … unless the client numbered its lines)' }),
    postingDate: t.expose('postingDate', { type: 'Date' }),
    description: t.exposeString('description', { nullable: true }),
    accountId: t.exposeInt('accountId'),
    accountCode: t.string({ select: { account: { select: { code: true } } }, resolve: (l) => l.account.code }),
    debit: t.field({ type: 'Decimal', description: 'In the accounting currency', resolve: fixed('debit', 2) }),
    debitFc: t.field({ type: 'Decimal', description: 'In the line currency', resolve: fcAmount('debitFc') }),
    credit: t.field({ type: 'Decimal', description: 'In the accounting currency', resolve: fixed('credit', 2) }),
    creditFc: t.field({ type: 'Decimal', description: 'In the line currency', resolve: fcAmount('creditFc') }),
    currencyCode: t.exposeString('currencyCode'),
    currency: t.prismaField({ type: 'Currency', nullable: true, description: 'The currency of currencyCode', resolve: (query, p, _a, ctx) => ctx.db.currency.findUnique({ ...query, where: { code: p.currencyCode } }) }),
    currencyId: t.int({ nullable: true, resolve: (l, _a, ctx) => currencyId(ctx, l.currencyCode) }),
    exchangeRate: t.field({ type: 'Decimal', description: 'Accounting-currency units per unit of the line currency', resolve: fixed('exchangeRate', 6) }),
    taxCode: t.string({ nullable: true, description: 'The tax code, e.g. "3"', select: { taxCode: { select: { code: true } } }, resolve: (l) => l.taxCode?.code ?? null }),
    taxCodeId: t.exposeInt('taxCodeId', { nullable: true }),
    taxCodeDetails: t.relation('taxCode', { nullable: true, description: 'The tax code record' }),
    taxBaseAmount: t.field({ type: 'Decimal', nullable: true, resolve: fixedOrNull('taxBaseAmount', 2) }),
    taxBaseAmountFc: t.field({ type: 'Decimal', nullable: true, resolve: fcAmountOrNull('taxBaseAmountFc') }),
    taxAmount: t.field({ type: 'Decimal', nullable: true, resolve: fixedOrNull('taxAmount', 2) }),
    taxAmountFc: t.field({ type: 'Decimal', nullable: true, resolve: fcAmountOrNull('taxAmountFc') }),
    taxLine: t.exposeBoolean('taxLine', { description: 'This line carries the VAT of another line (tax_for_line)' }),
    taxForLine: t.exposeInt('taxForLine', { nullable: true, description: 'The line_id whose VAT this line carries' }),
    quantity: t.field({ type: 'Decimal', nullable: true, resolve: fixedOrNull('quantity', 6) }),
    reconciledAmount: t.field({ type: 'Decimal', resolve: fixed('reconciledAmount', 2) }),
    reconciledAmountFc: t.field({ type: 'Decimal', resolve: fcAmount('reconciledAmountFc') }),
    externalReconciledAmount: t.field({ type: 'Decimal', resolve: fixed('externalReconciledAmount', 2) }),
    dimensions: t.field({
      type: [LineDimension],
      // at most one of each type
      extensions: listCost(DIMENSION_KIND_NAMES.length),
      description: 'The dimensions of the line, `{type, id, name}`',
      select: Object.fromEntries(DIMENSION_KIND_NAMES.map((k) => [DIMENSION_KINDS[k].column, true])),
      resolve: (l) => lineDimensions(l),
    }),
    account: t.relation('account'),
  }),
});

/** The flag's meaning, in the answer's and the input's descriptions (so in the OpenAPI document too). */
const OPENING_BALANCE =
  "Our extension of spec 001: the opening balance of the year of its lines' date (1 January; balance-sheet accounts only; at most one per client account and year that is not cancelled). Reports, the SAF-T file and the yearly accounts count it as that year's incoming balance and the year before's closing balance, not as movement. False on every other entry; a reversal of one carries it too.";

export const JournalEntry = builder.prismaObject('JournalEntry', {
  ...tenantScoped,
  description: 'A journal entry: lines that balance in the accounting currency. Drafts can change; posted entries are numbered, chained and immutable (cancelled by a reversal).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    sequenceNumber: t.exposeInt('sequenceNumber', { nullable: true, description: '1, 2, 3 … per client account in posting order, without gaps; null while draft' }),
    description: t.exposeString('description', { nullable: true }),
    cancelled: t.exposeString('cancelled', { nullable: true, description: "The spec's string: 'Y' on a cancelled entry, 'C' on the reversal entry that cancels it, else null (typed: isCancelled, isCancellation)" }),
    isCancelled: t.boolean(CANCELLATION_FLAGS.isCancelled),
    isCancellation: t.boolean(CANCELLATION_FLAGS.isCancellation),
    cancelledById: t.exposeInt('cancelledById', { nullable: true }),
    cancellationEntry: t.prismaField({ type: 'JournalEntry', nullable: true, description: 'On a cancelled entry: its reversal entry', resolve: (query, p, _a, ctx) => recordById(ctx, 'journalEntry', p.cancellationEntryId, query) }),
    cancellationEntryId: t.exposeInt('cancellationEntryId', { nullable: true, description: 'On a cancelled entry: its reversal entry' }),
    cancellationReason: t.exposeString('cancellationReason', { nullable: true }),
    reversesEntry: t.prismaField({ type: 'JournalEntry', nullable: true, description: 'On a reversal entry: the entry it cancels', resolve: (query, p, _a, ctx) => recordById(ctx, 'journalEntry', p.reversesEntryId, query) }),
    reversesEntryId: t.exposeInt('reversesEntryId', { nullable: true, description: "On a reversal entry ('C'): the entry it cancels" }),
    isDraft: t.exposeBoolean('isDraft'),
    isOpeningBalance: t.exposeBoolean('isOpeningBalance', { description: OPENING_BALANCE }),
    voucher: t.prismaField({ type: 'Voucher', nullable: true, description: 'The voucher the entry was booked from', resolve: (query, p, _a, ctx) => recordById(ctx, 'voucher', p.voucherId, query) }),
    voucherId: t.exposeInt('voucherId', { nullable: true }),
    relationType: t.exposeString('relationType', { nullable: true }),
    relationId: t.exposeInt('relationId', { nullable: true }),
    relationNumber: t.string({
      nullable: true,
      description: 'Read-only: the number of the related record (the document number when relation_type is document)',
      resolve: (e, _a, ctx) => (e.relationType === 'document' && e.relationId != null ? documentNumber(ctx, e.relationId) : null),
    }),
    postedAt: t.expose('postedAt', { type: 'DateTime', nullable: true }),
    postedById: t.exposeInt('postedById', { nullable: true }),
    entryHash: t.exposeString('entryHash', { nullable: true, description: 'SHA-256 link of the hash chain of posted entries (see verify-ledger)' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (e, _a, ctx) => loadUser(ctx, e.createdById) }),
    updatedBy: t.field({ type: UserRef, nullable: true, resolve: (e, _a, ctx) => loadUser(ctx, e.updatedById) }),
    postedBy: t.field({ type: UserRef, nullable: true, resolve: (e, _a, ctx) => loadUser(ctx, e.postedById) }),
    cancelledBy: t.field({ type: UserRef, nullable: true, resolve: (e, _a, ctx) => loadUser(ctx, e.cancelledById) }),
    lines: t.relation('lines', { query: { orderBy: { lineId: 'asc' } } }),
  }),
});

function documentNumber(ctx: RequestContext, id: number): Promise<string | null> {
  return requestLoader<number, string | null>(ctx.loaders, 'documentNumber', async (ids) => {
    const rows = await ctx.db.document.findMany({ where: { id: { in: [...ids] } }, select: { id: true, documentNumber: true } });
    const byId = new Map(rows.map((r) => [r.id, r.documentNumber]));
    return ids.map((id) => byId.get(id) ?? null);
  }).load(id);
}

const JournalEntryPage = pageType('JournalEntryPage', JournalEntry);

/** Posted entries with a line on the project, by number: one query for every project of a page. */
function entriesOfProject(ctx: RequestContext, projectId: number) {
  return requestLoader<number, PrismaJournalEntry[]>(ctx.loaders, 'entriesOfProject', async (ids) => {
    const entries = await ctx.db.journalEntry.findMany({
      where: { isDraft: false, lines: { some: { projectId: { in: [...ids] } } } },
      orderBy: { sequenceNumber: 'asc' },
      include: { lines: { where: { projectId: { in: [...ids] } }, select: { projectId: true } } },
    });
    return ids.map((id) => entries.filter((e) => e.lines.some((l) => l.projectId === id)).map(({ lines: _l, ...e }) => e));
  }).load(projectId);
}

builder.prismaObjectFields('Project', (t) => ({
  journalEntries: t.field({
    type: [JournalEntry],
    description: 'Posted journal entries with a line on the project, by sequence number',
    resolve: (project, _a, ctx) => entriesOfProject(ctx, project.id),
  }),
}));

const AccountBalance = builder
  .objectRef<{ account: { id: number; code: string; name: string }; debit: Decimal; credit: Decimal; balance: Decimal }>('AccountBalance')
  .implement({
    description: "Sums of an account's lines: balance = debit − credit.",
    fields: (t) => ({
      account: t.prismaField({ type: 'Account', resolve: (query, p, _a, ctx) => recordById(ctx, 'account', p.account.id, query) as never }),
      accountId: t.int({ resolve: (b) => b.account.id }),
      accountCode: t.string({ resolve: (b) => b.account.code }),
      accountName: t.string({ resolve: (b) => b.account.name }),
      debit: t.field({ type: 'Decimal', resolve: fixed('debit', 2) }),
      credit: t.field({ type: 'Decimal', resolve: fixed('credit', 2) }),
      balance: t.field({ type: 'Decimal', resolve: fixed('balance', 2) }),
    }),
  });

// Field rules (amounts, balance, tax, dimensions, locked periods) are in journal-entries.rules.ts and the service.

const LineDimensionInput = builder.inputType('LineDimensionInput', {
  fields: (t) => ({
    type: t.field({ type: DimensionType, required: true, ...wireSpelled, description: 'Any type but EMPLOYEE (spelled as the spec on REST and in MCP tools: businesspartner, bankacc, project, department, asset, tag, item)' }),
    id: t.int({ required: true, description: 'A record of the same client account' }),
    name: t.string({ description: 'Read-only: ignored (a line sent back as it was read)' }),
  }),
});

const JournalEntryLineInput = builder.inputType('JournalEntryLineInput', {
  fields: (t) => ({
    postingDate: t.field({ type: 'Date', required: true }),
    accountCode: t.string({ description: 'The ledger account by code (or accountId)' }),
    accountId: t.int(),
    debit: t.field({ type: 'Decimal', required: true, description: 'Accounting currency, 0 on a credit line' }),
    credit: t.field({ type: 'Decimal', required: true, description: 'Accounting currency, 0 on a debit line' }),
    lineId: t.int({ description: 'Position; default the line’s place in the list (1, 2, …)' }),
    description: t.string(),
    debitFc: t.field({ type: 'Decimal', description: 'In the line currency; required (or exchangeRate) on a foreign-currency line' }),
    creditFc: t.field({ type: 'Decimal' }),
    currencyCode: t.string({ description: "Default: the client account's accounting currency" }),
    exchangeRate: t.field({ type: 'Decimal', description: 'Accounting-currency units per unit of the line currency; default implied by the amounts' }),
    taxCode: t.string({ description: 'A tax code of the client account, e.g. "3"' }),
    taxCodeId: t.int(),
    taxBaseAmount: t.field({ type: 'Decimal', description: 'Default (with taxAmount) from the tax code’s rate on the posting date' }),
    taxBaseAmountFc: t.field({ type: 'Decimal' }),
    taxAmount: t.field({ type: 'Decimal' }),
    taxAmountFc: t.field({ type: 'Decimal' }),
    taxLine: t.boolean(),
    taxForLine: t.int(),
    quantity: t.field({ type: 'Decimal' }),
    dimensions: t.field({ type: [LineDimensionInput] }),
  }),
});

export const entryFields = (t: Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0]) => ({
  description: t.string(),
  isDraft: t.boolean({ description: 'false (default) posts the entry; true keeps it a draft' }),
  isOpeningBalance: t.boolean({
    description: `${OPENING_BALANCE} Default false. true: every line is dated the same 1 January, on a balance-sheet account (classes 1 and 2), else 400; a second one for the year is 409.`,
  }),
  voucherId: t.int(),
  relationType: t.string({ description: 'What the entry belongs to, e.g. document' }),
  relationId: t.int(),
  lines: t.field({ type: [JournalEntryLineInput], required: true }),
});

const CreateJournalEntryInput = builder.inputType('CreateJournalEntryInput', {
  fields: (t) => ({ clientAccountId: t.int({ required: true }), ...entryFields(t) }),
});

const UpdateJournalEntryInput = builder.inputType('UpdateJournalEntryInput', {
  description: 'The whole draft again: every line (they replace the old ones). clientAccountId may be sent but not changed; isDraft false posts it.',
  fields: (t) => ({ clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }), ...entryFields(t) }),
});

builder.queryFields((t) => ({

  journalEntries: t.field({
    type: JournalEntryPage,
    extensions: pageCost(JOURNAL_ENTRY_PAGE_LIMITS),
    description: 'Journal entries of a client account by sequence number (drafts last when included), page-based.',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      dateFrom: t.arg({ type: 'Date', description: 'Entries with a line posted on or after this date' }),
      dateTo: t.arg({ type: 'Date', description: 'Entries with a line posted on or before this date' }),
      relationType: t.arg.string(),
      relationId: t.arg.int(),
      includeDrafts: t.arg.boolean({ defaultValue: false }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listJournalEntries(ctx, args, nodesQuery(ctx, info)),
  }),
  journalEntry: t.prismaField({
    nullable: true,
    type: 'JournalEntry',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getJournalEntry(ctx, args, query),
  }),

  accountBalance: t.field({
    type: AccountBalance,
    description: "An account's debit, credit and balance over posted lines (drafts on request), optionally in a date range.",
    args: {
      clientAccountId: t.arg.int({ required: true }),
      accountId: t.arg.int(),
      accountCode: t.arg.string(),
      dateFrom: t.arg({ type: 'Date' }),
      dateTo: t.arg({ type: 'Date' }),
      includeDrafts: t.arg.boolean({ defaultValue: false }),
    },
    resolve: (_root, args, ctx) => accountBalance(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createJournalEntry: t.prismaField({
    type: 'JournalEntry',
    description: 'Creates a journal entry: posted (numbered, immutable) unless isDraft is true.',
    args: { input: t.arg({ type: CreateJournalEntryInput, required: true }) },
    resolve: (query, _root, args, ctx) => createJournalEntry(ctx, args, query),
  }),
  updateJournalEntry: t.prismaField({
    type: 'JournalEntry',
    description: 'Replaces a draft (all lines); isDraft false posts it. Posted entries cannot change.',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateJournalEntryInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateJournalEntry(ctx, args, query),
  }),
  postJournalEntry: t.prismaField({
    type: 'JournalEntry',
    description: 'Posts a draft: every rule is checked again, and it gets the next sequence number.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => postJournalEntry(ctx, args, query),
  }),
  cancelJournalEntry: t.prismaField({
    type: 'JournalEntry',
    nullable: true,
    description:
      "cancelled 'Y' cancels: a posted entry gets a reversal entry posted today and is returned marked cancelled; a draft is removed (null). Any other value changes nothing.",
    args: {
      id: t.arg.int({ required: true }),
      cancelled: t.arg({ type: 'JSON', required: true, description: "'Y' cancels; anything else is a no-op" }),
      cancellationReason: t.arg.string({ description: 'Required to cancel a posted entry' }),
    },
    resolve: (query, _root, args, ctx) => cancelJournalEntry(ctx, args, query),
  }),
  deleteJournalEntry: t.boolean({
    description: 'Deletes a draft (a posted entry is cancelled instead).',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => deleteJournalEntry(ctx, args),
  }),
}));
