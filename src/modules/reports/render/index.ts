import { REPORT_HTML_CSP, renderHtml } from './html.ts';
import type { ReportTable } from './model.ts';
import type { HeavyWork } from '../../../workers/heavy-work.ts';

export { REPORT_HTML_CSP } from './html.ts';

/** The file formats a report route answers besides JSON, by the media type of the Accept header. */
export const REPORT_MEDIA_TYPES = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  html: 'text/html',
  pdf: 'application/pdf',
} as const;

export type ReportMediaType = (typeof REPORT_MEDIA_TYPES)[keyof typeof REPORT_MEDIA_TYPES];

export interface RenderedReport {
  body: Buffer | string;
  /** the Content-Type header (HTML with its charset) */
  contentType: string;
  /** the download's name, for Content-Disposition */
  fileName: string;
  /**
   * headers the body needs besides Content-Type: the HTML page's Content-Security-Policy (its <style>
   * by hash), which must replace the API policy every response gets (that one blocks the style)
   */
  headers?: Record<string, string>;
}

/** A report table in one of the file formats: PDF and Excel are drawn in the heavy-work pool (src/workers/), HTML here. */
export async function renderReport(table: ReportTable, mediaType: ReportMediaType, heavy: HeavyWork): Promise<RenderedReport> {
  const drawn = async (format: 'pdf' | 'xlsx') => {
    const bytes = await heavy.run('renderReport', { table, format });
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
  switch (mediaType) {
    case REPORT_MEDIA_TYPES.xlsx:
      return { body: await drawn('xlsx'), contentType: mediaType, fileName: `${table.fileName}.xlsx` };
    case REPORT_MEDIA_TYPES.html:
      return {
        body: renderHtml(table),
        contentType: `${mediaType}; charset=utf-8`,
        fileName: `${table.fileName}.html`,
        headers: { 'Content-Security-Policy': REPORT_HTML_CSP },
      };
    case REPORT_MEDIA_TYPES.pdf:
      return { body: await drawn('pdf'), contentType: mediaType, fileName: `${table.fileName}.pdf` };
    default:
      throw new TypeError(`no renderer for ${String(mediaType)}`);
  }
}
