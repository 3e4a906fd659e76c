import { SaxesParser } from 'saxes';

/**
 * A SAF-T Financial file read in one streaming pass (saxes, a SAX parser): the file is never held
 * whole, not as a string and not as a tree. The Header and MasterFiles become small trees, and so
 * does each Transaction, handed over one at a time with its Journal (JournalID, Description, Type)
 * and forgotten; of GeneralLedgerEntries the reader keeps NumberOfEntries, TotalDebit, TotalCredit.
 *
 * The trees have the shape fast-xml-parser gave them before (ignoreAttributes, removeNSPrefix,
 * parseTagValue false, trimValues): an element with child elements is an object of its children, a
 * leaf its trimmed text, and the names in REPEATED always arrays, so checkSaft's and the import's
 * rules read them as they did. The XSD's order (Header, MasterFiles, then GeneralLedgerEntries with
 * its totals before the journals) means the master files are complete before the first transaction.
 */

export type SaftNode = Record<string, any>;

const REPEATED = new Set([
  'Account',
  'Customer',
  'Supplier',
  'BalanceAccount',
  'Address',
  'Contact',
  'BankAccount',
  'TaxRegistration',
  'TaxTableEntry',
  'TaxCodeDetails',
  'AnalysisTypeTableEntry',
  'Journal',
  'Transaction',
  'Line',
  'Analysis',
  'TaxInformation',
]);

export interface SaftReaderHandlers {
  /** the Header and MasterFiles, complete: called once, before the first transaction (or at the end of a file without one) */
  onMaster?(header: SaftNode, master: SaftNode): void;
  /** one Transaction, with the Journal it is in (its own elements, without the transactions) */
  onTransaction?(journal: SaftNode, transaction: SaftNode): void;
}

interface Frame {
  name: string;
  node: SaftNode | null;
  text: string;
  /** not attached to its parent: a Transaction (handed over) or a Journal (kept apart) */
  detached?: boolean;
  /** not read at all: a section of the root other than Header, MasterFiles, GeneralLedgerEntries, and all inside it */
  skip?: boolean;
}

const local = (name: string) => {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
};

/** Feed it text (or UTF-8 bytes) in pieces, then `end()`. Throws on XML that is not well-formed. */
export class SaftReader {
  /** the root element's name (AuditFile in a SAF-T file), once seen */
  root: string | null = null;
  header: SaftNode = {};
  master: SaftNode = {};
  /** GeneralLedgerEntries' own leaves: NumberOfEntries, TotalDebit, TotalCredit */
  ledger: SaftNode = {};
  private readonly parser = new SaxesParser({ position: true });
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private readonly stack: Frame[] = [];
  private journal: SaftNode | null = null;
  private masterDone = false;

  constructor(private readonly handlers: SaftReaderHandlers = {}) {
    this.parser.on('opentag', (tag) => this.open(local(tag.name)));
    this.parser.on('closetag', () => this.close());
    this.parser.on('text', (t) => this.text(t));
    this.parser.on('cdata', (t) => this.text(t));
    this.parser.on('error', (e) => {
      throw e;
    });
  }

  /** the line the parser is at (for an error's message) */
  get line(): number {
    return this.parser.line;
  }

  write(chunk: string | Uint8Array): void {
    this.parser.write(typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }));
  }

  end(): void {
    const rest = this.decoder.decode();
    if (rest) this.parser.write(rest);
    this.parser.close();
    this.masterComplete();
  }

  private masterComplete() {
    if (this.masterDone) return;
    this.masterDone = true;
    this.handlers.onMaster?.(this.header, this.master);
  }

  private open(name: string) {
    const depth = this.stack.length;
    if (depth === 0) this.root = name;
    const parent = this.stack[depth - 1];
    if (parent && !parent.skip) parent.node ??= {};
    if (parent?.skip) {
      this.stack.push({ name, node: null, text: '', skip: true });
      return;
    }
    const frame: Frame = { name, node: null, text: '' };
    // AuditFile/Header, AuditFile/MasterFiles, AuditFile/GeneralLedgerEntries are the trees kept
    if (depth === 1) {
      if (name === 'Header') frame.node = this.header;
      else if (name === 'MasterFiles') frame.node = this.master;
      else if (name === 'GeneralLedgerEntries') {
        frame.node = this.ledger;
        this.masterComplete();
      } else frame.skip = true;
    }
    if (depth === 2 && name === 'Journal' && parent?.name === 'GeneralLedgerEntries') {
      frame.detached = true;
      frame.node = this.journal = {};
    }
    if (depth === 3 && name === 'Transaction' && parent?.name === 'Journal') frame.detached = true;
    this.stack.push(frame);
  }

  private text(t: string) {
    const frame = this.stack[this.stack.length - 1];
    if (frame && frame.node === null && !frame.skip) frame.text += t;
  }

  private close() {
    const frame = this.stack.pop()!;
    const depth = this.stack.length;
    if (frame.skip) return;
    const value = frame.node ?? frame.text.trim();
    if (depth === 3 && frame.name === 'Transaction' && frame.detached) {
      this.handlers.onTransaction?.(this.journal ?? {}, value as SaftNode);
      return;
    }
    if (frame.detached) return; // a Journal: its transactions were handed over
    const parent = this.stack[depth - 1];
    if (!parent || depth === 1) return; // the root, or a section (its tree is this.header/master/ledger)
    const into = (parent.node ??= {});
    if (REPEATED.has(frame.name)) (into[frame.name] ??= []).push(value);
    else if (into[frame.name] === undefined) into[frame.name] = value;
    else into[frame.name] = [].concat(into[frame.name], value as never);
  }
}
