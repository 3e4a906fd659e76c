import { fileTypeFromBuffer } from 'file-type';
import { EncryptedPDFError, PDFDocument } from '@pdfme/pdf-lib';
import { ValidationError } from '../../shared/errors.ts';
import { normaliseSniffed, PDF, sniffText } from './files.rules.ts';

/**
 * What the bytes of a file are, by their content alone (file-type's magic numbers; text by its
 * encoding): the name and the upload's Content-Type header never decide it. undefined: not known.
 */
export async function sniffContentType(bytes: Buffer, fileName: string): Promise<string | undefined> {
  const found = await fileTypeFromBuffer(bytes);
  if (found) return normaliseSniffed(found.mime);
  return sniffText(bytes, fileName) ?? undefined;
}

/** A PDF pdf-lib can read (not encrypted, at least one page): 400 naming the field otherwise. */
export async function loadPdf(bytes: Buffer | Uint8Array, field = 'file'): Promise<PDFDocument> {
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(bytes, { updateMetadata: false });
  } catch (e) {
    if (e instanceof EncryptedPDFError) throw ValidationError.field(field, 'is an encrypted PDF: upload it without a password or encryption');
    throw ValidationError.field(field, 'is a PDF that cannot be read (damaged or incomplete)');
  }
  if (doc.isEncrypted) throw ValidationError.field(field, 'is an encrypted PDF: upload it without a password or encryption');
  if (doc.getPageCount() < 1) throw ValidationError.field(field, 'is a PDF without pages');
  return doc;
}

/** Pages of a file: a PDF's page count, 1 for an image, null for anything else. */
export async function pageCountOf(bytes: Buffer, contentType: string, field = 'file'): Promise<number | null> {
  if (contentType === PDF) return (await loadPdf(bytes, field)).getPageCount();
  return contentType.startsWith('image/') ? 1 : null;
}

/** Page `page` (1-based) of a PDF as a PDF of its own (pdf-lib copyPages). */
export async function pdfPage(bytes: Buffer, page: number): Promise<Buffer> {
  const source = await PDFDocument.load(bytes, { updateMetadata: false });
  const out = await PDFDocument.create({ updateMetadata: false });
  out.setProducer('Accounting API');
  const [copied] = await out.copyPages(source, [page - 1]);
  out.addPage(copied);
  return Buffer.from(await out.save());
}
