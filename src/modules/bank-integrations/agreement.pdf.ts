import PDFDocument from 'pdfkit';
import { formatBankAccountNumber } from '../bank-accounts/bank-accounts.rules.ts';
import { formatDate, formatOrganizationNumber } from '../../shared/norwegian-format.ts';
import type { Bank } from './banks.ts';

/**
 * The bank integration agreement ("Avtale om regnskapsintegrasjon"), filled in with the company's
 * data: its name and organization number, the address (the client account has none stored: lines to
 * fill in), the bank and, for the bank that requires them, the division; the company's accounts at
 * that bank; what the agreement allows; the date; and signature fields for the company and the bank.
 * Helvetica's WinAnsi encoding has æøå.
 */
export interface AgreementModel {
  bank: Bank;
  company: { name: string; organizationNumber: string | null };
  bankAccounts: { accountNumber: string; name: string | null; currencyCode: string }[];
  division: { number: string; name: string } | null;
  /** YYYY-MM-DD */
  date: string;
}

const MARGIN = 56;
const REGULAR = 'Helvetica';
const BOLD = 'Helvetica-Bold';
const PRODUCT = 'regnskap-api';

export async function renderIntegrationAgreementPdf(m: AgreementModel): Promise<Buffer> {
  const title = 'Avtale om regnskapsintegrasjon';
  const doc = new PDFDocument({ size: 'A4', margins: { top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN }, info: { Title: `${title} – ${m.bank.organization.name}`, Producer: PRODUCT, Creator: PRODUCT } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const width = doc.page.width - 2 * MARGIN;

  doc.font(BOLD).fontSize(18).text(title, { width });
  doc.font(REGULAR).fontSize(10).text(`mellom kunden og ${m.bank.organization.name} (BIC ${m.bank.bic})`, { width }).moveDown(1.2);

  const heading = (text: string) => doc.font(BOLD).fontSize(12).text(text, MARGIN, doc.y, { width }).moveDown(0.3);
  const row = (label: string, value: string) => {
    const y = doc.y;
    doc.font(REGULAR).fontSize(10).text(label, MARGIN, y, { width: 150 });
    doc.font(BOLD).text(value, MARGIN + 160, y, { width: width - 160 });
    doc.moveDown(0.3);
  };
  const blank = '_______________________________________';

  heading('1. Kunden');
  row('Firmanavn', m.company.name);
  row('Organisasjonsnummer', m.company.organizationNumber ? formatOrganizationNumber(m.company.organizationNumber) : blank);
  row('Forretningsadresse', blank);
  row('Postnummer og sted', blank);
  doc.moveDown(0.6);

  heading('2. Banken');
  row('Bank', m.bank.organization.name);
  row('BIC', m.bank.bic);
  if (m.bank.requiresDivision) {
    row('Divisjonsnummer', m.division?.number || blank);
    row('Divisjonsnavn', m.division?.name || blank);
  }
  doc.moveDown(0.6);

  heading('3. Konti som omfattes');
  if (m.bankAccounts.length) {
    for (const a of m.bankAccounts) row(formatBankAccountNumber(a.accountNumber), [a.name, a.currencyCode].filter(Boolean).join(' – '));
  } else {
    doc.font(REGULAR).fontSize(10).text(`Kunden har ingen aktive bankkontoer registrert hos ${m.bank.organization.name}. Før opp kontonumrene her:`, { width });
    for (let i = 0; i < 3; i++) row('Kontonummer', blank);
  }
  doc.moveDown(0.6);

  heading('4. Hva avtalen gir adgang til');
  doc
    .font(REGULAR)
    .fontSize(10)
    .text(
      'Kunden gir banken fullmakt til å levere kontoutskrifter og transaksjoner for kontiene over til kundens regnskapssystem, ' +
        'og til å motta betalinger som kunden har godkjent i regnskapssystemet. Betalinger må fortsatt godkjennes av kunden i banken. ' +
        'Avtalen gjelder til den sies opp skriftlig av en av partene; integrasjonen kan også slås av i regnskapssystemet.',
      { width, align: 'justify' },
    )
    .moveDown(1.2);

  heading('5. Underskrifter');
  doc.font(REGULAR).fontSize(10).text(`Dato: ${formatDate(m.date)}`, { width }).moveDown(1.5);
  const colW = (width - 30) / 2;
  const sigY = doc.y;
  const signature = (x: number, who: string) => {
    doc.font(REGULAR).fontSize(10);
    doc.text('Sted og dato: ______________________', x, sigY, { width: colW });
    doc.text('\n\n______________________________________', x, doc.y, { width: colW });
    doc.text(`Signatur (${who})`, x, doc.y, { width: colW });
    doc.text('\n______________________________________', x, doc.y, { width: colW });
    doc.text('Navn med blokkbokstaver', x, doc.y, { width: colW });
  };
  signature(MARGIN, `for ${m.company.name}`);
  signature(MARGIN + colW + 30, `for ${m.bank.organization.name}`);

  doc.end();
  return done;
}
