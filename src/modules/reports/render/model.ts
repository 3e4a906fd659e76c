/**
 * One report model for every file format. A report's JSON answer (the rows the REST route and the
 * GraphQL field return) is turned into a `ReportTable` once (reports.presenters.ts); the Excel,
 * HTML and PDF renderers draw that table and nothing else, so the formats cannot disagree with
 * the JSON: every money cell is the JSON's figure, every text cell the JSON's text.
 */

/** How a column's cells are written: money with two decimals, whole numbers, ISO dates, text. */
export type CellKind = 'text' | 'money' | 'integer' | 'date';

export interface ReportColumn {
  key: string;
  /** the header, in Norwegian (the reports are for Norwegian books) */
  label: string;
  kind: CellKind;
}

/**
 * A cell: money as its decimal text with two decimals ('1250.50', exact however large; a number is
 * taken too), a number for integer columns, 'YYYY-MM-DD' for dates, text otherwise; null is empty.
 */
export type Cell = string | number | null;

export interface ReportRow {
  /** `group`: a heading or subtotal of a grouping level (bold); `total`: a grand total; `detail`: an account or a line */
  kind: 'group' | 'detail' | 'total';
  /** 0 for the top level; renderers indent by it */
  depth: number;
  cells: Record<string, Cell>;
}

/**
 * A small chart for the HTML page: bars of a series (the monthly result), or two stacked sides
 * (assets against equity and liabilities). Values are money as decimal text, as cells are.
 */
export type ReportChart =
  | { kind: 'bars'; title: string; bars: { label: string; value: string }[] }
  | { kind: 'split'; title: string; sides: { label: string; parts: { label: string; value: string }[] }[] };

export interface ReportTable {
  /** e.g. 'Saldobalanse' */
  title: string;
  /** company, organisation number and period, e.g. 'Demo AS (999 999 999) · 01.01.2025–31.12.2025' */
  subtitle: string;
  /** a line under the subtitle saying how to read the figures, e.g. the presentation's sign convention */
  legend?: string;
  /** base of the download's file name, e.g. 'saldobalanse-2025-01-01-2025-12-31' */
  fileName: string;
  columns: ReportColumn[];
  rows: ReportRow[];
  chart?: ReportChart;
}
