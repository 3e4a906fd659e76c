import { recordById } from '../../shared/record-by-id.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { described } from '../../shared/enum-values.ts';
import { cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { arrayPage, wholeList, type Page } from '../../shared/pagination.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import { fixed, fixedOrNull } from '../../shared/scalars.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import type { CapTable, CapTableRow, Position } from './equity.rules.ts';
import {
  EQUITY_TRANSACTION_TYPE_DESCRIPTIONS,
  EQUITY_TRANSACTION_TYPES,
  equityRules as rules,
  SHARE_CLASS_LABELS,
  SHARE_CLASSES,
} from './equity.rules.ts';
import {
  buybackShares,
  EQUITY_PAGE_LIMITS,
  equityCapTable,
  equityPositions,
  getEquityTransaction,
  issueShares,
  listEquityTransactions,
  retireShares,
  shareClassList,
  splitShares,
  transactionTypeList,
  transferShares,
} from './equity.service.ts';

// spec 002 "Equity transaction", "Equity"

export const ShareClassEnum = builder.enumType('ShareClass', {
  description: 'A class of shares (spec 002 "Equity transaction")',
  values: described(SHARE_CLASSES, SHARE_CLASS_LABELS),
});

export const EquityTransactionTypeEnum = builder.enumType('EquityTransactionType', {
  description: 'What an equity transaction did; its entries share a transaction_group_id',
  values: described(EQUITY_TRANSACTION_TYPES, EQUITY_TRANSACTION_TYPE_DESCRIPTIONS),
});

export const EquityTransaction = builder.prismaObject('EquityTransaction', {
  ...tenantScoped,
  description:
    "One entry of a share transaction: the signed change of one business partner's holding of one class (a transfer writes −q for the sender and +q for the recipient). " +
    'Entries are never changed; a position is the sum of its entries.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    transactionDate: t.expose('transactionDate', { type: 'Date' }),
    transactionType: t.expose('transactionType', { type: EquityTransactionTypeEnum }),
    transactionGroupId: t.exposeString('transactionGroupId', { description: "UUID tying the entries of one operation; a group's quantities sum to 0 for a transfer or buyback" }),
    businessPartnerId: t.exposeInt('businessPartnerId', { description: 'The holder whose position the entry changes' }),
    shareClass: t.expose('shareClass', { type: ShareClassEnum }),
    quantity: t.exposeInt('quantity', { description: 'Signed whole shares: positive acquired, negative disposed' }),
    pricePerShare: t.field({ type: 'Decimal', nullable: true, description: 'NOK per share (6 decimals); null when none was given', resolve: fixedOrNull('pricePerShare', 6) }),
    notes: t.exposeString('notes', { nullable: true }),
    splitRatioNumerator: t.exposeInt('splitRatioNumerator', { nullable: true, description: 'SPLIT: new_quantity / gcd' }),
    splitRatioDenominator: t.exposeInt('splitRatioDenominator', { nullable: true, description: 'SPLIT: old_quantity / gcd' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
    businessPartner: t.relation('businessPartner'),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (e, _a, ctx) => loadUser(ctx, e.createdById) }),
    updatedBy: t.field({ type: UserRef, nullable: true, resolve: (e, _a, ctx) => loadUser(ctx, e.updatedById) }),
  }),
});

const EquityTransactionPage = pageType('EquityTransactionPage', EquityTransaction);

const ValueLabel = builder.objectRef<{ value: string; label: string }>('EquityValueLabel').implement({
  description: 'An allowed value and its English label',
  fields: (t) => ({ value: t.exposeString('value'), label: t.exposeString('label') }),
});

const EquityPosition = builder.objectRef<Position>('EquityPosition').implement({
  description: "A holder's shares of one class, summed from the entries, with its cost basis",
  fields: (t) => ({
    businessPartner: t.prismaField({ type: 'BusinessPartner', resolve: (query, p, _a, ctx) => recordById(ctx, 'businessPartner', p.businessPartnerId, query) as never }),
    businessPartnerId: t.exposeInt('businessPartnerId'),
    shareClass: t.field({ type: ShareClassEnum, resolve: (p) => p.shareClass }),
    quantity: t.exposeInt('quantity'),
    costBasis: t.field({
      type: 'Decimal',
      description:
        'NOK to the øre, by weighted average: an acquisition adds quantity × price (without a price: what the same operation took from the sender, or 0 for an issue); ' +
        'a disposal removes its share of the cost (cost × disposed / held, rounded half up); a split keeps the cost',
      resolve: fixed('costBasis', 2),
    }),
  }),
});

// The three computed lists are connections as every list, with the REST envelope's own field beside
// (spec 002: {positions}, {share_classes}, {transaction_types}).
const EquityPositionList = pageType('EquityPositionPage', EquityPosition);
builder.objectFields(EquityPositionList, (t) => ({
  positions: t.field({ type: [EquityPosition], description: 'The same rows as nodes', resolve: (c) => (c as unknown as Page<Position>).nodes }),
}));
/** A position's stable key: its holder and share class. */
const positionKey = (p: Position) => `${p.businessPartnerId}_${p.shareClass}`;

const CapTableShareholder = builder.objectRef<CapTableRow>('CapTableShareholder').implement({
  description: 'A holder of outstanding shares',
  fields: (t) => ({
    businessPartner: t.prismaField({ type: 'BusinessPartner', resolve: (query, p, _a, ctx) => recordById(ctx, 'businessPartner', p.businessPartnerId, query) as never }),
    businessPartnerId: t.exposeInt('businessPartnerId'),
    name: t.exposeString('name'),
    positions: t.field({
      type: 'JSON',
      description: '{<share class>: {shares, percentage}} for each class the holder has shares of; percentage of that class’s outstanding shares, 2 decimals, a string',
      resolve: (r) => r.positions,
    }),
    totalShares: t.exposeInt('totalShares'),
    totalPercentage: t.field({ type: 'Decimal', description: 'Of all outstanding shares, 2 decimals; the shareholders’ percentages sum to exactly 100.00 (largest remainder)', resolve: (r) => r.totalPercentage }),
  }),
});

const EquityCapTable = builder.objectRef<CapTable>('EquityCapTable').implement({
  description: "The company's shareholders and their outstanding shares; treasury shares (the company's own holding) are shown apart and counted in no total",
  fields: (t) => ({
    shareholders: t.field({ type: [CapTableShareholder], description: 'By total shares (most first), then name', resolve: (c) => c.shareholders }),
    shareClasses: t.field({ type: [ShareClassEnum], description: 'The classes with outstanding shares', resolve: (c) => c.shareClasses }),
    totalShares: t.exposeInt('totalShares', { description: 'Outstanding shares of every class' }),
    treasuryShares: t.field({ type: 'JSON', description: "{<share class>: shares} the company holds itself (bought back, not retired)", resolve: (c) => c.treasuryShares }),
  }),
});

type ValueLabelRow = { value: string; label: string };
const ShareClassList = pageType('EquityShareClassPage', ValueLabel);
builder.objectFields(ShareClassList, (t) => ({
  shareClasses: t.field({ type: [ValueLabel], description: 'The same rows as nodes', extensions: listCost(SHARE_CLASSES.length), resolve: (c) => (c as unknown as Page<ValueLabelRow>).nodes }),
}));
const TransactionTypeList = pageType('EquityTransactionTypePage', ValueLabel);
builder.objectFields(TransactionTypeList, (t) => ({
  transactionTypes: t.field({ type: [ValueLabel], description: 'The same rows as nodes', extensions: listCost(EQUITY_TRANSACTION_TYPES.length), resolve: (c) => (c as unknown as Page<ValueLabelRow>).nodes }),
}));
const byValue = (row: ValueLabelRow) => row.value;

// ── Inputs ────────────────────────────────────────────────────────────────────────────────────────

const DATE = 'Default today (Europe/Oslo)';
const NOTES = 'At most 1000 characters';
const PRICE = 'NOK per share, not negative, at most 6 decimals';
const COMPANY =
  "The company itself: the client account's own business partner (isSelf) or one with the account's organisation number; on an account with no own partner yet, the partner named becomes it (isSelf). Another partner is refused, naming the own one";
const QUANTITY = 'Whole shares, at least 1';

const IssueSharesInput = builder.inputType('IssueSharesInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    businessPartnerId: t.int({ required: true, description: 'The shareholder (not the company itself)' }),
    shareClass: t.field({ type: ShareClassEnum, required: true }),
    quantity: t.int({ required: true, description: QUANTITY }),
    pricePerShare: t.field({ type: 'Decimal', description: PRICE }),
    transactionDate: t.field({ type: 'Date', description: DATE }),
    notes: t.string({ description: NOTES }),
  }),
});

const TransferSharesInput = builder.inputType('TransferSharesInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    fromBusinessPartnerId: t.int({ required: true }),
    toBusinessPartnerId: t.int({ required: true, description: 'Not the sender' }),
    shareClass: t.field({ type: ShareClassEnum, required: true }),
    quantity: t.int({ required: true, description: QUANTITY }),
    pricePerShare: t.field({ type: 'Decimal', description: `${PRICE}; without one the recipient takes the sender's average cost` }),
    transactionDate: t.field({ type: 'Date', description: DATE }),
    notes: t.string({ description: NOTES }),
  }),
});

const BuybackSharesInput = builder.inputType('BuybackSharesInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    fromBusinessPartnerId: t.int({ required: true, description: 'The seller' }),
    companyBusinessPartnerId: t.int({ required: true, description: COMPANY }),
    shareClass: t.field({ type: ShareClassEnum, required: true }),
    quantity: t.int({ required: true, description: QUANTITY }),
    pricePerShare: t.field({ type: 'Decimal', description: `${PRICE}; without one the company takes the seller's average cost` }),
    transactionDate: t.field({ type: 'Date', description: DATE }),
    notes: t.string({ description: NOTES }),
  }),
});

const RetireSharesInput = builder.inputType('RetireSharesInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    companyBusinessPartnerId: t.int({ required: true, description: `${COMPANY}. Only its treasury shares are retired` }),
    shareClass: t.field({ type: ShareClassEnum, required: true }),
    quantity: t.int({ required: true, description: QUANTITY }),
    transactionDate: t.field({ type: 'Date', description: DATE }),
    notes: t.string({ description: NOTES }),
  }),
});

const SplitSharesInput = builder.inputType('SplitSharesInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    businessPartnerId: t.int({ required: true }),
    shareClass: t.field({ type: ShareClassEnum, required: true }),
    oldQuantity: t.int({ required: true, description: 'Must equal the current position' }),
    newQuantity: t.int({ required: true, description: `${QUANTITY}; not old_quantity` }),
    transactionDate: t.field({ type: 'Date', description: `${DATE}; not before the holder's latest transaction of the class` }),
    notes: t.string({ description: NOTES }),
  }),
});

// ── Fields ────────────────────────────────────────────────────────────────────────────────────────

builder.queryFields((t) => ({

  equityTransactions: t.field({
    type: EquityTransactionPage,
    extensions: pageCost(EQUITY_PAGE_LIMITS),
    description: 'Equity transaction entries of a client account by transaction date, then id (page-based; per_page 100 by default, at most 100).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      businessPartnerId: t.arg.int(),
      shareClass: t.arg({ type: ShareClassEnum }),
      transactionType: t.arg({ type: EquityTransactionTypeEnum }),
      dateFrom: t.arg({ type: 'Date', description: 'Entries on or after this date' }),
      dateTo: t.arg({ type: 'Date', description: 'Entries on or before this date' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int({ description: '100 by default, at most 100' }),
    },
    resolve: (_root, args, ctx, info) => listEquityTransactions(ctx, args, nodesQuery(ctx, info)),
  }),
  equityTransaction: t.prismaField({
    nullable: true,
    type: 'EquityTransaction',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getEquityTransaction(ctx, args, query),
  }),

  equityPositions: t.field({
    type: EquityPositionList,
    description: "Each holder's shares per class, summed from the entries, with the cost basis; emptied positions (0 shares) only with includeVoid. By business partner id, then class.",
    args: {
      clientAccountId: t.arg.int({ required: true }),
      businessPartnerId: t.arg.int(),
      shareClass: t.arg({ type: ShareClassEnum }),
      includeVoid: t.arg.boolean({ defaultValue: false, description: 'Also positions that are back to 0 shares' }),
      ...cursorArgs(t),
    },
    resolve: (_root, args, ctx) => wholeList(args, (filters) => equityPositions(ctx, filters), positionKey),
  }),

  equityCapTable: t.field({
    type: EquityCapTable,
    description:
      "The cap table of the client account's company. companyBusinessPartnerId is the company itself (the account's own business partner, isSelf, or one with its organisation number), or any partner of an account with no own partner yet (read as the company; nothing is recorded); another partner is refused, naming the own one.",
    args: { clientAccountId: t.arg.int({ required: true }), companyBusinessPartnerId: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => equityCapTable(ctx, args),
  }),

  equityShareClasses: t.field({
    type: ShareClassList,
    description: 'The share classes with English labels.',
    args: cursorArgs(t),
    resolve: (_root, args) => arrayPage(shareClassList(), byValue, args),
  }),

  equityTransactionTypes: t.field({
    type: TransactionTypeList,
    description: 'The equity transaction types with English labels (CONVERSION has no operation).',
    args: cursorArgs(t),
    resolve: (_root, args) => arrayPage(transactionTypeList(), byValue, args),
  }),
}));

const RULES = 'Serialised per client account; 400 "Insufficient shares: …" when the holder has too few shares on the date (or any later date).';

builder.mutationFields((t) => ({
  issueShares: t.prismaField({
    type: 'EquityTransaction',
    description: 'ISSUANCE: new shares to a shareholder (one entry +quantity); answers that entry.',
    args: { input: t.arg({ type: IssueSharesInput, required: true }) },
    resolve: (query, _root, args, ctx) => issueShares(ctx, args, query),
  }),
  transferShares: t.prismaField({
    type: 'EquityTransaction',
    description: `TRANSFER between two different holders: −quantity for the sender, +quantity for the recipient; answers the recipient's entry. ${RULES}`,
    args: { input: t.arg({ type: TransferSharesInput, required: true }) },
    resolve: (query, _root, args, ctx) => transferShares(ctx, args, query),
  }),
  buybackShares: t.prismaField({
    type: 'EquityTransaction',
    description: `BUYBACK: −quantity for the seller, +quantity for the company's own business partner (treasury shares); answers the company's entry. ${RULES}`,
    args: { input: t.arg({ type: BuybackSharesInput, required: true }) },
    resolve: (query, _root, args, ctx) => buybackShares(ctx, args, query),
  }),
  retireShares: t.prismaField({
    type: 'EquityTransaction',
    description: `RETIREMENT of treasury shares: −quantity from the company's own holding; answers the entry. ${RULES}`,
    args: { input: t.arg({ type: RetireSharesInput, required: true }) },
    resolve: (query, _root, args, ctx) => retireShares(ctx, args, query),
  }),
  splitShares: t.prismaField({
    type: 'EquityTransaction',
    description: `SPLIT: the holder's position goes from oldQuantity (the current position) to newQuantity: −old and +new with the reduced ratio; answers the +new entry. ${RULES}`,
    args: { input: t.arg({ type: SplitSharesInput, required: true }) },
    resolve: (query, _root, args, ctx) => splitShares(ctx, args, query),
  }),
}));
