import { nodesQuery, pageType, windowArgs } from '../../shared/page-type.ts';
import { wholeList } from '../../shared/pagination.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { formatBankAccountNumber } from './bank-accounts.rules.ts';
import {
  createBankAccount,
  deactivateBankAccount,
  getBankAccount,
  listBankAccounts,
  updateBankAccount,
} from './bank-accounts.service.ts';

export const BankAccount = builder.prismaObject('BankAccount', {
  ...tenantScoped,
  description: "A bank account: one of the company's own (no business partner; posts to a ledger account) or a partner's.",
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId', { description: 'Immutable after creation' }),
    businessPartnerId: t.exposeInt('businessPartnerId', { nullable: true, description: "null for the company's own accounts" }),
    own: t.boolean({ description: "One of the company's own accounts (no business partner)", resolve: (b) => b.businessPartnerId == null }),
    name: t.exposeString('name', { nullable: true }),
    accountNumber: t.exposeString('accountNumber', { description: '11 digits' }),
    formattedAccountNumber: t.string({ description: 'The account number as usually written: 1503.20.12342', resolve: (b) => formatBankAccountNumber(b.accountNumber) }),
    bic: t.exposeString('bic', { nullable: true, description: 'ISO 9362' }),
    currencyCode: t.exposeString('currencyCode', { description: 'ISO 4217' }),
    ledgerAccountId: t.exposeInt('ledgerAccountId', { nullable: true, description: 'The ledger account an own account posts to (e.g. 1920); null for partners' }),
    isActive: t.exposeBoolean('isActive'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (b, _a, ctx) => loadUser(ctx, b.createdById) }),
    updatedBy: t.field({ type: UserRef, nullable: true, resolve: (b, _a, ctx) => loadUser(ctx, b.updatedById) }),
    businessPartner: t.relation('businessPartner', { nullable: true }),
    ledgerAccount: t.relation('ledgerAccount', { nullable: true }),
  }),
});

const bankAccountFields = (t: Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0]) => ({
  businessPartnerId: t.int({ description: "A partner of the same client account; omit (null) for the company's own accounts" }),
  name: t.string({ description: 'At most 150 characters' }),
  bic: t.string({ description: 'ISO 9362: 8 or 11 upper-case letters and digits' }),
  currencyCode: t.string({ description: 'ISO 4217; NOK when omitted on create' }),
  ledgerAccountId: t.int({
    description: "Own accounts: an active asset account of the client account (default on create: 1920). Partners' accounts: omit.",
  }),
});

const CreateBankAccountInput = builder.inputType('CreateBankAccountInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    accountNumber: t.string({
      required: true,
      description: '11 digits with a mod-11 check digit; "1503.20.12342" and spaces are accepted. Unique within the client account.',
    }),
    ...bankAccountFields(t),
  }),
});

const UpdateBankAccountInput = builder.inputType('UpdateBankAccountInput', {
  description: 'Fields to change; omitted fields keep their value. clientAccountId may be sent but not changed.',
  fields: (t) => ({
    clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }),
    accountNumber: t.string(),
    isActive: t.boolean({ description: 'true reactivates a deactivated account' }),
    ...bankAccountFields(t),
  }),
});

/** bankAccounts: a bounded list read whole, answered as a connection as every list. */
const BankAccountList = pageType('BankAccountPage', BankAccount);

builder.queryFields((t) => ({

  bankAccounts: t.field({
    type: BankAccountList,
    description: 'Bank accounts of a client account, by id.',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      businessPartnerId: t.arg.int({ description: "Only this partner's accounts" }),
      own: t.arg.boolean({ description: "true: the company's own accounts; false: partners' accounts; omitted: both" }),
      isActive: t.arg.boolean({ defaultValue: true, description: 'true by default; null lists all accounts' }),
      ...windowArgs(t),
    },
    resolve: (_root, args, ctx, info) => wholeList(args, (filters) => listBankAccounts(ctx, filters, nodesQuery(ctx, info))),
  }),
  bankAccount: t.prismaField({
    nullable: true,
    type: 'BankAccount',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getBankAccount(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  createBankAccount: t.prismaField({
    type: 'BankAccount',
    args: { input: t.arg({ type: CreateBankAccountInput, required: true }) },
    resolve: (query, _root, args, ctx) => createBankAccount(ctx, args, query),
  }),
  updateBankAccount: t.prismaField({
    type: 'BankAccount',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateBankAccountInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateBankAccount(ctx, args, query),
  }),
  deactivateBankAccount: t.prismaField({
    type: 'BankAccount',
    description: 'Deactivates the bank account; the record is kept and its number stays taken.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => deactivateBankAccount(ctx, args, query),
  }),
}));
