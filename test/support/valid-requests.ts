import { randomBytes, randomUUID } from 'node:crypto';
import { getNamedType, getNullableType, isInputObjectType, isListType, Kind, type GraphQLInputType } from 'graphql';
import { schema } from '../../src/schema.ts';
import { toSnake } from '../../src/shared/naming.ts';
import type { CompiledOperation } from '../../rest-adapter/compile.ts';
import type { TestApp } from './harness.ts';
import type { Tenant } from './seed.ts';
import { baseline, Raw, type BaselineContext, type Fixtures } from './hostile.ts';
import { pdfBytes, voucherFactory } from './vouchers.ts';

// Valid requests for every operation of the table, built from a tenant that owns one record of each
// kind (the fixtures): the hostile sweep puts one hostile value into them
// (test/support/hostile-sweep.ts), the write-scope walk sends them with a read-only token
// (test/oauth/write-scope.test.ts).

export interface FixtureWorld {
  t: Tenant;
  /** the baseline context for an operation answering `ownType` (what its `id` points at) */
  ctx: (ownType?: string) => BaselineContext;
}

/** The GraphQL type an operation's top-level field returns (what its `id` argument points at). */
export function ownType(c: CompiledOperation): string {
  const root = c.isMutation ? schema.getMutationType()! : schema.getQueryType()!;
  const top = c.operation.selectionSet.selections[0];
  return getNamedType(root.getFields()[top.kind === Kind.FIELD ? top.name.value : ''].type).name;
}

/** A GraphQL input value with its object keys as the wire writes them (snake_case; JSON scalars and unknown keys untouched). */
export function wireKeys(value: unknown, type: GraphQLInputType): unknown {
  const t = getNullableType(type) as GraphQLInputType;
  if (isListType(t) && Array.isArray(value)) return value.map((v) => wireKeys(v, t.ofType));
  if (!isInputObjectType(t) || value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Raw) return value;
  const fields = t.getFields();
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [fields[k] ? toSnake(k) : k, fields[k] ? wireKeys(v, fields[k].type) : v]));
}

/** A tenant with one record of every kind an id can point at (the fixtures), and known-good text for checked fields. */
export async function fixtureWorld(app: TestApp): Promise<FixtureWorld> {
  const prisma = app.db.prisma;
  const t = await app.seed.tenant();
  const clientAccountId = t.account.id;
  const unit = await app.seed.unitId('H87');
  const taxCode = await t.taxCode('3');
  const account = await t.ledgerAccount('1920');
  const item = await prisma.item.create({ data: { clientAccountId, itemNo: 'SWEEP-1', salesUnitId: unit, taxCodeId: taxCode, price: '1' } });
  const itemCollection = await prisma.itemCollection.create({ data: { clientAccountId, collectionType: 'TEMPLATE', name: 'Sweep' } });
  const entry = await prisma.itemCollectionEntry.create({
    data: { itemCollectionId: itemCollection.id, clientAccountId, itemId: item.id, price: '1', quantity: '1', unitId: unit, taxCodeId: taxCode },
  });
  // a customer, and the employee of the payroll contract below
  const businessPartner = await prisma.businessPartner.create({ data: { clientAccountId, name: 'Sweep AS', isCustomer: true, isEmployee: true } });
  const bankAccount = await prisma.bankAccount.create({ data: { clientAccountId, accountNumber: '15032012342', currencyCode: 'NOK', ledgerAccountId: account } });
  const project = await prisma.project.create({ data: { clientAccountId, sequenceNumber: 1, name: 'Sweep' } });
  const department = await prisma.department.create({ data: { clientAccountId, sequenceNumber: 1, name: 'Sweep' } });
  const tag = await prisma.tag.create({ data: { clientAccountId, name: 'Sweep' } });
  const asset = await prisma.asset.create({ data: { clientAccountId, name: 'Sweep' } });
  const journalEntry = await prisma.journalEntry.create({
    data: {
      clientAccountId,
      lines: {
        create: [
          { clientAccountId, lineId: 1, postingDate: new Date('2026-01-02'), accountId: account, debit: '1', debitFc: '1', currencyCode: 'NOK' },
          { clientAccountId, lineId: 2, postingDate: new Date('2026-01-02'), accountId: account, credit: '1', creditFc: '1', currencyCode: 'NOK' },
        ],
      },
    },
  });
  const bankStatement = await prisma.bankStatement.create({
    data: { clientAccountId, bankAccountId: bankAccount.id, fromDate: new Date('2026-01-01'), toDate: new Date('2026-01-31'), openingBalance: '0', closingBalance: '1', source: 'JSON' },
  });
  const bankTransaction = await prisma.bankTransaction.create({
    data: { clientAccountId, bankAccountId: bankAccount.id, bankStatementId: bankStatement.id, payeeBankAccountId: bankAccount.id, amount: '1', currencyCode: 'NOK', bookingDate: new Date('2026-01-02') },
  });
  const voucherCollection = await prisma.voucherCollection.create({ data: { clientAccountId, name: 'Sweep' } });
  const voucher = await voucherFactory(app).voucher(t, { bytes: await pdfBytes(3), data: { collectionId: voucherCollection.id } });
  const invitation = await prisma.invitation.create({
    data: { clientAccountId, invitedEmail: `sweep-${clientAccountId}@example.no`, role: 'EM', token: randomBytes(32).toString('hex'), expiresAt: new Date(Date.now() + 86_400_000) },
  });
  const workerTask = await prisma.workerTask.create({ data: { clientAccountId, taskType: 'MANUAL_REVIEW', relationType: 'voucher', relationId: voucher.id } });
  const chatThread = await prisma.chatThread.create({ data: { clientAccountId, subject: 'Sweep', createdById: t.user.id } });
  const chatMessage = await prisma.chatMessage.create({ data: { threadId: chatThread.id, message: 'Sweep', fromUserId: t.user.id, createdById: t.user.id } });
  const taskThread = await prisma.chatThread.create({ data: { clientAccountId, subject: 'Sweep task' } });
  const task = await prisma.task.create({ data: { clientAccountId, title: 'Sweep', threadId: taskThread.id } });
  const yearlyAccount = await prisma.yearlyAccountSubmission.create({
    data: { clientAccountId, reportingYear: 2025, fromDate: new Date('2025-01-01'), toDate: new Date('2025-12-31'), status: 'DRAFT' },
  });
  // a DRAFT with no portal instance: its status answers as stored, its cancel needs no portal call
  const taxReturn = await prisma.taxReturn.create({
    data: { clientAccountId, reportingYear: 2026, fromDate: new Date('2026-01-01'), toDate: new Date('2026-12-31'), status: 'DRAFT', createdById: t.user.id },
  });
  const payrollGarnishment = await prisma.payrollGarnishment.create({
    data: {
      clientAccountId, businessPartnerId: businessPartner.id, externalId: 'SWEEP-1', garnishmentType: 'UTLEGGSTREKK', deductionType: 'FIXED', amount: '1',
      priority: 1, validFrom: new Date('2026-01-01'), status: 'ACTIVE', externalVersion: 1, sequenceNumber: 1, rawResponse: {},
    },
  });
  const payrollContract = await prisma.payrollContract.create({
    data: { clientAccountId, businessPartnerId: businessPartner.id, employmentType: 'ordinaertArbeidsforhold', startDate: new Date('2026-01-01'), salaryType: 'MONTHLY_FIXED', monthlySalary: '1', endDate: new Date('2026-12-31') },
  });
  // equity: shares of the fixture partner to trade, the company itself (buyback, retire, cap table) and a recipient
  const company = await prisma.businessPartner.findFirstOrThrow({ where: { clientAccountId, isSelf: true }, select: { id: true } });
  const shareholder = await prisma.businessPartner.create({ data: { clientAccountId, name: 'Sweep Holder AS', isShareholder: true } });
  const equityTransaction = await prisma.equityTransaction.create({
    data: { clientAccountId, transactionDate: new Date('2026-01-02'), transactionType: 'ISSUANCE', transactionGroupId: randomUUID(), businessPartnerId: businessPartner.id, shareClass: 'COMMON', quantity: 1_000_000 },
  });
  // a webhook (a public address literal: no DNS) with one delivery
  const webhook = await prisma.webhook.create({ data: { clientAccountId, url: 'https://93.184.215.14/sweep', secret: `whsec_${randomBytes(24).toString('base64')}`, createdById: t.user.id } });
  const delivery = await prisma.webhookDelivery.create({ data: { webhookId: webhook.id, changeId: 1n, position: 1n, messageId: `msg_sweep_${webhook.id}`, payload: '{}' } });
  const fixtures: Fixtures = {
    clientAccount: clientAccountId,
    // the `id` of every webhook operation is the webhook's, whatever type it answers (the retry answers a delivery)
    webhook: webhook.id,
    webhookWithSecret: webhook.id,
    webhookDelivery: webhook.id,
    webhookDeliveryConnection: webhook.id,
    delivery: delivery.id,
    payrollContract: payrollContract.id,
    equityTransaction: equityTransaction.id,
    companyBusinessPartner: company.id,
    toBusinessPartner: shareholder.id,
    taxReturn: taxReturn.id,
    payrollGarnishment: payrollGarnishment.id,
    task: task.id,
    // a yearly account draft: the id of its operations (the submission, its notes, its PDF)
    yearlyAccountSubmission: yearlyAccount.id,
    yearlyAccountNote: yearlyAccount.id,
    yearlyAccountFile: yearlyAccount.id,
    chatThread: chatThread.id,
    thread: chatThread.id,
    chatMessage: chatMessage.id,
    message: chatMessage.id,
    voucher: voucher.id,
    voucherCollection: voucherCollection.id,
    user: t.user.id,
    unit,
    taxCode,
    account,
    item: item.id,
    itemCollection: itemCollection.id,
    itemCollectionEntry: entry.id,
    businessPartner: businessPartner.id,
    bankAccount: bankAccount.id,
    project: project.id,
    department: department.id,
    tag: tag.id,
    asset: asset.id,
    journalEntry: journalEntry.id,
    bankStatement: bankStatement.id,
    bankTransaction: bankTransaction.id,
    invitation: invitation.id,
    /** role_id: 5 EM, a role any account may give */
    role: 5,
    workerTask: workerTask.id,
    // a result is submitted to its task: the submit operation's id is the task's
    workerTaskResult: workerTask.id,
    // a worker task's relation_id (with relation_type voucher)
    relation: voucher.id,
  };
  const strings = {
    email: t.user.email,
    currencyCode: 'NOK',
    accountingCurrency: 'NOK',
    countryCode: 'NO',
    accountNumber: '12030000043',
    standardTaxCode: '3',
    'CreateAccountInput.code': '1921',
    'CreateTaxCodeInput.code': 'SW1',
    'accountByCode.code': '1920',
    'CreateWorkerTaskInput.relationType': 'voucher',
    'CreateWebhookInput.url': 'https://93.184.215.14/sweep-new',
    accountCode: '1920',
    'currency.code': 'NOK',
    currentPassword: 'correct horse battery staple',
    newPassword: 'correct horse battery staple 2',
    // invitations: the token of the fixture (its first accept creates a user, every later one is 400), addresses of no user
    token: invitation.token,
    'CreateInvitationInput.email': `sweep-new-${clientAccountId}@example.no`,
    'AcceptInvitationInput.email': `sweep-accepted-${clientAccountId}@example.no`,
    password: 'correct horse battery staple',
    // bank integrations: a supported bank and the one PDF form
    bic: 'DNBANOKKXXX',
    formType: 'integration-agreement',
    // payroll contracts: STYRK-08
    occupationCode: '2511108',
  };
  return { t, ctx: (own) => ({ fixtures, strings, ownType: own }) };
}

/** The valid request of an operation: path ids of the fixtures, the required query parameters and body fields. */
export function validRequest(c: CompiledOperation, ctx: FixtureWorld['ctx']) {
  const bc = ctx(ownType(c));
  const params: Record<string, string> = {};
  const query: Record<string, string> = {};
  let body: Record<string, unknown> | undefined = c.op.method === 'GET' ? undefined : {};
  for (const v of c.variables) {
    if (v.source === 'path') params[v.wire] = String(baseline(v.type, v.name, bc));
    else if (v.source === 'query' && v.required) query[v.wire] = String(baseline(v.type, v.name, bc));
    else if (v.source === 'body') {
      const input = baseline(v.type, v.name, bc) as Record<string, unknown>;
      for (const b of c.boundFields) {
        params[b.wire] ??= String(baseline(b.type, b.field, bc));
        delete input[b.field];
      }
      body = input;
    } else if (v.source === 'body-field' && v.required) body![v.wire] = baseline(v.type, v.name, bc);
  }
  return { params, query, body, bc };
}

/**
 * A tool's valid arguments: the operation's parameters and body fields, flat (or the body under
 * `body`, when the tool's input schema has that property: `nestedBody`), typed.
 */
export function validArguments(c: CompiledOperation, ctx: FixtureWorld['ctx'], nestedBody: boolean): Record<string, unknown> {
  const bc = ctx(ownType(c));
  const args: Record<string, unknown> = {};
  for (const v of c.variables) {
    if (v.source === 'body') {
      const input = baseline(v.type, v.name, bc) as Record<string, unknown>;
      for (const b of c.boundFields) {
        args[b.wire] ??= baseline(b.type, b.field, bc);
        delete input[b.field];
      }
      if (nestedBody) args.body = wireKeys(input, v.type);
      else Object.assign(args, wireKeys(input, v.type));
    } else if (v.required || v.source === 'path') args[v.wire] = baseline(v.type, v.name, bc);
  }
  return args;
}
