import type { Prisma } from '../db/database.ts';
import { createBankAccount } from '../modules/bank-accounts/bank-accounts.service.ts';
import { createBusinessPartner } from '../modules/business-partners/business-partners.service.ts';
import { createClientAccount, grantRole, linkProvider } from '../modules/client-accounts/client-accounts.service.ts';
import { createItem } from '../modules/items/items.service.ts';
import { createDepartment } from '../modules/departments/departments.service.ts';
import { createProject } from '../modules/projects/projects.service.ts';
import { cancelJournalEntry, createJournalEntry } from '../modules/journal-entries/journal-entries.service.ts';
import { osloToday } from '../modules/journal-entries/journal-entries.rules.ts';
import type { RequestContext } from '../shared/context.ts';
import { createUser } from '../modules/users/users.service.ts';
import { auditUserId, inTransaction, systemContext } from '../shared/context.ts';
import { mod10CheckDigit } from '../modules/reconciliations/matcher.rules.ts';

/** The demo login printed by npm start and seed-demo (local use only). */
export const DEMO_LOGIN = { email: 'demo@example.no', password: 'demo-password' } as const;

/**
 * A demo accounting firm (provider, 69.201) serving a demo company, a user who is accountant in the
 * firm and owner of the company, and some items, partners and bank accounts; through the services,
 * so the demo data passes the same rules as the API's.
 */
export async function seedDemo(prisma: Prisma) {
  const system = systemContext(prisma);
  const user =
    (await prisma.user.findUnique({ where: { email: DEMO_LOGIN.email } })) ??
    (await createUser(system, { input: { ...DEMO_LOGIN, firstName: 'Demo', lastName: 'Regnskapsfører' } }));
  const existing = await prisma.clientAccount.findUnique({ where: { uniqueName: 'demo-fjordbyra-as' } });
  if (existing) {
    const company = await prisma.clientAccount.findUniqueOrThrow({ where: { uniqueName: 'demo-nordlys-kaffe-as' } });
    return { user, firm: existing, company, created: false };
  }
  const firm = await createClientAccount(system, {
    input: { displayName: 'Demo Fjordbyrå AS', uniqueName: 'demo-fjordbyra-as', industryCode: '69.201', vatLiable: true },
  });
  const company = await createClientAccount(system, {
    input: { displayName: 'Demo Nordlys Kaffe AS', uniqueName: 'demo-nordlys-kaffe-as', industryCode: '47.291', vatLiable: true },
  });
  await grantRole(system, { input: { email: user.email, clientAccountId: firm.id, role: 'AA' } });
  await grantRole(system, { input: { email: user.email, clientAccountId: company.id, role: 'CA' } });
  await linkProvider(system, { input: { providerAccountId: firm.id, clientAccountId: company.id } });

  const [piece, hour, kg] = await Promise.all(
    ['H87', 'HUR', 'KGM'].map((code) => prisma.unit.findUniqueOrThrow({ where: { unEceRec20Code: code } })),
  );
  const tax = async (code: string) =>
    (await prisma.taxCode.findUniqueOrThrow({ where: { clientAccountId_code: { clientAccountId: company.id, code } } })).id;
  const [high, food] = [await tax('3'), await tax('31')];

  // The demo user's items, partners and bank accounts, in one transaction.
  await inTransaction(systemContext(prisma, { actingUserId: user.id }), async (tx) => {
    for (const item of [
      { itemNo: 'KAFFE-500', name: 'Kaffebønner 500 g', itemType: 'ITEM' as const, salesUnitId: piece.id, stockUnitId: piece.id, taxCodeId: food, price: '149' },
      { itemNo: 'KAFFE-BULK', name: 'Kaffebønner, løsvekt', itemType: 'ITEM' as const, salesUnitId: kg.id, stockUnitId: kg.id, taxCodeId: food, price: '279.5' },
      { itemNo: 'KVERN-01', name: 'Kaffekvern', itemType: 'ITEM' as const, salesUnitId: piece.id, taxCodeId: high, price: '899' },
      { itemNo: 'KURS-BARISTA', name: 'Baristakurs', itemType: 'SERVICE' as const, salesUnitId: hour.id, taxCodeId: high, price: '650' },
      { itemNo: 'SERVICE-AVTALE', name: 'Serviceavtale kaffemaskin', itemType: 'SERVICE' as const, salesUnitId: piece.id, taxCodeId: high, price: '4990', metadata: { contractMonths: 12 } },
    ]) {
      await createItem(tx, { input: { ...item, clientAccountId: company.id } });
    }
    const customer = await createBusinessPartner(tx, { input: {
      clientAccountId: company.id, name: 'Kafé Lillebror AS', organizationNumber: '923609016', email: 'post@lillebror.example', isCustomer: true,
      addresses: [{ addressType: 'POSTAL', line1: 'Storgata 1', postalCode: '0155', city: 'Oslo' }],
    } });
    const supplier = await createBusinessPartner(tx, { input: {
      clientAccountId: company.id, name: 'Bønnegrossisten AS', organizationNumber: '974760673', isSupplier: true,
      addresses: [{ addressType: 'POSTAL', line1: 'Havnegata 9', postalCode: '5003', city: 'Bergen' }],
    } });
    // an own account posts to 1920 (the default); the supplier's account has no ledger account
    const own = await createBankAccount(tx, { input: { clientAccountId: company.id, name: 'Driftskonto', accountNumber: '1503.20.12342', bic: 'DNBANOKK' } });
    await createBankAccount(tx, { input: { clientAccountId: company.id, businessPartnerId: supplier.id, accountNumber: '1234.56.78903' } });
    await seedLedger(tx, company.id, { customer: customer.id, supplier: supplier.id });
    await seedBank(tx, company.id, own.id, customer.id);
  });
  return { user, firm, company, created: true };
}

/**
 * Projects, departments and the three months before this one as a small coffee company books them:
 * each month a course invoice and its payment, a supplier invoice and its payment, rent and wages
 * (VAT as explicit lines); a cancelled entry with its reversal and a draft for next month's rent.
 */
async function seedLedger(tx: RequestContext, clientAccountId: number, partners: { customer: number; supplier: number }) {
  const project = await createProject(tx, { input: { clientAccountId, name: 'Baristakurs høsten', description: 'Kurs for kafékunder' } });
  await createProject(tx, { input: { clientAccountId, name: 'Ny butikk i Bergen' } });
  const [shop, courses] = [
    await createDepartment(tx, { input: { clientAccountId, name: 'Butikk' } }),
    await createDepartment(tx, { input: { clientAccountId, name: 'Kurs' } }),
    await createDepartment(tx, { input: { clientAccountId, name: 'Administrasjon' } }),
  ];
  const bp = (id: number) => ({ type: 'businesspartner', id });
  const dept = (id: number) => ({ type: 'department', id });
  type Line = { accountCode: string; debit?: string; credit?: string; taxCode?: string; dimensions?: { type: string; id: number }[]; description?: string };
  const post = (postingDate: Date, description: string, lines: Line[], isDraft = false) =>
    createJournalEntry(tx, {
      input: {
        clientAccountId,
        description,
        isDraft,
        lines: lines.map((l) => ({ ...l, postingDate, debit: l.debit ?? '0', credit: l.credit ?? '0' })),
      },
    });
  const today = osloToday();
  const day = (monthsBack: number, d: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - monthsBack, d));
  for (const back of [3, 2, 1]) {
    await post(day(back, 5), 'Faktura baristakurs, Kafé Lillebror', [
      { accountCode: '1500', debit: '12500.00', dimensions: [bp(partners.customer)] },
      { accountCode: '3000', credit: '10000.00', taxCode: '3', dimensions: [{ type: 'project', id: project.id }, dept(courses.id)] },
      { accountCode: '2700', credit: '2500.00' },
    ]);
    await post(day(back, 8), 'Faktura kaffekverner, Bønnegrossisten', [
      { accountCode: '6540', debit: '8000.00', taxCode: '1', dimensions: [dept(shop.id)] },
      { accountCode: '2710', debit: '2000.00' },
      { accountCode: '2400', credit: '10000.00', dimensions: [bp(partners.supplier)] },
    ]);
    await post(day(back, 10), 'Husleie', [
      { accountCode: '6300', debit: '15000.00', dimensions: [dept(shop.id)] },
      { accountCode: '1920', credit: '15000.00' },
    ]);
    await post(day(back, 20), 'Innbetaling fra Kafé Lillebror', [
      { accountCode: '1920', debit: '12500.00' },
      { accountCode: '1500', credit: '12500.00', dimensions: [bp(partners.customer)] },
    ]);
    await post(day(back, 22), 'Betaling til Bønnegrossisten', [
      { accountCode: '2400', debit: '10000.00', dimensions: [bp(partners.supplier)] },
      { accountCode: '1920', credit: '10000.00' },
    ]);
    await post(day(back, 25), 'Lønn', [
      { accountCode: '5000', debit: '40000.00', dimensions: [dept(courses.id)] },
      { accountCode: '2600', credit: '12000.00' },
      { accountCode: '1920', credit: '28000.00' },
      { accountCode: '5400', debit: '5640.00', dimensions: [dept(courses.id)] },
      { accountCode: '2770', credit: '5640.00' },
    ]);
  }
  const wrong = await post(day(1, 27), 'Telefon (feilført)', [
    { accountCode: '6900', debit: '899.00' },
    { accountCode: '1920', credit: '899.00' },
  ]);
  await cancelJournalEntry(tx, { id: wrong.id, cancelled: 'Y', cancellationReason: 'Feil beløp: regningen var 699 kr' });
  await post(day(1, 27), 'Telefon', [
    { accountCode: '6900', debit: '699.00' },
    { accountCode: '1920', credit: '699.00' },
  ]);
  await post(day(0, 10), 'Husleie', [
    { accountCode: '6300', debit: '15000.00', dimensions: [dept(shop.id)] },
    { accountCode: '1920', credit: '15000.00' },
  ], true);
}

/**
 * Last month's customer invoices (documents 10021–10025 on 1500 with the partner) and the bank
 * transactions that arrived for them, not yet booked, so the automatic matcher has something to
 * propose: a payment with the invoice's KID, one by exact amount and the payer's name, one paying two
 * invoices at once, a partial payment with a KID, and one that belongs to no invoice.
 */
async function seedBank(tx: RequestContext, clientAccountId: number, bankAccountId: number, lillebror: number) {
  const fjell = await createBusinessPartner(tx, { input: { clientAccountId, name: 'Fjellkaffe ASA', isCustomer: true } });
  const bakeri = await createBusinessPartner(tx, { input: { clientAccountId, name: 'Bakeriet på Hjørnet AS', isCustomer: true } });
  await createBankAccount(tx, { input: { clientAccountId, businessPartnerId: bakeri.id, accountNumber: '9710.05.12347' } });
  const today = osloToday();
  const day = (d: number) => new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, d));
  const invoice = async (partner: number, documentNumber: string, d: number, net: string, vat: string, total: string) => {
    const document = await tx.db.document.create({
      data: { clientAccountId, businessPartnerId: partner, documentType: 'ARINV', documentNumber, documentDate: day(d), isDraft: false, createdById: auditUserId(tx) },
    });
    await createJournalEntry(tx, {
      input: {
        clientAccountId,
        description: `Faktura ${documentNumber}`,
        relationType: 'document',
        relationId: document.id,
        lines: [
          { postingDate: day(d), accountCode: '1500', debit: total, credit: '0', dimensions: [{ type: 'businesspartner', id: partner }] },
          { postingDate: day(d), accountCode: '3000', debit: '0', credit: net, taxCode: '3' },
          { postingDate: day(d), accountCode: '2700', debit: '0', credit: vat },
        ],
      },
    });
  };
  await invoice(lillebror, '10021', 12, '2990.00', '747.50', '3737.50');
  await invoice(fjell.id, '10022', 12, '1796.00', '449.00', '2245.00');
  await invoice(bakeri.id, '10023', 13, '1192.00', '298.00', '1490.00');
  await invoice(bakeri.id, '10024', 14, '2236.40', '559.10', '2795.50');
  await invoice(lillebror, '10025', 15, '7192.00', '1798.00', '8990.00');

  const payment = (d: number, amount: string, payor: { name: string; account?: string }, detail: { kid?: string; text?: string }) =>
    tx.db.bankTransaction.create({
      data: {
        clientAccountId,
        bankAccountId,
        // incoming: the company's account is the payee (spec 001 "Create body")
        payeeBankAccountId: bankAccountId,
        bookingDate: day(d),
        valueDate: day(d),
        amount,
        currencyCode: 'NOK',
        payorName: payor.name,
        memo: detail.text,
        details: {
          create: [{ transactionType: 'Innbetaling', structuredReference: detail.kid, amount, currencyCode: 'NOK', bookingDate: day(d), senderName: payor.name, senderAccount: payor.account, description: detail.text }],
        },
      },
    });
  // KIDs as the invoices print them: customer number 001001, invoice number, MOD10 check digit
  const kid = (body: string) => body + mod10CheckDigit(body);
  await payment(24, '3737.50', { name: 'KAFE LILLEBROR AS', account: '60110512344' }, { kid: kid('00100110021') });
  await payment(25, '2245.00', { name: 'FJELLKAFFE ASA' }, { text: 'Betaling' });
  await payment(26, '4285.50', { name: 'BAKERIET PA HJORNET AS', account: '97100512347' }, { text: 'Faktura 10023 og 10024' });
  await payment(27, '4000.00', { name: 'KAFE LILLEBROR AS', account: '60110512344' }, { kid: kid('00100110025') });
  await payment(27, '349.00', { name: 'Vipps AS' }, { text: 'Vipps-oppgjør' });
}
