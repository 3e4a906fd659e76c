import { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { deregisterReceiver, registerReceiver, type Receiver } from '../../integrations/einvoice/registry.ts';
import { integrationsOf, upstream } from '../../integrations/integrations.ts';
import { ensureOnboarding } from '../../integrations/providerb/onboarding.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { NotFoundError, ValidationError } from '../../shared/errors.ts';
import { listedAccounts, lockClientAccount, requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { parse, type Args } from '../../shared/validation.ts';
import { osloDate } from '../notification-settings/summaries.rules.ts';
import { renderIntegrationAgreementPdf } from './agreement.pdf.ts';
import { BANK_INTEGRATION_ADD_ON, bankByBic, bankIntegrationKey, BANKS, bicPrefix, type Bank } from './banks.ts';
import { bankIntegrationRules as rules, divisionConfig, isPdfFormType } from './bank-integrations.rules.ts';
import { integrationSetting, integrationSettings, jsonObject, saveIntegrationSetting, type IntegrationSettingRow } from './integration-settings.ts';

// spec 002 "Integration records" (Bank) and the banks, einvoice and providerb rows of "Integrations"

/** A bank's integration at one client account: spec 002's status, integration_config and onboarding_information. */
export interface BankIntegrationView {
  isActive: boolean;
  isConnected: boolean;
  integrationConfig: Record<string, unknown>;
  /** null when empty: the wire leaves it out */
  onboardingInformation: Record<string, unknown> | null;
}

export interface BankView {
  bic: string;
  organization: Bank['organization'];
  /** only with a client account (spec 002: "appear only when client_account_id is given") */
  integration: BankIntegrationView | null;
}

const agreementPath = (bank: Bank, clientAccountId: number) =>
  `/api/v2/integrations/banks/${bank.bic}/pdf-forms/integration-agreement?client_account_id=${clientAccountId}`;

/**
 * is_connected: the integration is active and the bank has confirmed the signed integration agreement
 * (recorded with the admin command confirm-bank-agreement, connectedAt). onboarding_information says
 * what is left to do: nothing while the integration was never enabled (then it is omitted).
 */
function integrationView(bank: Bank, clientAccountId: number, setting: IntegrationSettingRow | null | undefined): BankIntegrationView {
  const isActive = setting?.isActive ?? false;
  const confirmedAt = setting?.connectedAt ?? null;
  let onboarding: Record<string, unknown> | null = null;
  if (confirmedAt) {
    onboarding = { agreement_status: 'CONFIRMED', agreement_confirmed_at: confirmedAt.toISOString() };
  } else if (isActive) {
    onboarding = {
      agreement_status: 'AWAITING_SIGNED_AGREEMENT',
      integration_agreement_url: agreementPath(bank, clientAccountId),
      next_step: `Download the integration agreement, have it signed by someone who may sign for the company, and send it to ${bank.organization.name}. The integration is connected once the bank has confirmed it.`,
    };
  }
  return { isActive, isConnected: isActive && !!confirmedAt, integrationConfig: jsonObject(setting?.config), onboardingInformation: onboarding };
}

/** A supported bank by a valid BIC, or 404. */
function supportedBank(bic: string): Bank {
  const bank = bankByBic(bic);
  if (!bank) throw new NotFoundError(`Supported bank with BIC ${bic} (supported: ${BANKS.map((b) => b.bic).join(', ')})`);
  return bank;
}

/** GET /integrations/banks: every supported bank; with client_account_id, its integration there too. */
export async function listBanks(ctx: RequestContext, args: Args<typeof rules.list>): Promise<BankView[]> {
  const { clientAccountId } = parse(rules.list, args);
  if (clientAccountId == null) return BANKS.map((b) => ({ bic: b.bic, organization: b.organization, integration: null }));
  await requireAccount(ctx, clientAccountId);
  const settings = new Map((await integrationSettings(ctx, { clientAccountIds: [clientAccountId], prefix: 'bank:' })).map((s) => [s.integration, s]));
  return BANKS.map((b) => ({ bic: b.bic, organization: b.organization, integration: integrationView(b, clientAccountId, settings.get(bankIntegrationKey(b))) }));
}

/** GET /integrations/banks/{bic}/status: 400 missing id or invalid BIC, 403, 404 unsupported bank. */
export async function bankIntegrationStatus(ctx: RequestContext, args: Args<typeof rules.status>): Promise<BankIntegrationView> {
  const { bic, clientAccountId } = parse(rules.status, args);
  await requireAccount(ctx, clientAccountId);
  const bank = supportedBank(bic);
  return integrationView(bank, clientAccountId, await integrationSetting(ctx, clientAccountId, bankIntegrationKey(bank)));
}


/**
 * PATCH /integrations/banks/{bic}/status. Enabling needs an active bank account of the company at
 * that bank (its BIC's first 8 characters match) and, for the bank that requires them, division
 * details; it adds the BANK_INTEGRATION add-on. Disabling removes the add-on when no other bank is
 * active. integration_config, when sent, replaces the stored one. One transaction.
 */
export async function updateBankIntegrationStatus(ctx: RequestContext, args: Args<typeof rules.update>): Promise<BankIntegrationView> {
  const { bic, clientAccountId, input } = parse(rules.update, args);
  await requireAccount(ctx, clientAccountId);
  const bank = supportedBank(bic);
  let config = input.integrationConfig;
  if (input.isActive && bank.requiresDivision) {
    const division = parse(divisionConfig, config ?? {}, ['integrationConfig']);
    config = { ...config, ...division };
  }
  const key = bankIntegrationKey(bank);
  return inTransaction(ctx, async (tx) => {
    await lockClientAccount(tx, clientAccountId);
    if (input.isActive) {
      const account = await tx.db.bankAccount.findFirst({
        where: { clientAccountId, businessPartnerId: null, isActive: true, bic: { startsWith: bicPrefix(bank.bic) } },
        select: { id: true },
      });
      if (!account) {
        throw ValidationError.field(
          'isActive',
          `enabling the ${bank.organization.name} integration needs an active bank account of the company with a BIC of that bank (${bicPrefix(bank.bic)}); add the BIC to the bank account or create one`,
        );
      }
    }
    const setting = await saveIntegrationSetting(tx, clientAccountId, key, {
      isActive: input.isActive,
      ...(config != null ? { config: config as PrismaNS.InputJsonValue } : {}),
    });
    const open = await tx.db.billingAddOn.findFirst({ where: { clientAccountId, code: BANK_INTEGRATION_ADD_ON, removedAt: null }, select: { id: true } });
    if (input.isActive && !open) {
      await tx.db.billingAddOn.create({ data: { clientAccountId, code: BANK_INTEGRATION_ADD_ON, addedById: auditUserId(tx) }, select: { id: true } });
    } else if (!input.isActive && open) {
      const others = await tx.db.integrationSetting.count({ where: { clientAccountId, isActive: true, integration: { startsWith: 'bank:', not: key } } });
      if (!others) await tx.db.billingAddOn.update({ where: { id: open.id }, data: { removedAt: new Date(), removedById: auditUserId(tx) }, select: { id: true } });
    }
    return integrationView(bank, clientAccountId, setting);
  });
}

/**
 * The bank has confirmed the signed integration agreement (admin command confirm-bank-agreement; the
 * operator records the bank's confirmation): the integration is connected from then on while active.
 */
export async function confirmBankAgreement(ctx: RequestContext, args: { clientAccountId: number; bic: string; confirmedAt?: Date }): Promise<BankIntegrationView> {
  const { bic, clientAccountId } = parse(rules.status, { bic: args.bic, clientAccountId: args.clientAccountId });
  await requireAccount(ctx, clientAccountId);
  const bank = supportedBank(bic);
  return inTransaction(ctx, async (tx) => {
    const stored = await integrationSetting(tx, clientAccountId, bankIntegrationKey(bank));
    if (!stored?.isActive) throw new ValidationError(`The ${bank.organization.name} integration is not enabled for client account ${clientAccountId}: enable it first`);
    const setting = await saveIntegrationSetting(tx, clientAccountId, bankIntegrationKey(bank), { connectedAt: args.confirmedAt ?? new Date() });
    return integrationView(bank, clientAccountId, setting);
  });
}

export interface PdfFile {
  fileName: string;
  contentType: string;
  contentBase64: string;
}

/**
 * GET /integrations/banks/{bic}/pdf-forms/{form_type}: the integration agreement filled with the
 * company's data. 400 missing id or invalid BIC, 403, 404 unsupported bank or form type.
 */
export async function bankPdfForm(ctx: RequestContext, args: Args<typeof rules.pdfForm>): Promise<PdfFile> {
  const { bic, clientAccountId, formType } = parse(rules.pdfForm, args);
  await requireAccount(ctx, clientAccountId);
  const bank = supportedBank(bic);
  if (!isPdfFormType(formType)) throw new NotFoundError(`Form type '${formType.slice(0, 60)}' (the only form is integration-agreement)`);
  const [account, bankAccounts, setting] = await Promise.all([
    ctx.db.clientAccount.findUniqueOrThrow({ where: { id: clientAccountId }, select: { id: true, displayName: true, organizationNumber: true } }),
    ctx.db.bankAccount.findMany({
      where: { clientAccountId, businessPartnerId: null, isActive: true, bic: { startsWith: bicPrefix(bank.bic) } },
      select: { accountNumber: true, name: true, currencyCode: true },
      orderBy: { accountNumber: 'asc' },
    }),
    integrationSetting(ctx, clientAccountId, bankIntegrationKey(bank)),
  ]);
  const config = jsonObject(setting?.config);
  const pdf = await renderIntegrationAgreementPdf({
    bank,
    company: { name: account.displayName, organizationNumber: account.organizationNumber },
    bankAccounts,
    division: bank.requiresDivision && typeof config.division_number === 'string' ? { number: config.division_number, name: String(config.division_name ?? '') } : null,
    date: osloDate(new Date()),
  });
  const who = account.organizationNumber ?? `konto-${account.id}`;
  return { fileName: `integrasjonsavtale-${bank.organization.id}-${who}.pdf`, contentType: 'application/pdf', contentBase64: pdf.toString('base64') };
}

// ---- einvoice ----

export interface EinvoiceStatus {
  clientAccountId: number;
  isActive: boolean;
  connected: boolean;
}

/** One account's, or every eligible account's (`statuses`) */
export interface EinvoiceStatusAnswer {
  one: EinvoiceStatus | null;
  statuses: EinvoiceStatus[] | null;
}

const einvoiceView = (clientAccountId: number, s: IntegrationSettingRow | null | undefined): EinvoiceStatus => ({
  clientAccountId,
  isActive: s?.isActive ?? false,
  connected: (s?.isActive ?? false) && !!s?.connectedAt,
});

/**
 * GET /integrations/einvoice/status. Answers from what is stored: `connected` is what the registry
 * said when the account was last activated or deactivated (only PATCH talks to the registry). The
 * registry changes only through our PATCH, so the stored answer is the registry's, and listing every
 * account needs no call per account (the spec documents no upstream failure for this GET).
 */
export async function einvoiceStatus(ctx: RequestContext, args: Args<typeof rules.einvoiceStatus>): Promise<EinvoiceStatusAnswer> {
  const { clientAccountId } = parse(rules.einvoiceStatus, args);
  if (clientAccountId != null) {
    await requireAccount(ctx, clientAccountId);
    return { one: einvoiceView(clientAccountId, await integrationSetting(ctx, clientAccountId, 'einvoice')), statuses: null };
  }
  const listed = await listedAccounts(ctx, null);
  const ids = listed ?? (await ctx.db.clientAccount.findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map((a) => a.id);
  const settings = new Map((await integrationSettings(ctx, { clientAccountIds: ids, integration: 'einvoice' })).map((s) => [s.clientAccountId, s]));
  return { one: null, statuses: [...ids].sort((a, b) => a - b).map((id) => einvoiceView(id, settings.get(id))) };
}

/**
 * PATCH /integrations/einvoice/status: activating registers the organisation as a receiver in the
 * network's registry (it needs an organization number: 400), deactivating deregisters it. The
 * registry is asked first; its failure is a 500 and nothing is stored (a refusal of our own
 * credentials too: it is no fault of the caller's, so no 403).
 */
export async function updateEinvoiceStatus(ctx: RequestContext, args: Args<typeof rules.updateEinvoice>): Promise<EinvoiceStatus> {
  const { clientAccountId, input } = parse(rules.updateEinvoice, args);
  await requireAccount(ctx, clientAccountId);
  const account = await ctx.db.clientAccount.findUniqueOrThrow({ where: { id: clientAccountId }, select: { displayName: true, organizationNumber: true } });
  const connector = integrationsOf(ctx).connector('einvoice');
  let receiver: Receiver | null = null;
  if (input.isActive) {
    const orgNumber = account.organizationNumber;
    if (!orgNumber) throw ValidationError.field('isActive', 'e-invoicing needs the client account’s organization number (the registry knows receivers by it): set organization_number first');
    receiver = await upstream(() => registerReceiver(connector, { orgNumber, name: account.displayName }), { status: 500, forbidden: 500, what: 'Registering the receiver in the e-invoicing network' });
  } else if (account.organizationNumber) {
    const orgNumber = account.organizationNumber;
    await upstream(() => deregisterReceiver(connector, orgNumber), { status: 500, forbidden: 500, what: 'Removing the receiver from the e-invoicing network' });
  }
  const setting = await inTransaction(ctx, async (tx) => {
    const stored = await integrationSetting(tx, clientAccountId, 'einvoice');
    const registered = receiver?.status === 'REGISTERED';
    return saveIntegrationSetting(tx, clientAccountId, 'einvoice', {
      isActive: input.isActive,
      state: receiver ? { receiver } : {},
      connectedAt: registered ? (stored?.connectedAt ?? new Date()) : null,
    });
  });
  return einvoiceView(clientAccountId, setting);
}

// ---- providerb ----

export interface ProviderbStatus {
  isActive: boolean;
  isConnected: boolean;
  onboardingInformation: Record<string, unknown>;
}

/**
 * GET /integrations/providerb/status by client account or bank account (at least one; a bank
 * account's client account is derived, and both given must agree). Providerb is activated by this
 * call: the first one for an account with an organization number creates its onboarding at the
 * provider (with the company's active bank accounts) and stores the integration active; every call
 * updates the onboarding (accounts added since) and answers the provider's state: is_connected once
 * the owner has consented and the account (or, for a client account, any account) is connected.
 * Providerb failing is a 500 and nothing is stored.
 */
export async function providerbStatus(ctx: RequestContext, args: Args<typeof rules.providerbStatus>): Promise<ProviderbStatus> {
  const { clientAccountId: askedAccount, bankAccountId } = parse(rules.providerbStatus, args);
  let clientAccountId = askedAccount ?? null;
  let bankAccount: { accountNumber: string } | null = null;
  if (bankAccountId != null) {
    const row = await requireOwned(
      ctx,
      `Bank account ${bankAccountId}`,
      await ctx.db.bankAccount.findUnique({ where: { id: bankAccountId }, select: { clientAccountId: true, businessPartnerId: true, accountNumber: true } }),
    );
    if (row.businessPartnerId !== null) throw ValidationError.field('bankAccountId', `bank account ${bankAccountId} belongs to a business partner: providerb connects the company's own accounts`);
    if (clientAccountId !== null && clientAccountId !== row.clientAccountId) {
      throw ValidationError.field('bankAccountId', `bank account ${bankAccountId} belongs to client account ${row.clientAccountId}, not ${clientAccountId}`);
    }
    clientAccountId = row.clientAccountId;
    bankAccount = row;
  } else {
    await requireAccount(ctx, clientAccountId!);
  }
  const accountId = clientAccountId!;
  const [account, accounts, stored] = await Promise.all([
    ctx.db.clientAccount.findUnique({ where: { id: accountId }, select: { displayName: true, organizationNumber: true } }),
    ctx.db.bankAccount.findMany({ where: { clientAccountId: accountId, businessPartnerId: null, isActive: true }, select: { accountNumber: true }, orderBy: { accountNumber: 'asc' } }),
    integrationSetting(ctx, accountId, 'providerb'),
  ]);
  if (!account) throw new NotFoundError(`Client account ${accountId}`);
  const orgNumber = account.organizationNumber;
  if (!orgNumber) {
    return {
      isActive: stored?.isActive ?? false,
      isConnected: false,
      onboardingInformation: { status: 'NOT_STARTED', missing_steps: ['ORGANIZATION_NUMBER'], message: 'Providerb onboards organisations: set the client account’s organization number first' },
    };
  }
  const accountNumbers = [...new Set([...accounts.map((a) => a.accountNumber), ...(bankAccount ? [bankAccount.accountNumber] : [])])];
  const connector = integrationsOf(ctx).connector('providerb');
  const onboarding = await upstream(() => ensureOnboarding(connector, { orgNumber, name: account.displayName, accountNumbers }), { status: 500, forbidden: 500, what: 'Providerb onboarding' });
  const connectedAccounts = onboarding.accounts.filter((a) => a.connected).map((a) => a.account_number);
  const isConnected =
    onboarding.status === 'COMPLETED' && (bankAccount ? connectedAccounts.includes(bankAccount.accountNumber) : connectedAccounts.length > 0);
  const setting = await inTransaction(ctx, async (tx) => {
    const current = await integrationSetting(tx, accountId, 'providerb');
    return saveIntegrationSetting(tx, accountId, 'providerb', {
      isActive: true,
      state: { onboarding_id: onboarding.id, status: onboarding.status },
      connectedAt: onboarding.status === 'COMPLETED' ? (current?.connectedAt ?? new Date()) : null,
    });
  });
  return {
    isActive: setting.isActive,
    isConnected,
    onboardingInformation: {
      onboarding_id: onboarding.id,
      status: onboarding.status,
      consent_url: onboarding.consent_url,
      missing_steps: onboarding.missing_steps,
      accounts: onboarding.accounts,
    },
  };
}
