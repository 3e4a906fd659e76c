import { createInflate, createInflateRaw } from 'node:zlib';
import { FileProblem } from '../../workers/file-problem.ts';

/**
 * The limits on what an uploaded file may make us do, where its format allows abuse: a small file
 * that asks for much memory or time once read. Checked in the heavy-work pool (src/workers/) at upload
 * (POST /files: a file beyond one is 400 naming the limit, and nothing is stored) and again by every
 * task that reads a stored file (a file stored before a limit was lowered).
 *
 * Each check reads the bytes as they are and counts; none keeps what it inflates (a worker thread's
 * memory limit bounds its JavaScript heap, not the buffers it allocates: counting in small pieces is
 * what keeps a bomb from ever taking the memory it asks for).
 */
export interface FileLimits {
  /** pages of a PDF (MAX_PDF_PAGES) */
  maxPdfPages: number;
  /** bytes a file's compressed parts may inflate to together: a PDF's Flate streams, a ZIP's entries (MAX_INFLATED_MB) */
  maxInflatedBytes: number;
  /** width × height of a JPEG or PNG image (MAX_IMAGE_PIXELS) */
  maxImagePixels: number;
  /** entries of a ZIP archive, office files included (MAX_ZIP_ENTRIES) */
  maxZipEntries: number;
}

export const DEFAULT_FILE_LIMITS: FileLimits = { maxPdfPages: 2000, maxInflatedBytes: 100 * 1024 * 1024, maxImagePixels: 50_000_000, maxZipEntries: 10_000 };

const MB = 1024 * 1024;
const megabytes = (bytes: number) => `${Math.round(bytes / MB)} MB`;

/** A counter over everything a file inflates to; throws FileProblem past the limit. */
class InflationBudget {
  total = 0;
  constructor(
    private readonly limit: number,
    private readonly what: string,
  ) {}
  add(n: number) {
    this.total += n;
    if (this.total > this.limit) {
      throw new FileProblem(`is ${this.what} whose compressed parts inflate to more than ${megabytes(this.limit)} (MAX_INFLATED_MB): a file this small cannot hold that much`, 'MAX_INFLATED_MB');
    }
  }
}

/**
 * Inflates `data` (zlib-wrapped, or raw deflate) with node:zlib's stream, which hands its output over
 * in 16 KB chunks: each is counted and dropped, and the stream is stopped past the limit. A damaged
 * stream ends the count (what it gave so far is counted): the reader says whether the file is usable.
 */
function inflateCounting(data: Uint8Array, raw: boolean, budget: InflationBudget): Promise<void> {
  return new Promise((resolve, reject) => {
    const inflater = raw ? createInflateRaw() : createInflate();
    let settled = false;
    const settle = (problem?: unknown) => {
      if (settled) return;
      settled = true;
      if (problem) reject(problem);
      else resolve();
    };
    inflater.on('data', (chunk: Buffer) => {
      try {
        budget.add(chunk.length);
      } catch (e) {
        inflater.destroy();
        settle(e);
      }
    });
    inflater.on('end', () => settle());
    inflater.on('error', () => settle());
    inflater.on('close', () => settle());
    inflater.end(data);
  });
}

const latin1 = (bytes: Uint8Array, from: number, to: number) => Buffer.from(bytes.buffer, bytes.byteOffset + from, Math.max(0, to - from)).toString('latin1');

/**
 * Every Flate-compressed stream of a PDF, found in its bytes (the keyword `stream` after a dictionary
 * naming FlateDecode), inflated and counted before any PDF reader touches the file: pdf-lib inflates
 * object streams while it loads, pdf.js content streams while it reads text. Encrypted or damaged
 * streams inflate to little and are left to the reader.
 */
export async function checkPdfInflation(bytes: Uint8Array, maxInflatedBytes: number): Promise<void> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const budget = new InflationBudget(maxInflatedBytes, 'a PDF');
  let at = 0;
  for (;;) {
    const keyword = buf.indexOf('stream', at, 'latin1');
    if (keyword < 0) return;
    at = keyword + 6;
    if (keyword >= 3 && latin1(buf, keyword - 3, keyword) === 'end') continue;
    // the data starts after CRLF or LF
    let start = at;
    if (buf[start] === 0x0d) start++;
    if (buf[start] !== 0x0a) continue;
    start++;
    const end = buf.indexOf('endstream', start, 'latin1');
    const stop = end < 0 ? buf.length : end;
    // the stream's dictionary: back to the object's start (at most 4 KB)
    const objectStart = buf.lastIndexOf(' obj', keyword, 'latin1');
    const dictionary = latin1(buf, Math.max(objectStart, keyword - 4096, 0), keyword);
    if (/\/FlateDecode\b|\/Fl\b/.test(dictionary)) await inflateCounting(buf.subarray(start, stop), false, budget);
    at = stop;
  }
}

/** Width and height of a PNG (its IHDR) or a JPEG (its first SOF marker); undefined when the header cannot be read. */
export function imageSize(bytes: Uint8Array, contentType: string): { width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (contentType === 'image/png') {
    if (bytes.length < 24) return undefined;
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (contentType === 'image/jpeg') {
    let at = 2;
    while (at + 9 < bytes.length) {
      if (bytes[at] !== 0xff) return undefined;
      const marker = bytes[at + 1];
      if (marker === 0xff) {
        at++;
        continue;
      }
      const length = view.getUint16(at + 2);
      // SOF0–SOF15 but DHT (C4), JPG (C8) and DAC (CC)
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
      }
      at += 2 + length;
    }
  }
  return undefined;
}

/** A JPEG or PNG of at most maxImagePixels pixels (a PNG is decoded whole when it becomes a PDF page). */
export function checkImagePixels(bytes: Uint8Array, contentType: string, maxImagePixels: number): void {
  const size = imageSize(bytes, contentType);
  if (size && size.width * size.height > maxImagePixels) {
    throw new FileProblem(
      `is an image of ${size.width} × ${size.height} = ${size.width * size.height} pixels; at most ${maxImagePixels} (MAX_IMAGE_PIXELS) are accepted`,
      'MAX_IMAGE_PIXELS',
    );
  }
}

/**
 * A ZIP archive (an uploaded .zip, and the office formats built on ZIP: .xlsx, .docx, .odt …): at most
 * maxZipEntries entries, inflating to at most maxInflatedBytes together. The central directory names
 * the entries; every deflated entry is inflated and counted whatever size its headers claim, a stored
 * one counts its bytes. Anything that is not a ZIP (no end-of-directory record) passes; a damaged
 * directory is left to whoever opens the archive (nothing here unpacks it).
 */
export async function checkZip(bytes: Uint8Array, limits: Pick<FileLimits, 'maxZipEntries' | 'maxInflatedBytes'>): Promise<void> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (buf.length < 22 || buf.readUInt32LE(0) !== 0x04034b50) return;
  // the end-of-central-directory record: within the last 64 KB + 22 bytes (its comment)
  let end = -1;
  for (let at = buf.length - 22; at >= Math.max(0, buf.length - 22 - 0xffff); at--) {
    if (buf.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) return;
  let entries = buf.readUInt16LE(end + 10);
  let directory = buf.readUInt32LE(end + 16);
  // ZIP64: the counts are in the ZIP64 end record, which its locator (just before) points to
  if ((entries === 0xffff || directory === 0xffffffff) && end >= 20 && buf.readUInt32LE(end - 20) === 0x07064b50) {
    const record = Number(buf.readBigUInt64LE(end - 12));
    if (record + 56 <= buf.length && buf.readUInt32LE(record) === 0x06064b50) {
      entries = Number(buf.readBigUInt64LE(record + 32));
      directory = Number(buf.readBigUInt64LE(record + 48));
    }
  }
  if (entries > limits.maxZipEntries) throw new FileProblem(`is a ZIP archive of more than ${limits.maxZipEntries} entries (MAX_ZIP_ENTRIES)`, 'MAX_ZIP_ENTRIES');
  const budget = new InflationBudget(limits.maxInflatedBytes, 'a ZIP archive');
  let at = directory;
  for (let i = 0; i < entries && at + 46 <= buf.length && buf.readUInt32LE(at) === 0x02014b50; i++) {
    const method = buf.readUInt16LE(at + 10);
    const compressed = buf.readUInt32LE(at + 20);
    const local = buf.readUInt32LE(at + 42);
    at += 46 + buf.readUInt16LE(at + 28) + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
    if (local + 30 > buf.length || buf.readUInt32LE(local) !== 0x04034b50) continue;
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    // the compressed size may be 0xffffffff (ZIP64) or 0 (a data descriptor follows): then up to the next header
    const stop = compressed !== 0xffffffff && compressed > 0 ? Math.min(buf.length, start + compressed) : buf.length;
    if (method === 8) await inflateCounting(buf.subarray(start, stop), true, budget);
    else if (compressed !== 0xffffffff) budget.add(compressed); // stored: no bigger than the file itself
  }
}
