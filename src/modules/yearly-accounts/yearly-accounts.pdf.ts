import PDFDocument from 'pdfkit';
import { formatMoney, formatOrganizationNumber } from '../../shared/norwegian-format.ts';
import { norwegianDate, type FigureLine, type Note, type NoteTable } from './yearly-accounts.rules.ts';

/**
 * The yearly accounts as an A4 PDF (Helvetica: its WinAnsi encoding has æøå): a front page, the
 * income statement and the balance sheet with the previous year's figures, then the notes (text and
 * tables). "Side n av N" at the foot of every page.
 */
export interface YearlyAccountPdf {
  companyName: string;
  organizationNumber: string | null;
  reportingYear: number;
  fromDate: Date;
  toDate: Date;
  status: string;
  incomeStatement: FigureLine[];
  balanceSheet: FigureLine[];
  notes: Note[];
}

/** arsregnskap-2024-999999999.pdf (the account's id when it has no organization number) */
export const yearlyAccountFileName = (year: number, org: string | null, accountId: number) => `arsregnskap-${year}-${org ?? `konto-${accountId}`}.pdf`;

const MARGIN = 50;
const REGULAR = 'Helvetica';
const BOLD = 'Helvetica-Bold';

type Doc = PDFKit.PDFDocument;

function ensureRoom(doc: Doc, height: number): void {
  if (doc.y + height > doc.page.height - MARGIN - 20) doc.addPage();
}

/** Headings shown above a line (by its key); a heading without lines below it is still shown: they are fixed. */
const HEADINGS: Record<string, string[]> = {
  salgsinntekt: ['Driftsinntekter og driftskostnader'],
  finansinntekt: ['Finansinntekter og finanskostnader'],
  avsatt_utbytte: ['Overføringer og disponeringer'],
  immaterielle_eiendeler: ['Eiendeler', 'Anleggsmidler'],
  varer: ['Omløpsmidler'],
  aksjekapital: ['Egenkapital og gjeld', 'Egenkapital'],
  avsetninger_forpliktelser: ['Gjeld', 'Langsiktig gjeld'],
  leverandorgjeld: ['Kortsiktig gjeld'],
};

/** Sum lines that close a block get a rule above them and some air below. */
const TOTALS = new Set(['sum_eiendeler', 'sum_egenkapital_og_gjeld', 'arsresultat', 'sum_overforinger']);

function pageHeader(doc: Doc, a: YearlyAccountPdf): void {
  doc.font(REGULAR).fontSize(8).fillColor('#555555');
  doc.text(`${a.companyName}${a.organizationNumber ? `, org.nr. ${formatOrganizationNumber(a.organizationNumber)}` : ''}`, MARGIN, MARGIN - 20, { lineBreak: false });
  doc.fillColor('black');
  doc.x = MARGIN;
  doc.y = MARGIN;
}

/**
 * A statement: every line item with both years' amounts, sums bold. A line that is zero in both
 * years is left out (as an accountant prints it); sums are always shown.
 */
function figures(doc: Doc, a: YearlyAccountPdf, title: string, subtitle: string, lines: readonly FigureLine[], columns: [string, string]): void {
  doc.addPage();
  pageHeader(doc, a);
  doc.font(BOLD).fontSize(16).text(title);
  doc.font(REGULAR).fontSize(9).text(subtitle);
  doc.moveDown(0.8);
  const width = doc.page.width - 2 * MARGIN;
  const numW = 100;
  const labelW = width - 2 * numW;
  const rule = (y: number) => doc.moveTo(MARGIN + labelW + 10, y).lineTo(MARGIN + width, y).lineWidth(0.5).stroke();
  const row = (cells: [string, string, string], bold: boolean, height = 14) => {
    ensureRoom(doc, height);
    const y = doc.y;
    doc.font(bold ? BOLD : REGULAR).fontSize(9.5);
    doc.text(cells[0], MARGIN, y, { width: labelW, lineBreak: false });
    doc.text(cells[1], MARGIN + labelW, y, { width: numW, align: 'right', lineBreak: false });
    doc.text(cells[2], MARGIN + labelW + numW, y, { width: numW, align: 'right', lineBreak: false });
    doc.x = MARGIN;
    doc.y = y + height;
  };
  row(['Beløp i NOK', columns[0], columns[1]], true, 16);
  rule(doc.y - 4);
  for (const l of lines) {
    for (const [i, h] of (HEADINGS[l.key] ?? []).entries()) {
      if (i === 0) doc.moveDown(0.5);
      ensureRoom(doc, 40);
      doc.font(BOLD).fontSize(i === 0 && (HEADINGS[l.key]?.length ?? 0) > 1 ? 11 : 10).text(h, MARGIN, doc.y);
      doc.moveDown(0.2);
    }
    if (!l.isSum && l.amount.isZero() && l.previousAmount.isZero()) continue;
    if (l.isSum) rule(doc.y - 2);
    row([l.label, formatMoney(l.amount.toFixed(2)), formatMoney(l.previousAmount.toFixed(2))], l.isSum, TOTALS.has(l.key) ? 20 : 14);
  }
}

/** The board's and the general manager's signatures under the balance sheet (regnskapsloven § 3-5). */
function signatures(doc: Doc): void {
  ensureRoom(doc, 90);
  doc.moveDown(2);
  doc.font(REGULAR).fontSize(9.5).text(`Sted og dato: ______________________`, MARGIN, doc.y);
  doc.moveDown(2.5);
  const width = (doc.page.width - 2 * MARGIN) / 3;
  const y = doc.y;
  ['Styrets leder', 'Styremedlem', 'Daglig leder'].forEach((who, i) => {
    doc.moveTo(MARGIN + i * width, y).lineTo(MARGIN + (i + 1) * width - 20, y).lineWidth(0.5).stroke();
    doc.text(who, MARGIN + i * width, y + 4, { width: width - 20, lineBreak: false });
  });
  doc.x = MARGIN;
  doc.y = y + 20;
}

function table(doc: Doc, t: NoteTable): void {
  const width = doc.page.width - 2 * MARGIN;
  const n = Math.max(t.columns.length, 1);
  const first = n > 1 ? Math.min(width * 0.4, width - (n - 1) * 62) : width;
  const rest = n > 1 ? (width - first) / (n - 1) : 0;
  const row = (cells: readonly string[], bold: boolean) => {
    doc.font(bold ? BOLD : REGULAR).fontSize(9);
    const heights = cells.map((c, i) => doc.heightOfString(c, { width: (i === 0 ? first : rest) - 4 }));
    const h = Math.max(12, ...heights) + 3;
    ensureRoom(doc, h);
    const y = doc.y;
    let x = MARGIN;
    cells.forEach((c, i) => {
      const w = i === 0 ? first : rest;
      doc.text(c, x, y, { width: w - 4, align: i === 0 ? 'left' : 'right' });
      x += w;
    });
    doc.x = MARGIN;
    doc.y = y + h;
  };
  row(t.columns, true);
  // a table's total row ('Sum', as the generated fixed-asset note has it) is bold, as in the statements
  for (const r of t.rows) row(r, /^Sum\b/.test(r[0] ?? ''));
}

export function renderYearlyAccountPdf(a: YearlyAccountPdf): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      size: 'A4',
      margin: MARGIN,
      bufferPages: true,
      info: { Title: `Årsregnskap ${a.reportingYear} ${a.companyName}`, Producer: 'regnskap-api' },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);

    doc.font(BOLD).fontSize(26).text(`Årsregnskap ${a.reportingYear}`, MARGIN, 220, { align: 'center' });
    doc.moveDown();
    doc.font(REGULAR).fontSize(16).text(a.companyName, { align: 'center' });
    if (a.organizationNumber) doc.fontSize(12).text(`Org.nr. ${formatOrganizationNumber(a.organizationNumber)}`, { align: 'center' });
    doc.moveDown();
    doc.fontSize(11).text(`Regnskapsperiode ${norwegianDate(a.fromDate)} – ${norwegianDate(a.toDate)}`, { align: 'center' });
    doc.text('Resultatregnskap · Balanse · Noter', { align: 'center' });
    if (a.status === 'DRAFT') doc.moveDown().font(BOLD).text('UTKAST', { align: 'center' });

    const previousEnd = new Date(a.fromDate.getTime() - 86_400_000);
    figures(doc, a, 'Resultatregnskap', `${norwegianDate(a.fromDate)} – ${norwegianDate(a.toDate)}`, a.incomeStatement, [String(a.reportingYear), String(a.reportingYear - 1)]);
    figures(doc, a, 'Balanse', `Per ${norwegianDate(a.toDate)}`, a.balanceSheet, [norwegianDate(a.toDate), norwegianDate(previousEnd)]);
    signatures(doc);

    doc.addPage();
    pageHeader(doc, a);
    doc.font(BOLD).fontSize(16).text('Noter');
    for (const n of a.notes) {
      ensureRoom(doc, 60);
      doc.moveDown(0.8);
      doc.font(BOLD).fontSize(12).text(`Note ${n.noteNumber} ${n.title}`, MARGIN);
      doc.moveDown(0.3);
      if (n.bodyType === 'text') doc.font(REGULAR).fontSize(10).text(String(n.body), MARGIN, doc.y, { width: doc.page.width - 2 * MARGIN });
      else table(doc, n.body as NoteTable);
      if (n.footerText) doc.moveDown(0.3).font(REGULAR).fontSize(9).text(n.footerText, MARGIN, doc.y, { width: doc.page.width - 2 * MARGIN });
    }

    const range = doc.bufferedPageRange();
    for (let i = range.start; i < range.start + range.count; i++) {
      doc.switchToPage(i);
      const bottom = doc.page.margins.bottom;
      doc.page.margins.bottom = 0;
      doc.font(REGULAR).fontSize(8).text(`Side ${i + 1} av ${range.count}`, MARGIN, doc.page.height - MARGIN + 10, { width: doc.page.width - 2 * MARGIN, align: 'right', lineBreak: false });
      doc.page.margins.bottom = bottom;
    }
    doc.end();
  });
}
