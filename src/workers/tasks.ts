import type { FileLimits } from '../modules/files/file-limits.ts';
import { inspectFile, pdfPage } from '../modules/files/file-content.ts';
import type { ReportTable } from '../modules/reports/render/model.ts';
import { renderPdf } from '../modules/reports/render/pdf.ts';
import { renderXlsx } from '../modules/reports/render/xlsx.ts';
import { pdfText } from '../modules/vouchers/pipeline/pipeline.read.ts';
import { combine, cut, type PdfPart } from '../modules/vouchers/voucher-pages.ts';

/**
 * The heavy-work tasks by name (src/workers/heavy-work.ts runs them in the worker pool): each takes
 * structured-cloneable input and the file limits, and reports a problem with its input by throwing
 * FileProblem. Bytes cross the thread boundary as Uint8Array (a Buffer arrives as one).
 */
export const tasks = {
  /** POST /files and stored receipts: the sniffed type and pages, within the file limits */
  inspectFile: (i: { bytes: Uint8Array; fileName: string; allowed?: readonly string[] }, limits: FileLimits) => inspectFile(i.bytes, i.fileName, limits, i.allowed),
  /** the voucher pipeline's DATA_EXTRACTION: a PDF's text layer */
  pdfText: (i: { bytes: Uint8Array }, limits: FileLimits) => pdfText(i.bytes, limits),
  /** a page of a PDF as a PDF (a file URL's page and thumbnail variants) */
  pdfPage: (i: { bytes: Uint8Array; page: number }, limits: FileLimits) => pdfPage(i.bytes, i.page, limits),
  /** POST /vouchers/merge */
  combinePdf: (i: { parts: PdfPart[] }, limits: FileLimits) => combine(i.parts, limits),
  /** POST /vouchers/split */
  cutPdf: (i: { bytes: Uint8Array; ranges: [number, number][] }, limits: FileLimits) => cut(i.bytes, i.ranges, limits),
  /** a report as an A4 PDF or an Excel workbook */
  renderReport: async (i: { table: ReportTable; format: 'pdf' | 'xlsx' }): Promise<Uint8Array> => (i.format === 'pdf' ? renderPdf(i.table) : renderXlsx(i.table)),
} satisfies Record<string, (input: any, limits: FileLimits) => Promise<unknown>>;

export type TaskName = keyof typeof tasks;
export type TaskInput<N extends TaskName> = Parameters<(typeof tasks)[N]>[0];
export type TaskOutput<N extends TaskName> = Awaited<ReturnType<(typeof tasks)[N]>>;
