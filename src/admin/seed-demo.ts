import type { Prisma } from '../db/database.ts';
import { createBankAccount } from '../modules/bank-accounts/bank-accounts.service.ts';
import { createBusinessPartner } from '../modules/business-partners/business-partners.service.ts';
import { createClientAccount, grantRole, linkProvider } from '../modules/client-accounts/client-accounts.service.ts';
import { createItem } from '../modules/items/items.service.ts';
import { createUser } from '../modules/users/users.service.ts';
import { inTransaction, systemContext } from '../shared/context.ts';

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
    await createBusinessPartner(tx, { input: {
      clientAccountId: company.id, name: 'Kafé Lillebror AS', organizationNumber: '923609016', email: 'post@lillebror.example', isCustomer: true,
      addresses: [{ addressType: 'POSTAL', line1: 'Storgata 1', postalCode: '0155', city: 'Oslo' }],
    } });
    const supplier = await createBusinessPartner(tx, { input: {
      clientAccountId: company.id, name: 'Bønnegrossisten AS', organizationNumber: '974760673', isSupplier: true,
      addresses: [{ addressType: 'POSTAL', line1: 'Havnegata 9', postalCode: '5003', city: 'Bergen' }],
    } });
    // an own account posts to 1920 (the default); the supplier's account has no ledger account
    await createBankAccount(tx, { input: { clientAccountId: company.id, name: 'Driftskonto', accountNumber: '1503.20.12342', bic: 'DNBANOKK' } });
    await createBankAccount(tx, { input: { clientAccountId: company.id, businessPartnerId: supplier.id, accountNumber: '1234.56.78903' } });
  });
  return { user, firm, company, created: true };
}
