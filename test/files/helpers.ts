import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
