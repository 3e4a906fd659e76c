import PDFDocument from 'pdfkit';
import { formatCell, isNumeric } from './format.ts';
import type { ReportRow, ReportTable } from './model.ts';

/**
 * The PDF of a report: A4 (landscape for more than six columns), Helvetica (its WinAnsi encoding has
 * æøå), the title and subtitle on the first page, the column headers on every page, "Side n av N" at
 * the foot of each. Figures are the HTML page's text (format.ts), right-aligned. Text too long for its
 * column (an account name) wraps onto further lines of the row, because a cut name is a different
 * account to the reader; only a single word wider than the column, and a header, end in an ellipsis.
 * Column widths follow the content; the font shrinks (9 to 6 pt) until the figures fit the page width.
 */

const PRODUCT = 'regnskap-api';
const MARGIN = 36;
const PAD = 3;
const INDENT = 8;
const FOOTER = 18;
const REGULAR = 'Helvetica';
const BOLD = 'Helvetica-Bold';

/** Narrowest a text column gets before the font shrinks. */
const MIN_TEXT_WIDTH = 48;

type Doc = PDFKit.PDFDocument;

interface Layout {
  fontSize: number;
  widths: number[];
}

function textOf(table: ReportTable, row: ReportRow, i: number): string {
  const column = table.columns[i];
  return formatCell(column.kind, row.cells[column.key] ?? null);
}

/** The widest text of each column (header and every cell) at a font size, plus the label column's indentation. */
function naturalWidths(doc: Doc, table: ReportTable, fontSize: number, labelIndex: number): number[] {
  doc.fontSize(fontSize);
  return table.columns.map((column, i) => {
    doc.font(BOLD);
    let w = doc.widthOfString(column.label);
    for (const row of table.rows) {
      doc.font(row.kind === 'detail' ? REGULAR : BOLD);
      const cw = doc.widthOfString(textOf(table, row, i)) + (i === labelIndex ? row.depth * INDENT : 0);
      if (cw > w) w = cw;
    }
    return Math.ceil(w) + 2 * PAD;
  });
}

/**
 * Figures always get their full width; text columns share what is left (the narrowest first, none
 * wider than it needs). The largest font at which the figures and the narrowest text columns fit wins.
 */
function layout(doc: Doc, table: ReportTable, available: number, labelIndex: number): Layout {
  let last: Layout | undefined;
  for (const fontSize of [9, 8, 7, 6]) {
    const natural = naturalWidths(doc, table, fontSize, labelIndex);
    const numeric = table.columns.map((c) => isNumeric(c.kind) || c.kind === 'date');
    const fixed = natural.reduce((sum, w, i) => sum + (numeric[i] ? w : 0), 0);
    const textIdx = natural.map((_, i) => i).filter((i) => !numeric[i]);
    const minText = textIdx.reduce((sum, i) => sum + Math.min(natural[i], MIN_TEXT_WIDTH), 0);
    const widths = [...natural];
    let remaining = available - fixed;
    const byNeed = [...textIdx].sort((a, b) => natural[a] - natural[b]);
    byNeed.forEach((i, k) => {
      const share = remaining / (byNeed.length - k);
      widths[i] = Math.max(Math.min(natural[i], share), Math.min(natural[i], MIN_TEXT_WIDTH));
      remaining -= widths[i];
    });
    last = { fontSize, widths };
    if (fixed + minText <= available) return last;
  }
  return last!;
}

/** The text cut to fit a width, ending in an ellipsis when cut (the font must be set). */
function fit(doc: Doc, text: string, width: number): string {
  if (doc.widthOfString(text) <= width) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (doc.widthOfString(`${text.slice(0, mid).trimEnd()}…`) <= width) lo = mid;
    else hi = mid - 1;
  }
  return lo > 0 ? `${text.slice(0, lo).trimEnd()}…` : '';
}

/**
 * The lines a text takes in a width, broken between words (the font must be set). A word wider than
 * the width cannot wrap, so it is cut with an ellipsis (fit).
 */
function wrapLines(doc: Doc, text: string, width: number): string[] {
  if (doc.widthOfString(text) <= width) return [text];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    if (doc.widthOfString(candidate) <= width) line = candidate;
    else {
      if (line) lines.push(line);
      line = doc.widthOfString(word) <= width ? word : fit(doc, word, width);
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** One line of text in a cell, left or right aligned, never wrapping (and so never adding a page). */
function cellText(doc: Doc, text: string, x: number, width: number, y: number, right: boolean, indent = 0): void {
  const inner = width - 2 * PAD - indent;
  const shown = fit(doc, text, Math.max(0, inner));
  if (!shown) return;
  const tx = right ? x + width - PAD - doc.widthOfString(shown) : x + PAD + indent;
  doc.text(shown, tx, y, { lineBreak: false });
}

export async function renderPdf(table: ReportTable): Promise<Buffer> {
  const landscape = table.columns.length > 6;
  const doc = new PDFDocument({
    size: 'A4',
    layout: landscape ? 'landscape' : 'portrait',
    margins: { top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN },
    bufferPages: true,
    info: { Title: `${table.title} – ${table.subtitle}`, Producer: PRODUCT, Creator: PRODUCT },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const pageWidth = doc.page.width;
  const pageHeight = doc.page.height;
  const available = pageWidth - 2 * MARGIN;
  const labelIndex = Math.max(0, table.columns.findIndex((c) => c.kind === 'text'));
  const { fontSize, widths } = layout(doc, table, available, labelIndex);
  const xs = widths.reduce<number[]>((acc, w, i) => [...acc, i === 0 ? MARGIN : acc[i - 1] + widths[i - 1]], []);
  const tableWidth = widths.reduce((a, b) => a + b, 0);
  const rowHeight = Math.ceil(fontSize * 1.5);
  const bottomLimit = pageHeight - MARGIN - FOOTER;

  // First page: title and subtitle.
  doc.font(BOLD).fontSize(14).text(table.title, MARGIN, MARGIN, { width: available });
  doc.font(REGULAR).fontSize(10).text(table.subtitle, MARGIN, doc.y + 2, { width: available });
  if (table.legend) doc.font('Helvetica-Oblique').fontSize(8).text(table.legend, MARGIN, doc.y + 2, { width: available });
  let y = doc.y + 10;

  const drawHeader = () => {
    doc.font(BOLD).fontSize(fontSize);
    table.columns.forEach((column, i) => cellText(doc, column.label, xs[i], widths[i], y, isNumeric(column.kind)));
    y += rowHeight;
    doc.moveTo(MARGIN, y - 3).lineTo(MARGIN + tableWidth, y - 3).lineWidth(0.7).stroke();
    y += 1;
  };
  drawHeader();

  const lineHeight = Math.ceil(fontSize * 1.2);
  const isWrapped = (i: number) => table.columns[i].kind === 'text';
  /** Each cell's lines (a text column wraps), at the row's font. */
  const linesOf = (row: ReportRow): string[][] => {
    doc.font(row.kind === 'detail' ? REGULAR : BOLD).fontSize(fontSize);
    return table.columns.map((_, i) => {
      const text = textOf(table, row, i);
      const inner = Math.max(0, widths[i] - 2 * PAD - (i === labelIndex ? row.depth * INDENT : 0));
      return text && isWrapped(i) ? wrapLines(doc, text, inner) : [text];
    });
  };
  const heightOf = (lines: string[][]) => rowHeight + (Math.max(1, ...lines.map((l) => l.length)) - 1) * lineHeight;

  table.rows.forEach((row, r) => {
    // A heading (a group row the next, deeper row belongs to) never ends a page alone.
    const next = table.rows[r + 1];
    const keepWithNext = row.kind === 'group' && next !== undefined && next.depth > row.depth;
    const lines = linesOf(row);
    const height = heightOf(lines);
    if (y + height + (keepWithNext ? rowHeight : 0) > bottomLimit) {
      doc.addPage();
      y = MARGIN;
      drawHeader();
    }
    if (row.kind === 'total') doc.moveTo(MARGIN, y - 2).lineTo(MARGIN + tableWidth, y - 2).lineWidth(0.7).stroke();
    doc.font(row.kind === 'detail' ? REGULAR : BOLD).fontSize(fontSize);
    table.columns.forEach((column, i) => {
      const indent = i === labelIndex ? row.depth * INDENT : 0;
      lines[i].forEach((text, l) => {
        if (text) cellText(doc, text, xs[i], widths[i], y + l * lineHeight, isNumeric(column.kind), indent);
      });
    });
    y += height;
  });

  // Page numbers, once the number of pages is known.
  const { start, count } = doc.bufferedPageRange();
  for (let p = start; p < start + count; p++) {
    doc.switchToPage(p);
    doc.font(REGULAR).fontSize(8);
    const label = `Side ${p - start + 1} av ${count}`;
    doc.text(label, pageWidth - MARGIN - doc.widthOfString(label), pageHeight - MARGIN - 10, { lineBreak: false });
  }
  doc.end();
  return done;
}
