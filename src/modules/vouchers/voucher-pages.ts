import { EncryptedPDFError, PDFDocument } from '@pdfme/pdf-lib';
import { FileProblem } from '../../workers/file-problem.ts';
import { checkImagePixels, checkPdfInflation, type FileLimits } from '../files/file-limits.ts';

/**
 * PDF work of merge and split (@pdfme/pdf-lib): loading a voucher's PDF, combining PDFs and images
 * into one PDF, cutting page ranges out of one. Pure functions of bytes, run in the heavy-work pool
 * (src/workers/tasks.ts) within the file limits; the service checks access and writes the results.
 */

export const PDF = 'application/pdf';
/** Images that become PDF pages (pdf-lib embeds JPEG and PNG; HEIC, TIFF, WebP … stay attachments). */
export const PAGE_IMAGES = new Set(['image/jpeg', 'image/png']);

/** Whether a file can become pages of a merged PDF. */
export const isPdfable = (contentType: string): boolean => contentType === PDF || PAGE_IMAGES.has(contentType);

const PRODUCER = 'Accounting API (voucher merge/split)';

/** A4 in points, the page an image is fitted on (portrait or landscape, as the image is). */
const A4 = { short: 595.28, long: 841.89 };

/** A stored voucher's PDF, within the file limits (FileProblem with the reason in words otherwise: a 400 names the voucher). */
async function loadPdf(bytes: Uint8Array, limits: FileLimits): Promise<PDFDocument> {
  await checkPdfInflation(bytes, limits.maxInflatedBytes);
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: true });
  } catch (e) {
    if (e instanceof EncryptedPDFError) throw new FileProblem('is an encrypted PDF (remove the password first)');
    throw new FileProblem('is not a readable PDF');
  }
  const pages = doc.getPageCount();
  if (pages > limits.maxPdfPages) throw new FileProblem(`is a PDF of ${pages} pages; at most ${limits.maxPdfPages} (MAX_PDF_PAGES) are read`, 'MAX_PDF_PAGES');
  return doc;
}

async function newPdf(): Promise<PDFDocument> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setProducer(PRODUCER);
  doc.setCreationDate(new Date());
  return doc;
}

async function addImagePage(doc: PDFDocument, bytes: Uint8Array, contentType: string, limits: FileLimits): Promise<void> {
  checkImagePixels(bytes, contentType, limits.maxImagePixels);
  let image;
  try {
    image = contentType === 'image/png' ? await doc.embedPng(bytes) : await doc.embedJpg(bytes);
  } catch {
    throw new FileProblem(`is not a readable ${contentType === 'image/png' ? 'PNG' : 'JPEG'} image`);
  }
  const landscape = image.width > image.height;
  const [w, h] = landscape ? [A4.long, A4.short] : [A4.short, A4.long];
  const scale = Math.min(w / image.width, h / image.height);
  const page = doc.addPage([w, h]);
  const [iw, ih] = [image.width * scale, image.height * scale];
  page.drawImage(image, { x: (w - iw) / 2, y: (h - ih) / 2, width: iw, height: ih });
}

export interface PdfPart {
  bytes: Uint8Array;
  contentType: string;
}

/**
 * One PDF of the parts in their order: every page of each PDF, each image on a page of its own.
 * Throws FileProblem with the index of the part that cannot be read; the result has at most
 * maxPdfPages pages.
 */
export async function combine(parts: readonly PdfPart[], limits: FileLimits): Promise<{ bytes: Uint8Array; pageCount: number }> {
  const out = await newPdf();
  for (const [i, part] of parts.entries()) {
    try {
      if (part.contentType === PDF) {
        const src = await loadPdf(part.bytes, limits);
        const pages = await out.copyPages(src, src.getPageIndices());
        for (const p of pages) out.addPage(p);
      } else {
        await addImagePage(out, part.bytes, part.contentType, limits);
      }
    } catch (e) {
      if (e instanceof FileProblem) throw new FileProblem(e.message, e.limit, i);
      throw new FileProblem(part.contentType === PDF ? 'is not a readable PDF' : 'is not a readable image', undefined, i);
    }
    if (out.getPageCount() > limits.maxPdfPages) {
      throw new FileProblem(`would make the merged PDF more than ${limits.maxPdfPages} pages long (MAX_PDF_PAGES)`, 'MAX_PDF_PAGES', i);
    }
  }
  return { bytes: await out.save(), pageCount: out.getPageCount() };
}

/**
 * One PDF per range (1-based, inclusive) of a PDF, when every range lies within its pages; else only
 * its page count (the service words the ranges' problems).
 */
export async function cut(
  bytes: Uint8Array,
  ranges: readonly (readonly [number, number])[],
  limits: FileLimits,
): Promise<{ pageCount: number; pieces: { bytes: Uint8Array; pageCount: number }[] | null }> {
  let src: PDFDocument;
  try {
    src = await loadPdf(bytes, limits);
  } catch (e) {
    if (e instanceof FileProblem) throw e;
    throw new FileProblem('is not a readable PDF');
  }
  const pageCount = src.getPageCount();
  if (pageCount < 2 || ranges.some(([start, end]) => start < 1 || end > pageCount || start > end)) return { pageCount, pieces: null };
  const pieces: { bytes: Uint8Array; pageCount: number }[] = [];
  try {
    for (const [start, end] of ranges) {
      const doc = await newPdf();
      const indices = Array.from({ length: end - start + 1 }, (_, k) => start - 1 + k);
      for (const p of await doc.copyPages(src, indices)) doc.addPage(p);
      pieces.push({ bytes: await doc.save(), pageCount: indices.length });
    }
  } catch {
    throw new FileProblem('is not a readable PDF');
  }
  return { pageCount, pieces };
}
