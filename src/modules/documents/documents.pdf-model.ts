import { Decimal } from '@prisma/client/runtime/client';
import type { RequestContext } from '../../shared/context.ts';
import { formatDate } from '../../shared/scalars.ts';
import { formatBankAccountNumber } from '../bank-accounts/bank-accounts.rules.ts';
import { CREDIT_NOTE_TYPES } from './documents.rules.ts';

/**
 * What a document's PDF shows, drawn from a stored document or a preview's computed lines, so both
 * print the same figures the JSON answers: seller and buyer, number, dates, KID, bank account, the
 * lines with their VAT, a VAT summary per rate and the totals (document currency).
 */
export interface InvoiceModel {
  title: string;
  documentType: string;
  documentNumber: string | null;
  /** YYYY-MM-DD */
  documentDate: string;
  dueDate: string | null;
  paymentRef: string | null;
  currencyCode: string;
  isDraft: boolean;
  seller: { name: string; organizationNumber: string | null; vatLiable: boolean };
  buyer: { name: string; organizationNumber: string | null; address: string[] } | null;
  bankAccount: string | null;
  buyerReference: string | null;
  orderReference: string | null;
  description: string | null;
  note: string | null;
  lines: { text: string; quantity: Decimal; unit: string | null; price: Decimal; rate: Decimal | null; net: Decimal; vat: Decimal; total: Decimal }[];
  vatSummary: { rate: Decimal; base: Decimal; vat: Decimal }[];
  net: Decimal;
  vat: Decimal;
  gross: Decimal;
}

const TITLES: Record<string, string> = {
  ARINV: 'Faktura',
  ARCRN: 'Kreditnota',
  ARCIN: 'Kontantfaktura',
  ARPIN: 'Proformafaktura',
  ARDEB: 'Inkassovarsel',
  APINV: 'Leverandørfaktura',
  APCRN: 'Kreditnota fra leverandør',
  RECPT: 'Kvittering',
  APCIN: 'Kontantkjøp',
  APPIN: 'Proformafaktura fra leverandør',
  APDEB: 'Inkassokrav',
};

export const documentTitle = (documentType: string): string => TITLES[documentType] ?? 'Dokument';

export interface ModelDocument {
  clientAccountId: number;
  documentType: string;
  documentNumber: string | null;
  documentDate: Date;
  dueDate?: Date | null;
  paymentRef: string | null;
  currencyCode: string;
  businessPartnerId?: number | null;
  bankAccountId?: number | null;
  buyerReference?: string | null;
  orderReference?: string | null;
  documentDescription?: string | null;
  note?: string | null;
  isDraft: boolean;
  /** the document's amounts: what a document without item lines shows as its totals */
  netAmount?: Decimal;
  grossAmount?: Decimal;
}

export interface ModelLine {
  lineId: number;
  itemNo: string | null;
  itemName: string | null;
  description: string | null;
  quantity: Decimal;
  unitId: number | null;
  price: Decimal;
  taxRate: Decimal | null;
  taxAmountFc: Decimal;
  totalFc: Decimal;
}

/** The PDF's model of a document (stored or previewed): a few lookups for the parties, the bank account and the units. */
export async function loadInvoiceModel(ctx: RequestContext, doc: ModelDocument, lines: readonly ModelLine[]): Promise<InvoiceModel> {
  const [seller, buyer, bank, units] = await Promise.all([
    ctx.db.clientAccount.findUniqueOrThrow({ where: { id: doc.clientAccountId }, select: { displayName: true, organizationNumber: true, vatLiable: true } }),
    doc.businessPartnerId != null
      ? ctx.db.businessPartner.findUnique({ where: { id: doc.businessPartnerId }, select: { name: true, organizationNumber: true, addresses: { select: { addressType: true, line1: true, line2: true, postalCode: true, city: true, countryCode: true } } } })
      : null,
    doc.bankAccountId != null
      ? ctx.db.bankAccount.findUnique({ where: { id: doc.bankAccountId }, select: { accountNumber: true } })
      : ctx.db.bankAccount.findFirst({ where: { clientAccountId: doc.clientAccountId, businessPartnerId: null, isActive: true }, orderBy: { id: 'asc' }, select: { accountNumber: true } }),
    ctx.db.unit.findMany({ where: { id: { in: [...new Set(lines.flatMap((l) => (l.unitId != null ? [l.unitId] : [])))] } }, select: { id: true, symbol: true } }),
  ]);
  const unitById = new Map(units.map((u) => [u.id, u.symbol]));
  const address = buyer?.addresses.find((a) => a.addressType === 'POSTAL') ?? buyer?.addresses[0];
  const sorted = [...lines].sort((a, b) => a.lineId - b.lineId);
  const summary = new Map<string, { rate: Decimal; base: Decimal; vat: Decimal }>();
  let net = new Decimal(0);
  let vat = new Decimal(0);
  const modelLines = sorted.map((l) => {
    const lineNet = l.totalFc.minus(l.taxAmountFc);
    net = net.plus(lineNet);
    vat = vat.plus(l.taxAmountFc);
    const rate = l.taxRate ?? new Decimal(0);
    const key = rate.toFixed(2);
    const s = summary.get(key) ?? { rate, base: new Decimal(0), vat: new Decimal(0) };
    summary.set(key, { rate, base: s.base.plus(lineNet), vat: s.vat.plus(l.taxAmountFc) });
    return {
      text: [l.itemName ?? l.itemNo, l.description].filter((t) => t && t.trim()).join(' – ') || '(uten tekst)',
      quantity: l.quantity,
      unit: l.unitId != null ? (unitById.get(l.unitId) ?? null) : null,
      price: l.price,
      rate: l.taxRate,
      net: lineNet,
      vat: l.taxAmountFc,
      total: l.totalFc,
    };
  });
  return {
    title: documentTitle(doc.documentType),
    documentType: doc.documentType,
    documentNumber: doc.documentNumber,
    documentDate: formatDate(doc.documentDate),
    dueDate: doc.dueDate ? formatDate(doc.dueDate) : null,
    paymentRef: doc.paymentRef,
    currencyCode: doc.currencyCode,
    isDraft: doc.isDraft,
    seller: { name: seller.displayName, organizationNumber: seller.organizationNumber, vatLiable: seller.vatLiable },
    buyer: buyer
      ? {
          name: buyer.name,
          organizationNumber: buyer.organizationNumber,
          address: address ? [address.line1, address.line2, [address.postalCode, address.city].filter(Boolean).join(' '), address.countryCode !== 'NO' ? address.countryCode : null].filter((x): x is string => !!x?.trim()) : [],
        }
      : null,
    bankAccount: bank ? formatBankAccountNumber(bank.accountNumber) : null,
    buyerReference: doc.buyerReference ?? null,
    orderReference: doc.orderReference ?? null,
    description: doc.documentDescription ?? null,
    note: doc.note ?? null,
    lines: modelLines,
    vatSummary: [...summary.values()].sort((a, b) => b.rate.comparedTo(a.rate)),
    // without lines, the document's own amounts (VAT is their difference)
    ...(sorted.length || doc.grossAmount == null || doc.netAmount == null
      ? { net, vat, gross: net.plus(vat) }
      : { net: doc.netAmount, vat: doc.grossAmount.minus(doc.netAmount), gross: doc.grossAmount }),
  };
}

/** Whether the document is a credit note (its PDF says Kreditnota and shows what is credited). */
export const isCreditNote = (m: InvoiceModel): boolean => CREDIT_NOTE_TYPES.has(m.documentType);
