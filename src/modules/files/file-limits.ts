import { Inflate, Unzip, UnzipInflate, Unzlib } from 'fflate';
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

/** Input is fed to the inflater in pieces this small, so one piece inflates to at most ~1,032 times it (deflate's ceiling): 4 MB. */
const PIECE = 4096;

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

/** Feeds `data` to a streaming inflater in small pieces; its output is counted and dropped. A damaged stream ends the count (what it gave so far is counted). */
function inflateCounting(data: Uint8Array, budget: InflationBudget): void {
  const zlibHeader = data.length > 1 && (data[0] & 0x0f) === 8 && ((data[0] << 8) | data[1]) % 31 === 0;
  const inflater = zlibHeader ? new Unzlib() : new Inflate();
  inflater.ondata = (chunk) => budget.add(chunk.length);
  try {
    for (let at = 0; at < data.length; at += PIECE) inflater.push(data.subarray(at, Math.min(at + PIECE, data.length)), at + PIECE >= data.length);
  } catch (e) {
    if (e instanceof FileProblem) throw e;
    // a damaged or truncated stream: not ours to judge here (the PDF reader says whether the file can be read)
  }
}

const latin1 = (bytes: Uint8Array, from: number, to: number) => Buffer.from(bytes.buffer, bytes.byteOffset + from, Math.max(0, to - from)).toString('latin1');

/**
 * Every Flate-compressed stream of a PDF, found in its bytes (the keyword `stream` after a dictionary
 * naming FlateDecode), inflated and counted before any PDF reader touches the file: pdf-lib inflates
 * object streams while it loads, pdf.js content streams while it reads text. Encrypted or damaged
 * streams inflate to little and are left to the reader.
 */
export function checkPdfInflation(bytes: Uint8Array, maxInflatedBytes: number): void {
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
    if (/\/FlateDecode\b|\/Fl\b/.test(dictionary)) inflateCounting(buf.subarray(start, stop), budget);
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

const isZip = (bytes: Uint8Array) => bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

/**
 * A ZIP archive (an uploaded .zip, and the office formats built on ZIP: .xlsx, .docx, .odt …): at most
 * maxZipEntries entries, inflating to at most maxInflatedBytes together. Every entry is inflated and
 * counted, whatever sizes its headers claim. Anything else passes.
 */
export function checkZip(bytes: Uint8Array, limits: Pick<FileLimits, 'maxZipEntries' | 'maxInflatedBytes'>): void {
  if (!isZip(bytes)) return;
  const budget = new InflationBudget(limits.maxInflatedBytes, 'a ZIP archive');
  let entries = 0;
  const unzip = new Unzip((file) => {
    if (++entries > limits.maxZipEntries) {
      throw new FileProblem(`is a ZIP archive of more than ${limits.maxZipEntries} entries (MAX_ZIP_ENTRIES)`, 'MAX_ZIP_ENTRIES');
    }
    file.ondata = (err, chunk) => {
      if (!err) budget.add(chunk.length);
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  try {
    for (let at = 0; at < bytes.length; at += PIECE) unzip.push(bytes.subarray(at, Math.min(at + PIECE, bytes.length)), at + PIECE >= bytes.length);
  } catch (e) {
    if (e instanceof FileProblem) throw e;
    // a damaged archive: it is stored as the bytes it is (nothing here unpacks it)
  }
}
