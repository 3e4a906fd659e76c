import { recordById } from '../../shared/record-by-id.ts';
import { builder, tenantScoped } from '../../builder.ts';
import { listCost } from '../../shared/query-limits.ts';
import { BANKS, type Bank } from './banks.ts';
import {
  bankIntegrationStatus,
  bankPdfForm,
  einvoiceStatus,
  listBanks,
  providerbStatus,
  updateBankIntegrationStatus,
  updateEinvoiceStatus,
  type BankIntegrationView,
  type BankView,
  type EinvoiceStatus,
  type EinvoiceStatusAnswer,
  type PdfFile,
  type ProviderbStatus,
} from './bank-integrations.service.ts';

// spec 002 "Integration records" (Bank) and the banks, einvoice and providerb rows of "Integrations"

const BankOrganization = builder.objectRef<Bank['organization']>('BankOrganization').implement({
  description: 'The bank as an organisation',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Our stable identifier of the bank (a slug, e.g. dnb)' }),
    name: t.exposeString('name'),
    logo: t.exposeString('logo', { description: 'URL of the bank’s logo' }),
    website: t.exposeString('website'),
    country: t.exposeString('country', { description: 'ISO 3166-1 alpha-2' }),
  }),
});

const BankIntegrationFlags = builder.objectRef<BankIntegrationView>('BankIntegrationFlags').implement({
  fields: (t) => ({
    isActive: t.exposeBoolean('isActive', { description: 'Enabled for the client account' }),
    isConnected: t.exposeBoolean('isConnected', { description: 'Active, and the bank has confirmed the signed integration agreement' }),
  }),
});

const BankRef = builder.objectRef<BankView>('Bank').implement({
  description: 'A bank the integration supports. status, integrationConfig and onboardingInformation only when a client account is given (REST leaves them out otherwise).',
  fields: (t) => ({
    bic: t.exposeString('bic', { description: 'ISO 9362, 11 characters' }),
    organization: t.field({ type: BankOrganization, resolve: (b) => b.organization }),
    status: t.field({ type: BankIntegrationFlags, nullable: true, resolve: (b) => b.integration }),
    integrationConfig: t.field({ type: 'JSON', nullable: true, description: 'What the client account configured (division_number and division_name for the bank that requires them)', resolve: (b) => b.integration?.integrationConfig ?? null }),
    onboardingInformation: t.field({ type: 'JSON', nullable: true, description: 'What is left to connect the integration; null (left out) when empty', resolve: (b) => b.integration?.onboardingInformation ?? null }),
  }),
});

const BankIntegrationStatus = builder.objectRef<BankIntegrationView>('BankIntegrationStatus').implement({
  description: "A bank integration's state at one client account",
  fields: (t) => ({
    isActive: t.exposeBoolean('isActive'),
    isConnected: t.exposeBoolean('isConnected', { description: 'Active, and the bank has confirmed the signed integration agreement' }),
    integrationConfig: t.field({ type: 'JSON', resolve: (s) => s.integrationConfig }),
    onboardingInformation: t.field({ type: 'JSON', nullable: true, description: 'null (left out) when empty', resolve: (s) => s.onboardingInformation }),
  }),
});

const PdfFormFile = builder.objectRef<PdfFile>('BankPdfForm').implement({
  description: 'A PDF form (REST answers the PDF itself)',
  fields: (t) => ({
    fileName: t.exposeString('fileName'),
    contentType: t.exposeString('contentType'),
    contentBase64: t.exposeString('contentBase64'),
  }),
});

const EinvoiceAccountStatus = builder.objectRef<EinvoiceStatus>('EinvoiceAccountStatus').implement({
  fields: (t) => ({
    clientAccount: t.prismaField({ type: 'ClientAccount', resolve: (query, p, _a, ctx) => recordById(ctx, 'clientAccount', p.clientAccountId, query) as never }),
    clientAccountId: t.exposeInt('clientAccountId'),
    isActive: t.exposeBoolean('isActive'),
    connected: t.exposeBoolean('connected', { description: 'Registered as a receiver in the e-invoicing network (as the registry answered the last change)' }),
  }),
});

const EinvoiceStatusRef = builder.objectRef<EinvoiceStatusAnswer>('EinvoiceStatus').implement({
  description: 'One client account’s e-invoicing state (isActive, connected), or every eligible account’s (statuses) when none is given',
  fields: (t) => ({
    isActive: t.boolean({ nullable: true, resolve: (a) => a.one?.isActive ?? null }),
    connected: t.boolean({ nullable: true, resolve: (a) => a.one?.connected ?? null }),
    statuses: t.field({ type: [EinvoiceAccountStatus], nullable: true, resolve: (a) => a.statuses }),
  }),
});

const ProviderbStatusRef = builder.objectRef<ProviderbStatus>('ProviderbStatus').implement({
  fields: (t) => ({
    isActive: t.exposeBoolean('isActive', { description: 'Our setting: on once the onboarding was created at providerb' }),
    isConnected: t.exposeBoolean('isConnected', { description: "Providerb's answer: consent given and the account (or any account) connected" }),
    onboardingInformation: t.field({ type: 'JSON', description: "Providerb's onboarding: status, consent_url, missing_steps, accounts", resolve: (s) => s.onboardingInformation }),
  }),
});

export const BillingAddOn = builder.prismaObject('BillingAddOn', {
  ...tenantScoped,
  description: 'A billable add-on of a client account (BANK_INTEGRATION while a bank integration is active); one row per period it was on',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    code: t.exposeString('code'),
    addedAt: t.expose('addedAt', { type: 'DateTime' }),
    removedAt: t.expose('removedAt', { type: 'DateTime', nullable: true }),
    isActive: t.boolean({ resolve: (a) => a.removedAt === null }),
  }),
});

builder.prismaObjectField('ClientAccount', 'billingAddOns', (t) =>
  t.relation('billingAddOns', {
    description: 'Billable add-ons, newest first; active: only those on now',
    args: { active: t.arg.boolean() },
    query: (args) => ({ where: args.active ? { removedAt: null } : {}, orderBy: [{ addedAt: 'desc' }, { id: 'desc' }] }),
  }),
);

const UpdateBankIntegrationStatusInput = builder.inputType('UpdateBankIntegrationStatusInput', {
  fields: (t) => ({
    isActive: t.boolean({ required: true }),
    integrationConfig: t.field({
      type: 'JSON',
      description: 'An object; replaces the stored one when given. Handelsbanken (HANDNOKKXXX) needs division_number and division_name (strings) when enabling.',
    }),
  }),
});

const UpdateEinvoiceStatusInput = builder.inputType('UpdateEinvoiceStatusInput', {
  fields: (t) => ({ isActive: t.boolean({ required: true }) }),
});

builder.queryFields((t) => ({

  banks: t.field({
    type: [BankRef],
    extensions: listCost(BANKS.length),
    description: 'The supported banks; with clientAccountId, each with its integration there (status, integrationConfig, onboardingInformation)',
    args: { clientAccountId: t.arg.int() },
    resolve: (_root, args, ctx) => listBanks(ctx, args),
  }),

  bankIntegrationStatus: t.field({
    type: BankIntegrationStatus,
    description: "A bank integration's state at a client account. 400 invalid BIC; 403; 404 unsupported bank",
    args: { bic: t.arg.string({ required: true }), clientAccountId: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => bankIntegrationStatus(ctx, args),
  }),

  bankPdfForm: t.field({
    type: PdfFormFile,
    description: "A bank's PDF form filled with the company's data (formType integration-agreement); REST answers the PDF",
    args: { bic: t.arg.string({ required: true }), formType: t.arg.string({ required: true }), clientAccountId: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => bankPdfForm(ctx, args),
  }),

  einvoiceStatus: t.field({
    type: EinvoiceStatusRef,
    description: 'E-invoicing at one client account (isActive, connected), or at every eligible account (statuses)',
    args: { clientAccountId: t.arg.int() },
    resolve: (_root, args, ctx) => einvoiceStatus(ctx, args),
  }),

  providerbStatus: t.field({
    type: ProviderbStatusRef,
    description: 'Providerb at a client account or for a bank account (at least one); creates the onboarding on first use',
    args: { clientAccountId: t.arg.int(), bankAccountId: t.arg.int() },
    resolve: (_root, args, ctx) => providerbStatus(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  updateBankIntegrationStatus: t.field({
    type: BankIntegrationStatus,
    description:
      'Enables or disables a bank integration for a client account. Enabling needs an active bank account at that bank and adds the BANK_INTEGRATION add-on; disabling removes it when no other bank is active.',
    args: { bic: t.arg.string({ required: true }), clientAccountId: t.arg.int({ required: true }), input: t.arg({ type: UpdateBankIntegrationStatusInput, required: true }) },
    resolve: (_root, args, ctx) => updateBankIntegrationStatus(ctx, args),
  }),
  updateEinvoiceStatus: t.field({
    type: EinvoiceAccountStatus,
    description: 'Activates (registers the organisation as a receiver in the e-invoicing network) or deactivates e-invoicing for a client account',
    args: { clientAccountId: t.arg.int({ required: true }), input: t.arg({ type: UpdateEinvoiceStatusInput, required: true }) },
    resolve: (_root, args, ctx) => updateEinvoiceStatus(ctx, args),
  }),
}));
