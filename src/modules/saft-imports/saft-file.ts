import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, writeSync } from 'node:fs';
import { copyFile, open, rm, stat } from 'node:fs/promises';
import { Unzip, UnzipInflate } from 'fflate';
import { ValidationError } from '../../shared/errors.ts';
import { SaftReader, type SaftNode as Node, type SaftReaderHandlers } from '../reports/saft/saft-reader.ts';

/**
 * A SAF-T Financial 1.30 file as the import maps it (README "Mapping"), read in streaming passes
 * (saft-reader.ts): the Header and MasterFiles as SaftHead, the transactions one at a time. Amounts
 * stay decimal strings (the ledger's Decimal takes them exactly).
 */

/**
 * The most XML the import takes by default (a ZIP's entry inflated, counted as it inflates): 1 GiB,
 * some 3,000,000 lines; SAFT_IMPORT_MAX_XML_MB sets it. The file is only ever on disk, so this
 * bounds disk and time, not memory.
 */
export const MAX_SAFT_XML_BYTES = 1024 * 1024 * 1024;

export interface SaftAmount {
  amount: string;
  currencyCode?: string;
  currencyAmount?: string;
  exchangeRate?: string;
}

export interface SaftLine {
  recordId: string;
  accountId: string;
  customerId?: string;
  supplierId?: string;
  analysis: { type: string; id: string }[];
  valueDate?: string;
  description?: string;
  debit: boolean;
  amount: SaftAmount;
  tax?: { code?: string; base?: string; amount: string; debit: boolean };
  quantity?: string;
}

export interface SaftTransaction {
  journalId: string;
  transactionId: string;
  transactionDate: string;
  voucherType?: string;
  description: string;
  lines: SaftLine[];
}

export interface SaftParty {
  kind: 'customer' | 'supplier';
  id: string;
  name: string;
  registrationNumber?: string;
  balances: { accountId: string; opening: string }[];
}

/** The Header and MasterFiles: everything but the transactions. */
export interface SaftHead {
  version: string;
  registrationNumber: string;
  companyName: string;
  currency: string;
  start: string;
  end: string;
  accounts: { id: string; description: string; groupingCategory?: string; groupingCode?: string; opening: string }[];
  parties: SaftParty[];
  /** TaxCode → StandardTaxCode */
  taxCodes: Map<string, string>;
  analysis: { type: string; id: string; description: string }[];
}

const text = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v).trim());
const signed = (n: Node, which: 'Opening' | 'Closing'): string => {
  const d = text(n[`${which}DebitBalance`]);
  const c = text(n[`${which}CreditBalance`]);
  if (d !== undefined) return d;
  if (c !== undefined) return c.startsWith('-') ? c.slice(1) : `-${c}`;
  return '0';
};
const amountOf = (n: Node | undefined): SaftAmount => ({
  amount: text(n?.Amount) ?? '0',
  currencyCode: text(n?.CurrencyCode),
  currencyAmount: text(n?.CurrencyAmount),
  exchangeRate: text(n?.ExchangeRate),
});
const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);

/** The Header and MasterFiles as the import maps them (a file that validated against the XSD: every mandatory element is there). */
export function headOf(header: Node, master: Node): SaftHead {
  const selection = (header.SelectionCriteria ?? {}) as Node;
  const start =
    text(selection.SelectionStartDate) ??
    `${text(selection.PeriodStartYear)}-${String(text(selection.PeriodStart)).padStart(2, '0')}-01`;
  const end = text(selection.SelectionEndDate) ?? lastDay(Number(selection.PeriodEndYear), Number(selection.PeriodEnd));
  const parties: SaftParty[] = [];
  for (const [kind, list] of [['customer', master.Customers?.Customer], ['supplier', master.Suppliers?.Supplier]] as const) {
    for (const p of (list ?? []) as Node[]) {
      parties.push({
        kind,
        id: String(kind === 'customer' ? p.CustomerID : p.SupplierID),
        name: text(p.Name) ?? '',
        registrationNumber: text(p.RegistrationNumber),
        balances: ((p.BalanceAccount ?? []) as Node[]).filter((b) => b.AccountID !== undefined).map((b) => ({ accountId: String(b.AccountID), opening: signed(b, 'Opening') })),
      });
    }
  }
  const taxCodes = new Map<string, string>();
  for (const entry of (master.TaxTable?.TaxTableEntry ?? []) as Node[]) for (const d of (entry.TaxCodeDetails ?? []) as Node[]) taxCodes.set(String(d.TaxCode), String(d.StandardTaxCode));
  return {
    version: String(header.AuditFileVersion),
    registrationNumber: String(header.Company?.RegistrationNumber ?? ''),
    companyName: String(header.Company?.Name ?? ''),
    currency: String(header.DefaultCurrencyCode ?? 'NOK'),
    start,
    end,
    accounts: ((master.GeneralLedgerAccounts?.Account ?? []) as Node[]).map((a) => ({
      id: String(a.AccountID),
      description: text(a.AccountDescription) ?? String(a.AccountID),
      groupingCategory: text(a.GroupingCategory),
      groupingCode: text(a.GroupingCode),
      opening: signed(a, 'Opening'),
    })),
    parties,
    taxCodes,
    analysis: ((master.AnalysisTypeTable?.AnalysisTypeTableEntry ?? []) as Node[]).map((e) => ({
      type: String(e.AnalysisType),
      id: String(e.AnalysisID),
      description: text(e.AnalysisIDDescription) ?? String(e.AnalysisID),
    })),
  };
}

/** One Transaction of a Journal as the import maps it. */
export function transactionOf(journal: Node, t: Node): SaftTransaction {
  const lines = ((t.Line ?? []) as Node[]).map((l): SaftLine => {
    const debit = l.DebitAmount !== undefined;
    const tax = ((l.TaxInformation ?? []) as Node[])[0];
    const taxDebit = tax?.DebitTaxAmount !== undefined;
    return {
      recordId: String(l.RecordID),
      accountId: String(l.AccountID),
      customerId: text(l.CustomerID),
      supplierId: text(l.SupplierID),
      analysis: ((l.Analysis ?? []) as Node[]).map((a) => ({ type: String(a.AnalysisType), id: String(a.AnalysisID) })),
      valueDate: text(l.ValueDate),
      description: text(l.Description),
      debit,
      amount: amountOf(debit ? l.DebitAmount : l.CreditAmount),
      tax: tax ? { code: text(tax.TaxCode), base: text(tax.TaxBase), amount: text((taxDebit ? tax.DebitTaxAmount : tax.CreditTaxAmount)?.Amount) ?? '0', debit: taxDebit } : undefined,
      quantity: text(l.Quantity),
    };
  });
  return {
    journalId: String(journal.JournalID),
    transactionId: String(t.TransactionID),
    transactionDate: String(t.TransactionDate),
    voucherType: text(t.VoucherType),
    description: text(t.Description) ?? '',
    lines,
  };
}

/**
 * One streaming pass over the XML file at `path` (64 KB at a time; never more of it in memory):
 * the reader's handlers see the master files and each transaction as they come, `afterChunk` is
 * awaited after every piece (the job posts the transactions gathered so far there, so reading waits
 * for the database). Answers the SHA-256 of the bytes and the reader (root, ledger totals). XML that
 * is not well-formed is a 400 naming the line.
 */
export async function readSaftFile(path: string, handlers: SaftReaderHandlers, afterChunk?: () => Promise<void>): Promise<{ hash: string; reader: SaftReader }> {
  const reader = new SaftReader(handlers);
  const hash = createHash('sha256');
  const input = createReadStream(path, { highWaterMark: 1 << 16 });
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      hash.update(chunk);
      try {
        reader.write(chunk);
      } catch (e) {
        if (e instanceof ValidationError) throw e;
        throw ValidationError.field('file', `is not well-formed XML: line ${reader.line}: ${(e as Error).message}`);
      }
      if (afterChunk) await afterChunk();
    }
    try {
      reader.end();
    } catch (e) {
      if (e instanceof ValidationError) throw e;
      throw ValidationError.field('file', `is not well-formed XML: line ${reader.line}: ${(e as Error).message}`);
    }
    if (afterChunk) await afterChunk();
  } finally {
    input.destroy();
  }
  return { hash: hash.digest('hex'), reader };
}

const ZIP_MAGIC = [0x04034b50, 0x06054b50];

/**
 * The XML of an upload onto disk at `target`: the file itself (copied), or the one .xml entry of a
 * ZIP inflated by fflate's streaming Unzip, 64 KB of the ZIP at a time, counting the inflated bytes
 * as they come (whatever the ZIP declares) and stopping at `maxBytes`. `source` is the
 * upload on disk (a multipart body) or in memory (a JSON body's base64). 400 for a ZIP that is not
 * readable, holds no or several .xml entries, or inflates beyond the limit, and for XML beyond it;
 * `target` is removed then.
 */
export async function spoolSaftXml(source: Buffer | string, target: string, maxBytes = MAX_SAFT_XML_BYTES): Promise<{ bytes: number }> {
  const head = typeof source === 'string' ? await firstBytes(source, 4) : source.subarray(0, 4);
  const isZip = head.length >= 4 && ZIP_MAGIC.includes(head.readUInt32LE(0));
  try {
    if (!isZip) {
      const bytes = typeof source === 'string' ? (await stat(source)).size : source.length;
      if (bytes > maxBytes) throw ValidationError.field('file', `is larger than ${maxBytes} bytes, the most the import takes (SAFT_IMPORT_MAX_XML_MB)`);
      if (typeof source === 'string') await copyFile(source, target);
      else {
        const fd = openSync(target, 'w');
        try {
          writeSync(fd, source);
        } finally {
          closeSync(fd);
        }
      }
      return { bytes };
    }
    return await inflateXml(source, target, maxBytes);
  } catch (e) {
    await rm(target, { force: true });
    throw e;
  }
}

async function firstBytes(path: string, n: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(n);
    const { bytesRead } = await handle.read(buffer, 0, n, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function inflateXml(source: Buffer | string, target: string, maxBytes: number): Promise<{ bytes: number }> {
  const fd = openSync(target, 'w');
  let entries = 0;
  let xmlEntries = 0;
  let bytes = 0;
  let failure: Error | null = null;
  const unzip = new Unzip((file) => {
    entries++;
    if (!/\.xml$/i.test(file.name)) return;
    if (++xmlEntries > 1) return; // counted, not inflated: exactly one is taken
    file.ondata = (err, data) => {
      if (failure) return;
      if (err) {
        failure = ValidationError.field('file', `is not a readable ZIP archive: ${err.message}`);
        return;
      }
      bytes += data.length;
      if (bytes > maxBytes) {
        failure = ValidationError.field('file', `${file.name} inflates to more than ${maxBytes} bytes, the most the import takes (SAFT_IMPORT_MAX_XML_MB)`);
        file.terminate();
        return;
      }
      writeSync(fd, data); // synchronous: what one 64 KB piece inflates to is written before the next is read
    };
    try {
      file.start();
    } catch (e) {
      failure = ValidationError.field('file', `is not a readable ZIP archive: ${(e as Error).message}`);
    }
  });
  unzip.register(UnzipInflate);
  try {
    const push = (chunk: Uint8Array, final: boolean) => {
      try {
        unzip.push(chunk, final);
      } catch (e) {
        failure ??= ValidationError.field('file', `is not a readable ZIP archive: ${(e as Error).message}`);
      }
    };
    if (typeof source === 'string') {
      const input = createReadStream(source, { highWaterMark: 1 << 16 });
      try {
        for await (const chunk of input as AsyncIterable<Buffer>) {
          push(chunk, false);
          if (failure) break;
        }
      } finally {
        input.destroy();
      }
    } else {
      for (let at = 0; at < source.length && !failure; at += 1 << 16) push(source.subarray(at, at + (1 << 16)), false);
    }
    if (!failure) push(new Uint8Array(0), true);
  } finally {
    closeSync(fd);
  }
  if (failure) throw failure;
  if (xmlEntries !== 1) throw ValidationError.field('file', `a ZIP must hold exactly one .xml file (the SAF-T file); this one holds ${xmlEntries} of ${entries} entries`);
  return { bytes };
}

/** An organisation number as 9 digits: "NO 315 846 137 MVA" → 315846137. */
export const orgDigits = (v: string | null | undefined): string => String(v ?? '').replace(/\D/g, '');
