import { builder, tenantScoped } from '../../builder.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { pageCost } from '../../shared/query-limits.ts';
import { TaxCode } from '../tax-codes/tax-codes.types.ts';
import { compareTaxCodes } from '../tax-codes/tax-codes.rules.ts';
import { accountRules as rules, sortDimensions } from './ledger-accounts.rules.ts';
import { ACCOUNT_PAGE_LIMITS, createAccount, getAccount, getAccountByCode, listAccounts, updateAccount } from './ledger-accounts.service.ts';

export const AccountType = builder.enumType('AccountType', {
  description: 'Where an account belongs: balance sheet (ASSET, LIABILITY, EQUITY) or profit and loss (INCOME, EXPENSE).',
  values: {
    ASSET: { description: 'Class 1' },
    LIABILITY: { description: 'Class 2' },
    EQUITY: { description: 'Class 2; also the result and its appropriations in 88xx-89xx' },
    INCOME: { description: 'Class 3 and financial income in class 8' },
    EXPENSE: { description: 'Classes 4-7 and financial expenses and tax in class 8' },
  } as const,
});

/**
 * The one enum of dimension types: a journal line's dimensions, the report parameters and rows, and
 * an account's mandatory dimensions. Values are UPPER_CASE like every other enum of the schema (and
 * the database's); `extensions.wire` is the spec's spelling of the line dimension type (spec 001:
 * businesspartner, bankacc, project, department, asset, tag, item), which the REST adapter reads and
 * writes on fields marked `wireSpelled` (src/builder.ts). EMPLOYEE is a mandatory dimension only: a
 * business partner who is an employee satisfies it; no line carries it.
 */
export const DimensionType = builder.enumType('DimensionType', {
  description:
    'The type of a dimension: of a journal line, of a report filter or grouping, or one an account makes mandatory (EMPLOYEE: mandatory only, satisfied by a BUSINESS_PARTNER who is an employee). REST spells the line types as spec 001 does: businesspartner, bankacc, project, department, asset, tag, item.',
  values: {
    PROJECT: { description: 'A project (REST `project`)', extensions: { wire: 'project' } },
    DEPARTMENT: { description: 'A department (REST `department`)', extensions: { wire: 'department' } },
    BUSINESS_PARTNER: { description: 'A customer, supplier or other business partner (REST `businesspartner`)', extensions: { wire: 'businesspartner' } },
    EMPLOYEE: { description: 'A business partner who is an employee: a mandatory dimension only, satisfied by a BUSINESS_PARTNER line dimension naming an employee' },
    BANK_ACCOUNT: { description: 'A bank account (REST `bankacc`)', extensions: { wire: 'bankacc' } },
    ASSET: { description: 'A fixed asset (REST `asset`)', extensions: { wire: 'asset' } },
    TAG: { description: 'A tag (REST `tag`)', extensions: { wire: 'tag' } },
    ITEM: { description: 'An item (REST `item`)', extensions: { wire: 'item' } },
  } as const,
});

export const Account = builder.prismaObject('Account', {
  ...tenantScoped,
  description: 'A ledger account in the chart of accounts of a client account.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId', { description: 'Immutable after creation' }),
    code: t.exposeString('code', { description: '4 to 8 digits; the first digit is the account class 1-8. Immutable' }),
    name: t.exposeString('name'),
    accountType: t.expose('accountType', { type: AccountType }),
    saftGroupingCategory: t.exposeString('saftGroupingCategory', { nullable: true, description: 'SAF-T 1.30 GroupingCategory, e.g. balanseverdiForOmloepsmiddel' }),
    saftGroupingCode: t.exposeString('saftGroupingCode', { nullable: true, description: 'SAF-T 1.30 GroupingCode, e.g. 1500' }),
    defaultTaxCodeId: t.exposeInt('defaultTaxCodeId', { nullable: true }),
    defaultTaxCode: t.relation('defaultTaxCode', { nullable: true, description: 'The tax code a posting to the account usually gets' }),
    isActive: t.exposeBoolean('isActive'),
    mandatoryDimensions: t.field({
      type: [DimensionType],
      description: 'Dimensions every posting line on the account must carry',
      select: { mandatoryDimensions: { select: { dimensionType: true } } },
      resolve: (a) => sortDimensions(a.mandatoryDimensions.map((d) => d.dimensionType)),
    }),
    allowedTaxCodes: t.field({
      type: [TaxCode],
      description: 'Tax-code whitelist: postings to the account may use only these codes; empty allows any code',
      select: (_args, _ctx, nestedSelection) => ({ allowedTaxCodes: { select: { taxCode: nestedSelection(true) } } }),
      resolve: (a) => a.allowedTaxCodes.map((x) => x.taxCode).sort(compareTaxCodes),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const AccountPage = pageType('AccountPage', Account);

// Field rules (code format and class, SAF-T grouping, the whitelist) are the arguments' schemas in ledger-accounts.rules.ts.

const accountFields = (t: Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0]) => ({
  saftGroupingCategory: t.string({ description: 'Together with saftGroupingCode, or neither' }),
  saftGroupingCode: t.string({ description: 'Together with saftGroupingCategory, or neither' }),
  defaultTaxCodeId: t.int({ description: 'A tax code of the same client account; must be in allowedTaxCodeIds when that is not empty' }),
  isActive: t.boolean(),
  mandatoryDimensions: t.field({ type: [DimensionType], description: 'Replaces the set' }),
  allowedTaxCodeIds: t.intList({ description: 'Replaces the whitelist; empty allows any tax code' }),
});

const CreateAccountInput = builder.inputType('CreateAccountInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    code: t.string({ required: true, description: '4 to 8 digits, first digit 1-8 consistent with accountType' }),
    name: t.string({ required: true }),
    accountType: t.field({
      type: AccountType,
      required: true,
      description: 'Class 1 ASSET; 2 LIABILITY or EQUITY; 3 INCOME; 4-7 EXPENSE; 8 INCOME or EXPENSE (88xx-89xx also EQUITY)',
    }),
    ...accountFields(t),
  }),
});

const UpdateAccountInput = builder.inputType('UpdateAccountInput', {
  description: 'Fields to change; omitted fields keep their value. code and clientAccountId may be sent but not changed.',
  fields: (t) => ({
    clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }),
    code: t.string({ description: 'Immutable: a different value is rejected' }),
    name: t.string(),
    accountType: t.field({ type: AccountType, description: 'Must stay consistent with the code class' }),
    ...accountFields(t),
  }),
});

builder.queryFields((t) => ({

  accounts: t.field({
    type: AccountPage,
    extensions: pageCost(ACCOUNT_PAGE_LIMITS),
    description: 'The chart of accounts of a client account, by code (page-based; 100 per page by default, at most 500).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      accountType: t.arg({ type: AccountType }),
      isActive: t.arg.boolean({ defaultValue: true, description: 'true by default; null lists all accounts' }),
      codeFrom: t.arg.string({ description: 'Lowest code, inclusive' }),
      codeTo: t.arg.string({ description: 'Highest code, inclusive, with its sub-accounts' }),
      freeText: t.arg.string({ description: 'Matches code and name, case-insensitive' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listAccounts(ctx, args, nodesQuery(ctx, info)),
  }),
  account: t.prismaField({
    nullable: true,
    type: 'Account',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getAccount(ctx, args, query),
  }),
  accountByCode: t.prismaField({
    nullable: true,
    type: 'Account',
    args: { clientAccountId: t.arg.int({ required: true }), code: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) => getAccountByCode(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  createAccount: t.prismaField({
    type: 'Account',
    args: { input: t.arg({ type: CreateAccountInput, required: true }) },
    resolve: (query, _root, args, ctx) => createAccount(ctx, args, query),
  }),
  updateAccount: t.prismaField({
    type: 'Account',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateAccountInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateAccount(ctx, args, query),
  }),
}));
