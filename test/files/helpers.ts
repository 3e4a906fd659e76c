import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, crc32, deflateRawSync, deflateSync } from 'node:zlib';
import PDFDocument from 'pdfkit';
import { checkAgainstOpenApi, type HttpResult, type TestApp } from '../support/harness.ts';

/**
 * DATA_DIR of the apps of the file tests: one directory for all of them, because on PostgreSQL the
 * test files share one database, and the pipeline test's job worker may take the vouchers.process
 * jobs other files' uploads enqueue; with the same file store it can read their bytes. (Files are
 * small and the OS cleans its temporary directory.)
 */
export const TEST_FILES_DIR = join(tmpdir(), 'regnskap-api-test-files');

/** A PDF made here with pdfkit: one page per text (Helvetica: æøå print). */
export function makePdf(pages: string[], options: PDFKit.PDFDocumentOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ autoFirstPage: false, info: { CreationDate: new Date(0) }, ...options });
    const chunks: Buffer[] = [];
    doc.on('data', (b: Buffer) => chunks.push(b));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    for (const text of pages) {
      doc.addPage();
      doc.fontSize(14).text(text);
    }
    doc.end();
  });
}

/** A 1×1 PNG (red). */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

export interface UploadFile {
  bytes: Buffer;
  name: string;
  /** the part's Content-Type header (never believed) */
  type?: string;
}

/** POST /api/v2/files as multipart/form-data, the answer checked against the OpenAPI document. */
export async function upload(app: TestApp, fields: Record<string, string | number>, file: UploadFile | undefined, token?: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, String(v));
  if (file) form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' }), file.name);
  const res = await fetch(`${app.url}/api/v2/files`, { method: 'POST', headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers }, body: form });
  const text = await res.text();
  checkAgainstOpenApi({ method: 'POST', path: '/api/v2/files', status: res.status, contentType: res.headers.get('content-type'), text });
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* asserted by the caller */
  }
  return { status: res.status, headers: res.headers, body: body as never, text };
}

/** GET a presigned URL (no token), the answer checked against the OpenAPI document. */
export async function fetchUrl(url: string): Promise<{ status: number; headers: Headers; bytes: Buffer; json?: any }> {
  const res = await fetch(url);
  const bytes = Buffer.from(await res.arrayBuffer());
  const u = new URL(url);
  checkAgainstOpenApi({ method: 'GET', path: u.pathname + u.search, status: res.status, contentType: res.headers.get('content-type'), text: bytes.toString('latin1') });
  let json: unknown;
  if (/json/.test(res.headers.get('content-type') ?? '')) json = JSON.parse(bytes.toString('utf8'));
  return { status: res.status, headers: res.headers, bytes, json };
}

/**
 * A PDF written object by object (pdf-lib needs some 20 s for 20,000 pages on a loaded CI machine):
 * `pages` pages that all show one content stream of `linesPerPage` text lines, Flate-compressed. Small
 * as a file, as long or as wordy as a test needs.
 */
export function sharedContentPdf(pages: number, linesPerPage: number): Buffer {
  const lines = ['BT /F1 6 Tf 20 800 Td 8 TL'];
  for (let l = 0; l < linesPerPage; l++) lines.push(`(Linje ${l} Kaffebrenneriet Tromso AS sum 1234,50 kr betalt med kort) '`);
  lines.push('ET');
  return pdfOfObjects(pages, deflateSync(Buffer.from(lines.join('\n'), 'latin1')));
}

/**
 * Raw deflate data of `megabytes` MB of zeros, made without deflating them all: one MB deflated with a
 * full flush (a block that ends on a byte and needs nothing before it) repeated, then a final empty block.
 */
function zerosDeflated(megabytes: number): Buffer {
  const block = deflateRawSync(Buffer.alloc(1024 * 1024), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  return Buffer.concat([...Array.from({ length: megabytes }, () => block), Buffer.from([0x03, 0x00])]);
}

/** A PDF of one page whose content stream inflates to `megabytes` MB (zeros): a PDF bomb (its zlib checksum is wrong; it is never read that far). */
export function pdfBomb(megabytes: number): Buffer {
  return pdfOfObjects(1, Buffer.concat([Buffer.from([0x78, 0xda]), zerosDeflated(megabytes), Buffer.alloc(4)]));
}

/** A ZIP of one entry that inflates to `megabytes` MB of zeros: a ZIP bomb (its CRC is wrong; it is never read that far). */
export function zipBomb(megabytes: number): Buffer {
  return zipOf([{ name: 'nuller.bin', bytes: Buffer.alloc(0), deflated: zerosDeflated(megabytes), size: megabytes * 1024 * 1024 }]);
}

function pdfOfObjects(pages: number, content: Buffer): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${5 + i} 0 R`).join(' ');
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from(`<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
    Buffer.concat([Buffer.from(`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`), content, Buffer.from('\nendstream')]),
    ...Array.from({ length: pages }, () => Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>')),
  ];
  const parts = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let at = parts[0].length;
  objects.forEach((o, i) => {
    offsets.push(at);
    const b = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), o, Buffer.from('\nendobj\n')]);
    parts.push(b);
    at += b.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A ZIP archive of the entries (deflated), written with node:zlib: fflate needs seconds to deflate 200 MB. */
export function zipOf(entries: { name: string; bytes: Buffer; deflated?: Buffer; size?: number }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const data = e.deflated ?? deflateRawSync(e.bytes, { level: 9 });
    const size = e.size ?? e.bytes.length;
    const name = Buffer.from(e.name);
    const crc = crc32(e.bytes);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A PNG's signature and header claiming width × height (file-type knows it as a PNG; nothing else is read). */
export function pngClaiming(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'latin1');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr.writeUInt8(8, 16); // bit depth
  ihdr.writeUInt8(6, 17); // RGBA
  ihdr.writeUInt32BE(crc32(ihdr.subarray(4, 21)), 21);
  return Buffer.concat([PNG.subarray(0, 8), ihdr, PNG.subarray(33)]);
}
