import { getDocumentProxy } from 'unpdf';
import { FileProblem } from '../../../workers/file-problem.ts';
import { checkPdfInflation, DEFAULT_FILE_LIMITS, type FileLimits } from '../../files/file-limits.ts';

/** The most characters of a text layer kept (free_text searches it; the rules read it). */
export const MAX_EXTRACTED_TEXT = 200_000;

/**
 * The text layer of a PDF, pages separated by blank lines (pdf.js through unpdf; no OCR: a scan has
 * none): the pipeline's DATA_EXTRACTION step, in the heavy-work pool, within the file limits
 * (FileProblem otherwise). Page after page (pdf.js through unpdf), each page's items joined as unpdf's
 * extractText joins them, and no page read once MAX_EXTRACTED_TEXT characters are there: a long PDF
 * costs what its first pages cost (unpdf's extractText reads every page at once).
 */
export async function pdfText(bytes: Uint8Array, limits: FileLimits = DEFAULT_FILE_LIMITS): Promise<string> {
  await checkPdfInflation(bytes, limits.maxInflatedBytes);
  // pdf.js may take over (detach) the buffer it is given: give it a copy
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    if (pdf.numPages > limits.maxPdfPages) throw new FileProblem(`is a PDF of ${pdf.numPages} pages; at most ${limits.maxPdfPages} (MAX_PDF_PAGES) are read`, 'MAX_PDF_PAGES');
    const pages: string[] = [];
    let length = 0;
    for (let n = 1; n <= pdf.numPages && length < MAX_EXTRACTED_TEXT; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      const text = content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join('');
      page.cleanup();
      pages.push(text);
      length += text.length + 2;
    }
    return pages.join('\n\n').replace(/\u0000/g, '').slice(0, MAX_EXTRACTED_TEXT);
  } finally {
    await pdf.destroy();
  }
}
