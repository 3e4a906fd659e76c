import PDFDocument from 'pdfkit';
import { formatDate } from '../../shared/scalars.ts';
import { nok, type FigureLine, type Note, type NoteTable } from './yearly-accounts.rules.ts';

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

function figures(doc: Doc, title: string, lines: readonly FigureLine[], year: number, previousLabel: string): void {
  doc.addPage();
  doc.font(BOLD).fontSize(16).text(title);
  doc.moveDown(0.5);
  const width = doc.page.width - 2 * MARGIN;
  const [labelW, numW] = [width - 220, 110];
  const row = (cells: [string, string, string], bold: boolean) => {
    ensureRoom(doc, 16);
    const y = doc.y;
    doc.font(bold ? BOLD : REGULAR).fontSize(10);
    doc.text(cells[0], MARGIN, y, { width: labelW, lineBreak: false });
    doc.text(cells[1], MARGIN + labelW, y, { width: numW, align: 'right', lineBreak: false });
    doc.text(cells[2], MARGIN + labelW + numW, y, { width: numW, align: 'right', lineBreak: false });
    doc.x = MARGIN;
    doc.y = y + 16;
  };
  row(['', String(year), previousLabel], true);
  for (const l of lines) row([l.label, nok(l.amount), nok(l.previousAmount)], l.isSum);
}

function table(doc: Doc, t: NoteTable): void {
  const width = doc.page.width - 2 * MARGIN;
  const n = Math.max(t.columns.length, 1);
  const first = n > 1 ? Math.min(width * 0.4, width - (n - 1) * 70) : width;
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
  for (const r of t.rows) row(r, false);
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
    if (a.organizationNumber) doc.fontSize(12).text(`Organisasjonsnummer ${a.organizationNumber}`, { align: 'center' });
    doc.moveDown();
    doc.fontSize(11).text(`Regnskapsperiode ${formatDate(a.fromDate)} – ${formatDate(a.toDate)}`, { align: 'center' });
    doc.text('Resultatregnskap · Balanse · Noter', { align: 'center' });
    if (a.status === 'DRAFT') doc.moveDown().font(BOLD).text('UTKAST', { align: 'center' });

    figures(doc, 'Resultatregnskap', a.incomeStatement, a.reportingYear, String(a.reportingYear - 1));
    figures(doc, 'Balanse', a.balanceSheet, a.reportingYear, String(a.reportingYear - 1));

    doc.addPage();
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
