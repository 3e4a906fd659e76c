import { EncryptedPDFError, PDFDocument } from '@pdfme/pdf-lib';

/**
 * PDF work of merge and split (@pdfme/pdf-lib): loading a voucher's PDF, combining PDFs and images
 * into one PDF, cutting page ranges out of one. Pure functions of bytes; the service checks access and
 * writes the results.
 */

export const PDF = 'application/pdf';
/** Images that become PDF pages (pdf-lib embeds JPEG and PNG; HEIC, TIFF, WebP … stay attachments). */
export const PAGE_IMAGES = new Set(['image/jpeg', 'image/png']);

/** Whether a file can become pages of a merged PDF. */
export const isPdfable = (contentType: string): boolean => contentType === PDF || PAGE_IMAGES.has(contentType);

/** A PDF or image the service could not use, with the reason in words (a 400 names the voucher). */
export class UnusableFileError extends Error {}

const PRODUCER = 'Accounting API (voucher merge/split)';

/** A4 in points, the page an image is fitted on (portrait or landscape, as the image is). */
const A4 = { short: 595.28, long: 841.89 };

export async function loadPdf(bytes: Uint8Array): Promise<PDFDocument> {
  try {
    return await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: true });
  } catch (e) {
    if (e instanceof EncryptedPDFError) throw new UnusableFileError('is an encrypted PDF (remove the password first)');
    throw new UnusableFileError('is not a readable PDF');
  }
}

async function newPdf(): Promise<PDFDocument> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setProducer(PRODUCER);
  doc.setCreationDate(new Date());
  return doc;
}

async function addImagePage(doc: PDFDocument, bytes: Uint8Array, contentType: string): Promise<void> {
  let image;
  try {
    image = contentType === 'image/png' ? await doc.embedPng(bytes) : await doc.embedJpg(bytes);
  } catch {
    throw new UnusableFileError(`is not a readable ${contentType === 'image/png' ? 'PNG' : 'JPEG'} image`);
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
 * Throws UnusableFileError naming the index of the part that cannot be read.
 */
export async function combine(parts: readonly PdfPart[]): Promise<{ bytes: Buffer; pageCount: number }> {
  const out = await newPdf();
  for (const [i, part] of parts.entries()) {
    try {
      if (part.contentType === PDF) {
        const src = await loadPdf(part.bytes);
        const pages = await out.copyPages(src, src.getPageIndices());
        for (const p of pages) out.addPage(p);
      } else {
        await addImagePage(out, part.bytes, part.contentType);
      }
    } catch (e) {
      if (e instanceof UnusableFileError) throw Object.assign(e, { partIndex: i });
      throw Object.assign(new UnusableFileError(part.contentType === PDF ? 'is not a readable PDF' : 'is not a readable image'), { partIndex: i });
    }
  }
  return { bytes: Buffer.from(await out.save()), pageCount: out.getPageCount() };
}

/** One PDF per range (1-based, inclusive) of a loaded PDF. */
export async function cut(src: PDFDocument, ranges: readonly (readonly [number, number])[]): Promise<{ bytes: Buffer; pageCount: number }[]> {
  const out: { bytes: Buffer; pageCount: number }[] = [];
  for (const [start, end] of ranges) {
    const doc = await newPdf();
    const indices = Array.from({ length: end - start + 1 }, (_, k) => start - 1 + k);
    for (const p of await doc.copyPages(src, indices)) doc.addPage(p);
    out.push({ bytes: Buffer.from(await doc.save()), pageCount: indices.length });
  }
  return out;
}
