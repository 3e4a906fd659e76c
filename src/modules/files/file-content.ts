import { fileTypeFromBuffer } from 'file-type';
import { EncryptedPDFError, PDFDocument } from '@pdfme/pdf-lib';
import { FileProblem } from '../../workers/file-problem.ts';
import { checkImagePixels, checkPdfInflation, checkZip, type FileLimits } from './file-limits.ts';
import { normaliseSniffed, PDF, sniffText } from './files.rules.ts';

/**
 * Reading a file's bytes: what they are, its pages, a page of it. These run in the heavy-work pool
 * (src/workers/tasks.ts), never on the server's own thread; every reader applies the file limits
 * (file-limits.ts) before a library parses anything.
 */

/**
 * What the bytes of a file are, by their content alone (file-type's magic numbers; text by its
 * encoding): the name and the upload's Content-Type header never decide it. undefined: not known.
 */
export async function sniffContentType(bytes: Uint8Array, fileName: string): Promise<string | undefined> {
  const found = await fileTypeFromBuffer(bytes);
  if (found) return normaliseSniffed(found.mime);
  return sniffText(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), fileName) ?? undefined;
}

/** A PDF pdf-lib can read (not encrypted, 1 to maxPdfPages pages, its streams within the inflation limit); FileProblem otherwise. */
export async function readPdf(bytes: Uint8Array, limits: FileLimits): Promise<PDFDocument> {
  await checkPdfInflation(bytes, limits.maxInflatedBytes);
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(bytes, { updateMetadata: false });
  } catch (e) {
    if (e instanceof EncryptedPDFError) throw new FileProblem('is an encrypted PDF: upload it without a password or encryption');
    throw new FileProblem('is a PDF that cannot be read (damaged or incomplete)');
  }
  if (doc.isEncrypted) throw new FileProblem('is an encrypted PDF: upload it without a password or encryption');
  const pages = doc.getPageCount();
  if (pages < 1) throw new FileProblem('is a PDF without pages');
  if (pages > limits.maxPdfPages) throw new FileProblem(`is a PDF of ${pages} pages; at most ${limits.maxPdfPages} (MAX_PDF_PAGES) are accepted`, 'MAX_PDF_PAGES');
  return doc;
}

export interface FileFacts {
  /** sniffed from the bytes; undefined: not recognised */
  contentType: string | undefined;
  /** a PDF's pages, 1 for an image, null for anything else (and for a type not among `allowed`) */
  pageCount: number | null;
}

/**
 * What an upload is and how many pages it has, checked against the file limits: a PDF readable and
 * within its pages and inflation, an image within its pixels, a ZIP (office files too) within its
 * entries and inflation. A type not among `allowed` is only sniffed (the caller refuses it by type).
 */
export async function inspectFile(bytes: Uint8Array, fileName: string, limits: FileLimits, allowed?: readonly string[]): Promise<FileFacts> {
  const contentType = await sniffContentType(bytes, fileName);
  if (!contentType || (allowed && !allowed.includes(contentType))) return { contentType, pageCount: null };
  await checkZip(bytes, limits);
  if (contentType === PDF) return { contentType, pageCount: (await readPdf(bytes, limits)).getPageCount() };
  if (contentType.startsWith('image/')) {
    checkImagePixels(bytes, contentType, limits.maxImagePixels);
    return { contentType, pageCount: 1 };
  }
  return { contentType, pageCount: null };
}

/** Page `page` (1-based) of a PDF as a PDF of its own (pdf-lib copyPages). */
export async function pdfPage(bytes: Uint8Array, page: number, limits: FileLimits): Promise<Uint8Array> {
  const source = await readPdf(bytes, limits);
  const out = await PDFDocument.create({ updateMetadata: false });
  out.setProducer('Accounting API');
  const [copied] = await out.copyPages(source, [page - 1]);
  out.addPage(copied);
  return out.save();
}
