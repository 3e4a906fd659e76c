import PDFDocument from 'pdfkit';
import type { Decimal } from '@prisma/client/runtime/client';
import { formatDate, formatOrganizationNumber, THOUSANDS_SEPARATOR } from '../../shared/norwegian-format.ts';
import { isCreditNote, type InvoiceModel } from './documents.pdf-model.ts';

/**
 * A document's PDF as a Norwegian invoice: the seller at the top left, the title ("Faktura",
 * "Kreditnota" …) and the facts box (number, dates, KID, bank account) at the right, the buyer's
 * address, the lines (text, quantity, unit, price, VAT rate, amount), the VAT summary per rate and
 * the totals; "Å betale" with the account and KID at the foot. Amounts are Decimals printed exactly
 * (`1 234,50`): never through floating point. Helvetica's WinAnsi encoding has æøå.
 */

const MARGIN = 48;
const REGULAR = 'Helvetica';
const BOLD = 'Helvetica-Bold';
const PRODUCT = 'regnskap-api';

/** 1234.5 → '1 234,50' (a non-breaking space between thousands), exactly from the Decimal. */
export function formatAmount(d: Decimal, scale = 2): string {
  const text = d.toFixed(scale);
  const negative = text.startsWith('-') && !/^-0(\.0*)?$/.test(text);
  const [int, frac] = text.replace('-', '').split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, THOUSANDS_SEPARATOR);
  return `${negative ? '-' : ''}${grouped}${frac ? `,${frac}` : ''}`;
}

/** A quantity without trailing zeros: 2.500000 → '2,5'. */
const formatQuantity = (d: Decimal): string => formatAmount(d, Math.min(6, Math.max(0, d.decimalPlaces())));
const formatRate = (d: Decimal | null): string => (d === null ? '' : `${formatQuantity(d)} %`);

type Doc = PDFKit.PDFDocument;

function columns(width: number) {
  // text, quantity, unit, price, VAT %, amount (net)
  const fixed = [54, 36, 72, 44, 80];
  const text = width - fixed.reduce((a, b) => a + b, 0);
  const widths = [text, ...fixed];
  const xs = widths.reduce<number[]>((acc, w, i) => [...acc, i === 0 ? MARGIN : acc[i - 1] + widths[i - 1]], []);
  return { widths, xs };
}

function right(doc: Doc, text: string, x: number, width: number, y: number) {
  doc.text(text, x + width - 4 - doc.widthOfString(text), y, { lineBreak: false });
}

export async function renderDocumentPdf(m: InvoiceModel, options: { preview?: boolean } = {}): Promise<Buffer> {
  const title = `${m.title}${m.documentNumber ? ` ${m.documentNumber}` : ''}`;
  const doc = new PDFDocument({ size: 'A4', margins: { top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN }, bufferPages: true, info: { Title: title, Producer: PRODUCT, Creator: PRODUCT } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const pageWidth = doc.page.width;
  const width = pageWidth - 2 * MARGIN;
  const bottom = doc.page.height - MARGIN - 40;

  // seller
  doc.font(BOLD).fontSize(14).text(m.seller.name, MARGIN, MARGIN, { width: width / 2 });
  doc.font(REGULAR).fontSize(9);
  if (m.seller.organizationNumber) doc.text(`Org.nr. ${formatOrganizationNumber(m.seller.organizationNumber)}${m.seller.vatLiable ? ' MVA' : ''}`, { width: width / 2 });
  if (m.seller.vatLiable) doc.text('Foretaksregisteret', { width: width / 2 });

  // title and facts at the right
  const factsX = MARGIN + width / 2 + 20;
  const factsW = width / 2 - 20;
  doc.font(BOLD).fontSize(20).text(m.title, factsX, MARGIN, { width: factsW, align: 'right' });
  if (options.preview || m.isDraft) doc.font(REGULAR).fontSize(9).fillColor('#a00').text(options.preview ? 'FORHÅNDSVISNING – ikke sendt' : 'UTKAST', factsX, doc.y, { width: factsW, align: 'right' }).fillColor('black');
  let fy = doc.y + 6;
  const fact = (label: string, value: string | null) => {
    if (!value) return;
    doc.font(REGULAR).fontSize(9).text(label, factsX, fy, { lineBreak: false });
    doc.font(BOLD);
    right(doc, value, factsX, factsW + 4, fy);
    fy += 13;
  };
  fact(isCreditNote(m) ? 'Kreditnotanr.' : 'Fakturanr.', m.documentNumber ?? '(tildeles ved utstedelse)');
  fact(isCreditNote(m) ? 'Kreditnotadato' : 'Fakturadato', formatDate(m.documentDate));
  if (!isCreditNote(m)) fact('Forfallsdato', m.dueDate ? formatDate(m.dueDate) : null);
  fact('KID', m.paymentRef);
  fact('Kontonummer', m.bankAccount);
  fact('Valuta', m.currencyCode);
  fact('Deres ref.', m.buyerReference);
  fact('Ordrenr.', m.orderReference);

  // buyer
  let y = Math.max(doc.y, MARGIN + 70);
  if (m.buyer) {
    doc.font(BOLD).fontSize(10).text(m.buyer.name, MARGIN, y, { width: width / 2 });
    doc.font(REGULAR).fontSize(9);
    for (const line of m.buyer.address) doc.text(line, { width: width / 2 });
    if (m.buyer.organizationNumber) doc.text(`Org.nr. ${formatOrganizationNumber(m.buyer.organizationNumber)}`, { width: width / 2 });
  }
  y = Math.max(doc.y, fy) + 24;
  if (m.description) {
    doc.font(REGULAR).fontSize(9).text(m.description, MARGIN, y, { width });
    y = doc.y + 10;
  }

  // lines
  const { widths, xs } = columns(width);
  const header = () => {
    doc.font(BOLD).fontSize(8.5);
    doc.text('Beskrivelse', xs[0] + 2, y, { lineBreak: false });
    ['Antall', 'Enhet', 'Pris', 'MVA', `Beløp ${m.currencyCode}`].forEach((h, k) => right(doc, h, xs[k + 1], widths[k + 1], y));
    y += 13;
    doc.moveTo(MARGIN, y - 3).lineTo(MARGIN + width, y - 3).lineWidth(0.7).stroke();
  };
  header();
  doc.font(REGULAR).fontSize(8.5);
  for (const l of m.lines) {
    const h = doc.heightOfString(l.text, { width: widths[0] - 4 });
    if (y + h > bottom) {
      doc.addPage();
      y = MARGIN;
      header();
      doc.font(REGULAR).fontSize(8.5);
    }
    doc.text(l.text, xs[0] + 2, y, { width: widths[0] - 4 });
    right(doc, formatQuantity(l.quantity), xs[1], widths[1], y);
    right(doc, l.unit ?? '', xs[2], widths[2], y);
    right(doc, formatAmount(l.price), xs[3], widths[3], y);
    right(doc, formatRate(l.rate), xs[4], widths[4], y);
    right(doc, formatAmount(l.net), xs[5], widths[5], y);
    y += Math.max(h, 11) + 3;
  }
  doc.moveTo(MARGIN, y).lineTo(MARGIN + width, y).lineWidth(0.5).stroke();
  y += 8;

  // VAT summary and totals
  if (y + 60 + 14 * m.vatSummary.length > bottom) {
    doc.addPage();
    y = MARGIN;
  }
  const sumX = MARGIN + width / 2;
  const sumW = width / 2;
  if (m.seller.vatLiable && m.vatSummary.length) {
    doc.font(BOLD).fontSize(8.5).text('MVA-sats', MARGIN, y, { lineBreak: false });
    right(doc, 'Grunnlag', MARGIN + 60, 90, y);
    right(doc, 'MVA', MARGIN + 150, 80, y);
    let vy = y + 12;
    doc.font(REGULAR);
    for (const s of m.vatSummary) {
      doc.text(formatRate(s.rate), MARGIN, vy, { lineBreak: false });
      right(doc, formatAmount(s.base), MARGIN + 60, 90, vy);
      right(doc, formatAmount(s.vat), MARGIN + 150, 80, vy);
      vy += 12;
    }
  }
  const total = (label: string, value: Decimal, bold = false) => {
    doc.font(bold ? BOLD : REGULAR).fontSize(bold ? 11 : 9).text(label, sumX, y, { lineBreak: false });
    right(doc, `${formatAmount(value)} ${m.currencyCode}`, sumX, sumW, y);
    y += bold ? 16 : 12;
  };
  total('Sum eks. mva', m.net);
  total('Merverdiavgift', m.vat);
  doc.moveTo(sumX, y).lineTo(sumX + sumW, y).lineWidth(0.7).stroke();
  y += 4;
  total(isCreditNote(m) ? 'Kreditert beløp' : 'Å betale', m.gross, true);

  if (m.note) {
    y += 14;
    doc.font(REGULAR).fontSize(9).text(m.note, MARGIN, y, { width });
    y = doc.y;
  }

  // payment slip line at the foot of the last page
  if (!isCreditNote(m)) {
    const fy2 = doc.page.height - MARGIN - 30;
    doc.moveTo(MARGIN, fy2 - 6).lineTo(MARGIN + width, fy2 - 6).lineWidth(0.5).stroke();
    const slip = [`Å betale: ${formatAmount(m.gross)} ${m.currencyCode}`, m.bankAccount ? `Til konto: ${m.bankAccount}` : null, m.paymentRef ? `KID: ${m.paymentRef}` : null, m.dueDate ? `Forfall: ${formatDate(m.dueDate)}` : null]
      .filter(Boolean)
      .join('    ');
    doc.font(BOLD).fontSize(9).text(slip, MARGIN, fy2, { width, lineBreak: false });
  }

  const { start, count } = doc.bufferedPageRange();
  for (let p = start; p < start + count; p++) {
    doc.switchToPage(p);
    doc.font(REGULAR).fontSize(7.5);
    const label = `Side ${p - start + 1} av ${count}`;
    doc.text(label, pageWidth - MARGIN - doc.widthOfString(label), doc.page.height - MARGIN - 8, { lineBreak: false });
  }
  doc.end();
  return done;
}
