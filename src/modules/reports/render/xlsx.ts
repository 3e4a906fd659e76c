import ExcelJS from 'exceljs';
import type { CellKind, ReportTable } from './model.ts';

/**
 * The Excel file of a report: one sheet named after the title, the title and subtitle on top, a bold
 * header row frozen under them, then the rows. Cells hold real numbers and real dates with number
 * formats (never the Norwegian text of html/pdf), so sums and filters work in the spreadsheet.
 */

export const MONEY_FORMAT = '#,##0.00;[Red]-#,##0.00';
export const INTEGER_FORMAT = '0';
export const DATE_FORMAT = 'dd.mm.yyyy';

/** The row of the column headers (1: title, 2: subtitle, 3: the legend or empty). */
export const XLSX_HEADER_ROW = 4;

const NUMBER_FORMATS: Partial<Record<CellKind, string>> = { money: MONEY_FORMAT, integer: INTEGER_FORMAT, date: DATE_FORMAT };

const MONEY_TEXT = /^-?\d+(\.\d+)?$/;

/** Excel forbids : \ / ? * [ ] in sheet names and allows 31 characters. */
const sheetName = (title: string): string => title.replace(/[:\\/?*[\]]/g, ' ').slice(0, 31) || 'Rapport';

/** 'YYYY-MM-DD' as a Date at UTC midnight (exceljs writes the serial from UTC). */
function isoToDate(value: string): Date | string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : value;
}

export async function renderXlsx(table: ReportTable): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'regnskap-api';
  const sheet = workbook.addWorksheet(sheetName(table.title), {
    views: [{ state: 'frozen', xSplit: 0, ySplit: XLSX_HEADER_ROW }],
    pageSetup: { paperSize: 9, orientation: table.columns.length > 6 ? 'landscape' : 'portrait', fitToPage: true, fitToWidth: 1, fitToHeight: 0 },
  });
  // Printing repeats the header row on every page.
  sheet.pageSetup.printTitlesRow = `${XLSX_HEADER_ROW}:${XLSX_HEADER_ROW}`;

  const title = sheet.getCell(1, 1);
  title.value = table.title;
  title.font = { bold: true, size: 14 };
  sheet.getCell(2, 1).value = table.subtitle;
  if (table.legend) {
    const legend = sheet.getCell(3, 1);
    legend.value = table.legend;
    legend.font = { italic: true };
  }

  const header = sheet.getRow(XLSX_HEADER_ROW);
  table.columns.forEach((column, i) => {
    const cell = header.getCell(i + 1);
    cell.value = column.label;
    cell.font = { bold: true };
    cell.border = { bottom: { style: 'thin' } };
    if (column.kind === 'money' || column.kind === 'integer') cell.alignment = { horizontal: 'right' };
  });

  // Indentation goes on the first text column, the one that names the account or group.
  const labelIndex = Math.max(0, table.columns.findIndex((c) => c.kind === 'text'));
  const widths = table.columns.map((c) => Math.max(c.label.length, c.kind === 'money' ? 14 : c.kind === 'date' ? 10 : 4));

  table.rows.forEach((row, r) => {
    const xlsxRow = sheet.getRow(XLSX_HEADER_ROW + 1 + r);
    table.columns.forEach((column, i) => {
      const value = row.cells[column.key];
      if (value === null || value === undefined) return;
      const cell = xlsxRow.getCell(i + 1);
      if (column.kind === 'date' && typeof value === 'string') cell.value = isoToDate(value);
      else if ((column.kind === 'money' || column.kind === 'integer') && typeof value === 'number') cell.value = value;
      // a money cell's decimal text as a number cell (Excel holds doubles: 15 significant digits)
      else if (column.kind === 'money' && typeof value === 'string' && MONEY_TEXT.test(value)) cell.value = Number(value);
      else cell.value = String(value);
      const numFmt = NUMBER_FORMATS[column.kind];
      if (numFmt) cell.numFmt = numFmt;
      if (i === labelIndex && row.depth > 0) cell.alignment = { indent: row.depth };
      const shown = column.kind === 'text' ? String(value).length + row.depth * (i === labelIndex ? 2 : 0) : 0;
      widths[i] = Math.max(widths[i], Math.min(shown, 60));
    });
    if (row.kind !== 'detail') xlsxRow.font = { bold: true };
    if (row.kind === 'total') {
      table.columns.forEach((_, i) => {
        xlsxRow.getCell(i + 1).border = { top: { style: 'thin' }, bottom: { style: 'double' } };
      });
    }
  });

  widths.forEach((w, i) => {
    sheet.getColumn(i + 1).width = w + 2;
  });

  const data = await workbook.xlsx.writeBuffer();
  return Buffer.from(data as ArrayBuffer);
}
