/**
 * A SAF-T Financial 1.30 file written the way another vendor writes it (issue 33: "build it in the
 * test from the XSD's optional elements: analysis lines, multiple currencies, customers and suppliers
 * only in lines, missing opening balances"): the period as PeriodStart/PeriodEnd, several journals,
 * its own tax codes (mapped by StandardTaxCode), analysis types PROSJEKT and AVD, foreign-currency
 * lines with CurrencyAmount and ExchangeRate, CustomerID/SupplierID only on lines (no Customers or
 * Suppliers in MasterFiles), every opening balance 0.00. Totals and closing balances are computed.
 */

type Line = {
  account: string;
  side: 'D' | 'C';
  amount: string;
  customer?: string;
  supplier?: string;
  analysis?: [string, string][];
  currency?: [string, string, string];
  tax?: [code: string, percent: string, base: string, side: 'D' | 'C', amount: string];
  description?: string;
};
type Tx = { journal: string; id: string; date: string; voucherType?: string; description: string; lines: Line[] };

const ACCOUNTS: [string, string, string, string][] = [
  ['1500', 'Kundefordringer', 'balanseverdiForOmloepsmiddel', '1500'],
  ['1576', 'Forskudd til ansatte (leverandørens egen konto)', 'balanseverdiForOmloepsmiddel', '1570'],
  ['1920', 'Bank', 'balanseverdiForOmloepsmiddel', '1920'],
  ['2400', 'Leverandørgjeld', 'kortsiktigGjeld', '2400'],
  ['2700', 'Utgående mva', 'kortsiktigGjeld', '2700'],
  ['2710', 'Inngående mva', 'kortsiktigGjeld', '2710'],
  ['3000', 'Salgsinntekt', 'salgsinntekt', '3000'],
  ['4000', 'Varekjøp', 'varekostnad', '4000'],
];

export const VENDOR_TRANSACTIONS: Tx[] = [
  {
    journal: 'SALG', id: 'S-1001', date: '2025-03-10', voucherType: 'Utgående faktura', description: 'Faktura 1001',
    lines: [
      { account: '1500', side: 'D', amount: '2500.00', customer: 'K-17', analysis: [['AVD', '10']] },
      { account: '3000', side: 'C', amount: '2000.00', analysis: [['PROSJEKT', 'P100'], ['AVD', '10']], tax: ['25U', '25.00', '2000.00', 'C', '500.00'] },
      { account: '2700', side: 'C', amount: '500.00' },
    ],
  },
  {
    journal: 'SALG', id: 'S-1002', date: '2025-03-12', voucherType: 'Utgående faktura', description: 'Faktura 1002 (EUR)',
    lines: [
      { account: '1500', side: 'D', amount: '1150.00', customer: 'K-18', currency: ['EUR', '100.00', '11.50000000'] },
      { account: '3000', side: 'C', amount: '1150.00', currency: ['EUR', '100.00', '11.50000000'], description: 'Eksport' },
    ],
  },
  {
    journal: 'BANK', id: 'B-1', date: '2025-03-20', description: 'Innbetaling K-17',
    lines: [
      { account: '1920', side: 'D', amount: '2500.00' },
      { account: '1500', side: 'C', amount: '2500.00', customer: 'K-17' },
    ],
  },
  {
    journal: 'INNG', id: 'I-77', date: '2025-04-02', voucherType: 'Inngående faktura', description: 'Innkjøp fra USA',
    lines: [
      { account: '4000', side: 'D', amount: '1000.00', currency: ['USD', '100.00', '10.00000000'], tax: ['14I', '25.00', '1000.00', 'D', '250.00'] },
      { account: '2710', side: 'D', amount: '250.00' },
      { account: '2400', side: 'C', amount: '1250.00', supplier: 'L-5' },
    ],
  },
  {
    journal: 'MEMO', id: 'M-1', date: '2025-05-31', description: 'Forskudd',
    lines: [
      { account: '1576', side: 'D', amount: '300.00' },
      { account: '1920', side: 'C', amount: '300.00' },
    ],
  },
];

const cents = (s: string) => Math.round(Number(s) * 100);
const money = (c: number) => (c / 100).toFixed(2);

export function vendorSaft(organizationNumber: string, transactions: Tx[] = VENDOR_TRANSACTIONS): string {
  const movement = new Map<string, number>();
  let debit = 0;
  let credit = 0;
  for (const t of transactions) {
    for (const l of t.lines) {
      const c = cents(l.amount);
      movement.set(l.account, (movement.get(l.account) ?? 0) + (l.side === 'D' ? c : -c));
      if (l.side === 'D') debit += c;
      else credit += c;
    }
  }
  const closing = (code: string) => {
    const m = movement.get(code) ?? 0;
    return m >= 0 ? `<ClosingDebitBalance>${money(m)}</ClosingDebitBalance>` : `<ClosingCreditBalance>${money(-m)}</ClosingCreditBalance>`;
  };
  const amount = (l: Line) =>
    `<Amount>${l.amount}</Amount>` + (l.currency ? `<CurrencyCode>${l.currency[0]}</CurrencyCode><CurrencyAmount>${l.currency[1]}</CurrencyAmount><ExchangeRate>${l.currency[2]}</ExchangeRate>` : '');
  const line = (l: Line, i: number, t: Tx) =>
    '<Line>' +
    `<RecordID>${i + 1}</RecordID><AccountID>${l.account}</AccountID>` +
    (l.analysis ?? []).map(([type, id]) => `<Analysis><AnalysisType>${type}</AnalysisType><AnalysisID>${id}</AnalysisID></Analysis>`).join('') +
    `<ValueDate>${t.date}</ValueDate>` +
    (l.customer ? `<CustomerID>${l.customer}</CustomerID>` : '') +
    (l.supplier ? `<SupplierID>${l.supplier}</SupplierID>` : '') +
    `<Description>${l.description ?? t.description}</Description>` +
    (l.side === 'D' ? `<DebitAmount>${amount(l)}</DebitAmount>` : `<CreditAmount>${amount(l)}</CreditAmount>`) +
    (l.tax
      ? `<TaxInformation><TaxType>MVA</TaxType><TaxCode>${l.tax[0]}</TaxCode><TaxPercentage>${l.tax[1]}</TaxPercentage><Country>NO</Country><TaxBase>${l.tax[2]}</TaxBase>` +
        (l.tax[3] === 'D' ? `<DebitTaxAmount><Amount>${l.tax[4]}</Amount></DebitTaxAmount>` : `<CreditTaxAmount><Amount>${l.tax[4]}</Amount></CreditTaxAmount>`) +
        '</TaxInformation>'
      : '') +
    '</Line>';
  const journals = [...new Set(transactions.map((t) => t.journal))];
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<AuditFile xmlns="urn:StandardAuditFile-Taxation-Financial:NO">' +
    '<Header><AuditFileVersion>1.30</AuditFileVersion><AuditFileCountry>NO</AuditFileCountry><AuditFileDateCreated>2026-01-15</AuditFileDateCreated>' +
    '<SoftwareCompanyName>Annen Leverandør AS</SoftwareCompanyName><SoftwareID>Regnskap X</SoftwareID><SoftwareVersion>9.1.3</SoftwareVersion>' +
    `<Company><RegistrationNumber>${organizationNumber}</RegistrationNumber><Name>Leverandørfil AS</Name>` +
    '<Contact><ContactPerson><FirstName>Kari</FirstName><LastName>Nordmann</LastName></ContactPerson><Telephone>12345678</Telephone></Contact></Company>' +
    '<DefaultCurrencyCode>NOK</DefaultCurrencyCode>' +
    '<SelectionCriteria><PeriodStart>1</PeriodStart><PeriodStartYear>2025</PeriodStartYear><PeriodEnd>12</PeriodEnd><PeriodEndYear>2025</PeriodEndYear></SelectionCriteria>' +
    '<HeaderComment>Eksport fra Regnskap X</HeaderComment><TaxAccountingBasis>A</TaxAccountingBasis></Header>' +
    '<MasterFiles><GeneralLedgerAccounts>' +
    ACCOUNTS.map(
      ([id, name, cat, code]) =>
        `<Account><AccountID>${id}</AccountID><AccountDescription>${name}</AccountDescription><GroupingCategory>${cat}</GroupingCategory><GroupingCode>${code}</GroupingCode>` +
        `<AccountType>GL</AccountType><OpeningDebitBalance>0.00</OpeningDebitBalance>${closing(id)}</Account>`,
    ).join('') +
    '</GeneralLedgerAccounts>' +
    '<TaxTable><TaxTableEntry><TaxType>MVA</TaxType><Description>Merverdiavgift</Description>' +
    '<TaxCodeDetails><TaxCode>25U</TaxCode><Description>Utgående 25 %</Description><TaxPercentage>25.00</TaxPercentage><Country>NO</Country><StandardTaxCode>3</StandardTaxCode><BaseRate>100</BaseRate></TaxCodeDetails>' +
    '<TaxCodeDetails><TaxCode>14I</TaxCode><Description>Inngående 25 %</Description><TaxPercentage>25.00</TaxPercentage><Country>NO</Country><StandardTaxCode>1</StandardTaxCode><BaseRate>100</BaseRate></TaxCodeDetails>' +
    '</TaxTableEntry></TaxTable>' +
    '<AnalysisTypeTable>' +
    '<AnalysisTypeTableEntry><AnalysisType>PROSJEKT</AnalysisType><AnalysisTypeDescription>Prosjekt</AnalysisTypeDescription><AnalysisID>P100</AnalysisID><AnalysisIDDescription>Byggeprosjekt Nord</AnalysisIDDescription></AnalysisTypeTableEntry>' +
    '<AnalysisTypeTableEntry><AnalysisType>AVD</AnalysisType><AnalysisTypeDescription>Avdeling</AnalysisTypeDescription><AnalysisID>10</AnalysisID><AnalysisIDDescription>Salg</AnalysisIDDescription></AnalysisTypeTableEntry>' +
    '</AnalysisTypeTable></MasterFiles>' +
    `<GeneralLedgerEntries><NumberOfEntries>${transactions.length}</NumberOfEntries><TotalDebit>${money(debit)}</TotalDebit><TotalCredit>${money(credit)}</TotalCredit>` +
    journals
      .map(
        (j) =>
          `<Journal><JournalID>${j}</JournalID><Description>Journal ${j}</Description><Type>${j}</Type>` +
          transactions
            .filter((t) => t.journal === j)
            .map(
              (t) =>
                `<Transaction><TransactionID>${t.id}</TransactionID><Period>${Number(t.date.slice(5, 7))}</Period><PeriodYear>2025</PeriodYear><TransactionDate>${t.date}</TransactionDate>` +
                (t.voucherType ? `<VoucherType>${t.voucherType}</VoucherType>` : '') +
                `<Description>${t.description}</Description><SystemEntryDate>${t.date}</SystemEntryDate><GLPostingDate>${t.date}</GLPostingDate>` +
                t.lines.map((l, i) => line(l, i, t)).join('') +
                '</Transaction>',
            )
            .join('') +
          '</Journal>',
      )
      .join('') +
    '</GeneralLedgerEntries></AuditFile>\n'
  );
}
