/**
 * A plain streaming XML writer (shared/notes/libraries.md "streaming XML"): text is collected in a
 * buffer of about 64 KB and written to the stream in one piece; when the stream says it is full
 * (write() returns false) the writer waits for `drain` before it goes on, so memory stays bounded
 * however large the document is and however slow the reader.
 *
 * No indentation: a SAF-T file of a busy company has millions of lines, and whitespace would only
 * make it larger. Element names are trusted (ours); text is escaped.
 */

const FLUSH_AT = 64 * 1024;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
// Characters XML 1.0 cannot carry at all (C0 controls except tab, line feed and carriage return, and
// the non-characters U+FFFE/U+FFFF) are dropped; a lone surrogate half is dropped too.
const INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeXml(text: string): string {
  return text.replace(INVALID, '').replace(/[&<>"]/g, (c) => ESCAPES[c]!);
}

/**
 * At most `max` characters (the XSD's maxLength counts characters), trimmed; a surrogate pair is
 * never cut in half.
 */
export function clip(text: string, max: number): string {
  const t = text.trim();
  if (t.length <= max) return t;
  let cut = t.slice(0, max);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut.trimEnd();
}

export class XmlWriter {
  private parts: string[] = [];
  private size = 0;
  private failure: Error | undefined;
  private readonly onError = (e: Error) => {
    this.failure ??= e;
  };

  constructor(private readonly out: NodeJS.WritableStream) {
    out.on('error', this.onError);
  }

  /** `<?xml …?>` and the root's start tag with its namespace. */
  declaration(): void {
    this.raw('<?xml version="1.0" encoding="UTF-8"?>\n');
  }

  open(name: string, attributes?: Record<string, string>): Promise<void> | void {
    const attrs = attributes ? Object.entries(attributes).map(([k, v]) => ` ${k}="${escapeXml(v)}"`).join('') : '';
    return this.raw(`<${name}${attrs}>`);
  }

  close(name: string): Promise<void> | void {
    return this.raw(`</${name}>`);
  }

  /** `<name>text</name>`; nothing for null/undefined (optional elements). */
  leaf(name: string, value: string | number | null | undefined): Promise<void> | void {
    if (value === null || value === undefined) return;
    return this.raw(`<${name}>${escapeXml(String(value))}</${name}>`);
  }

  /** Appends markup as is; returns a promise only when the buffer was flushed into a full stream. */
  raw(text: string): Promise<void> | void {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= FLUSH_AT) return this.flush();
  }

  /** Writes the buffer out; resolves once the stream can take more (after `drain` when it was full). */
  async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.parts.length) return;
    const chunk = this.parts.join('');
    this.parts = [];
    this.size = 0;
    if (!this.out.write(chunk, 'utf8')) await this.drained();
    if (this.failure) throw this.failure;
  }

  /** Flushes the rest and lets go of the stream (it is not ended: the caller owns it). */
  async finish(): Promise<void> {
    await this.flush();
    this.out.off('error', this.onError);
  }

  private drained(): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = () => {
        this.out.off('drain', done);
        this.out.off('close', closed);
        this.out.off('error', failed);
        resolve();
      };
      const closed = () => {
        this.out.off('drain', done);
        this.out.off('error', failed);
        reject(this.failure ?? new Error('The output stream closed before the SAF-T file was written'));
      };
      const failed = (e: Error) => {
        this.out.off('drain', done);
        this.out.off('close', closed);
        reject(e);
      };
      this.out.once('drain', done);
      this.out.once('close', closed);
      this.out.once('error', failed);
    });
  }
}
