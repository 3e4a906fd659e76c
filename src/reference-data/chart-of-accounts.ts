// The default chart of accounts offered to a new client account: the project's own list of accounts a
// small Norwegian AS commonly uses, in the usual 4-digit numbering (classes 1-8). The names were written
// for this project. It is NOT the Regnskap Norge "General Ledger Standard Accounts" list, which may only
// be used for SAF-T mapping and is not shipped (see ./SOURCE.md).
//
// Each account maps to a SAF-T Financial 1.30 GroupingCategory/GroupingCode pair from
// source/naeringsspesifikasjon.csv (test/reference-data checks that every pair exists). Where the
// Næringsspesifikasjon has no line of the account's own number, the account maps to the line it is
// reported in (all VAT accounts 27xx -> 2740, prepaid expenses -> 1570, accrued items -> 2949/2990, ...).
//
// defaultTaxCode is the SAF-T standard VAT code a posting to the account usually gets; null means a
// posting normally carries no VAT code at all (balance sheet accounts, wages, depreciation, bank
// charges, insurance, interest, taxes, and costs where input VAT is usually not deductible or not
// charged, such as entertainment, membership fees, subsistence allowances and courses). Fuel (7000)
// defaults to '1' although input VAT on fuel for passenger cars is not deductible; users with only
// passenger cars should change it.

export type AccountType = 'ASSET' | 'LIABILITY' | 'EQUITY' | 'INCOME' | 'EXPENSE';

export interface DefaultAccount {
  code: string;
  name: string;
  nameEn: string;
  accountType: AccountType;
  saftGroupingCategory: string;
  saftGroupingCode: string;
  defaultTaxCode: string | null;
}

// SAF-T 1.30 grouping categories used below (names as spelled in naeringsspesifikasjon.csv).
const ANLEGG = 'balanseverdiForAnleggsmiddel';
const OMLOEP = 'balanseverdiForOmloepsmiddel';
const EGENKAPITAL = 'egenkapital';
const LANGSIKTIG = 'langsiktigGjeld';
const KORTSIKTIG = 'kortsiktigGjeld';
const SALG = 'salgsinntekt';
const ANNEN_INNTEKT = 'annenDriftsinntekt';
const VAREKOSTNAD = 'varekostnad';
const LOENN = 'loennskostnad';
const ANNEN_KOSTNAD = 'annenDriftskostnad';
const FINANSINNTEKT = 'finansinntekt';
const FINANSKOSTNAD = 'finanskostnad';
const SKATT = 'skattekostnad';
const DISPONERING = 'resultatDisponeringForSAF-T';

function account(
  code: string,
  name: string,
  nameEn: string,
  accountType: AccountType,
  saftGroupingCategory: string,
  saftGroupingCode: string,
  defaultTaxCode: string | null = null,
): DefaultAccount {
  return Object.freeze({ code, name, nameEn, accountType, saftGroupingCategory, saftGroupingCode, defaultTaxCode });
}

export const DEFAULT_CHART_OF_ACCOUNTS: readonly DefaultAccount[] = Object.freeze([
  // ── Class 1: assets ────────────────────────────────────────────────────────────────────────────
  account('1070', 'Utsatt skattefordel', 'Deferred tax asset', 'ASSET', ANLEGG, '1070'),
  account('1200', 'Maskiner og anlegg', 'Machinery and plant', 'ASSET', ANLEGG, '1205'),
  account('1230', 'Personbiler', 'Passenger cars', 'ASSET', ANLEGG, '1205'),
  account('1240', 'Varebiler og lastebiler', 'Vans and lorries', 'ASSET', ANLEGG, '1238'),
  account('1250', 'Inventar og utstyr', 'Fixtures, fittings and equipment', 'ASSET', ANLEGG, '1205'),
  account('1280', 'Kontormaskiner og datautstyr', 'Office machines and computer equipment', 'ASSET', ANLEGG, '1280'),
  account('1350', 'Langsiktige investeringer i aksjer og andeler', 'Long-term investments in shares and units', 'ASSET', ANLEGG, '1350'),
  account('1370', 'Lån til aksjonærer og styremedlemmer', 'Loans to shareholders and board members', 'ASSET', ANLEGG, '1370'),
  account('1400', 'Varebeholdning', 'Inventory', 'ASSET', OMLOEP, '1400'),
  account('1500', 'Kundefordringer', 'Trade receivables', 'ASSET', OMLOEP, '1500'),
  account('1530', 'Opptjent, ikke fakturert inntekt', 'Earned, not yet invoiced revenue', 'ASSET', OMLOEP, '1530'),
  account('1570', 'Andre kortsiktige fordringer', 'Other short-term receivables', 'ASSET', OMLOEP, '1570'),
  account('1580', 'Krav på refusjoner og tilskudd', 'Refunds and grants receivable', 'ASSET', OMLOEP, '1570'),
  account('1700', 'Forskuddsbetalt husleie', 'Prepaid rent', 'ASSET', OMLOEP, '1570'),
  account('1749', 'Andre forskuddsbetalte kostnader', 'Other prepaid expenses', 'ASSET', OMLOEP, '1570'),
  account('1900', 'Kontantkasse', 'Cash in hand', 'ASSET', OMLOEP, '1900'),
  account('1920', 'Bankinnskudd', 'Bank deposits', 'ASSET', OMLOEP, '1920'),
  account('1940', 'Bankinnskudd i valuta', 'Bank deposits in foreign currency', 'ASSET', OMLOEP, '1920'),
  account('1950', 'Bankinnskudd for skattetrekk', 'Bank deposits for tax withholding', 'ASSET', OMLOEP, '1950'),

  // ── Class 2: equity and liabilities ───────────────────────────────────────────────────────────
  account('2000', 'Aksjekapital', 'Share capital', 'EQUITY', EGENKAPITAL, '2000'),
  account('2020', 'Overkurs', 'Share premium', 'EQUITY', EGENKAPITAL, '2020'),
  account('2030', 'Annen innskutt egenkapital', 'Other paid-in equity', 'EQUITY', EGENKAPITAL, '2030'),
  account('2050', 'Annen egenkapital', 'Other equity (retained earnings)', 'EQUITY', EGENKAPITAL, '2050'),
  account('2080', 'Udekket tap', 'Uncovered loss', 'EQUITY', EGENKAPITAL, '2080'),
  account('2120', 'Utsatt skatt', 'Deferred tax', 'LIABILITY', LANGSIKTIG, '2120'),
  account('2220', 'Langsiktige lån fra kredittinstitusjoner', 'Long-term loans from credit institutions', 'LIABILITY', LANGSIKTIG, '2220'),
  account('2250', 'Langsiktig gjeld til aksjonærer og ansatte', 'Long-term debt to shareholders and employees', 'LIABILITY', LANGSIKTIG, '2250'),
  account('2290', 'Annen langsiktig gjeld', 'Other long-term liabilities', 'LIABILITY', LANGSIKTIG, '2290'),
  account('2380', 'Kassekreditt', 'Bank overdraft facility', 'LIABILITY', KORTSIKTIG, '2380'),
  account('2400', 'Leverandørgjeld', 'Trade payables', 'LIABILITY', KORTSIKTIG, '2400'),
  account('2500', 'Betalbar skatt, ikke fastsatt', 'Tax payable, not yet assessed', 'LIABILITY', KORTSIKTIG, '2500'),
  account('2510', 'Betalbar skatt, fastsatt', 'Tax payable, assessed', 'LIABILITY', KORTSIKTIG, '2510'),
  account('2600', 'Forskuddstrekk', 'Tax withheld from employees', 'LIABILITY', KORTSIKTIG, '2600'),
  account('2700', 'Utgående mva, høy sats', 'Output VAT, standard rate', 'LIABILITY', KORTSIKTIG, '2740'),
  account('2701', 'Utgående mva, middels sats', 'Output VAT, medium rate', 'LIABILITY', KORTSIKTIG, '2740'),
  account('2702', 'Utgående mva, lav sats', 'Output VAT, low rate', 'LIABILITY', KORTSIKTIG, '2740'),
  account('2705', 'Beregnet utgående mva, kjøp fra utlandet', 'Calculated output VAT, purchases from abroad', 'LIABILITY', KORTSIKTIG, '2740'),
  account('2710', 'Inngående mva, høy sats', 'Input VAT, standard rate', 'LIABILITY', KORTSIKTIG, '2740'),
  account('2711', 'Inngående mva, middels sats', 'Input VAT, medium rate', 'LIABILITY', KORTSIKTIG, '2740'),
  account('2712', 'Inngående mva, lav sats', 'Input VAT, low rate', 'LIABILITY', KORTSIKTIG, '2740'),
  account('2714', 'Inngående mva, betalt ved innførsel', 'Input VAT paid on import', 'LIABILITY', KORTSIKTIG, '2740'),
  account('2715', 'Inngående mva, kjøp fra utlandet', 'Input VAT, purchases from abroad', 'LIABILITY', KORTSIKTIG, '2740'),
  account('2740', 'Oppgjørskonto mva', 'VAT settlement account', 'LIABILITY', KORTSIKTIG, '2740'),
  account('2770', 'Skyldig arbeidsgiveravgift', "Employer's national insurance contribution payable", 'LIABILITY', KORTSIKTIG, '2770'),
  account('2780', 'Påløpt arbeidsgiveravgift', "Accrued employer's national insurance contribution", 'LIABILITY', KORTSIKTIG, '2770'),
  account('2785', 'Påløpt arbeidsgiveravgift på feriepenger', "Accrued employer's contribution on holiday pay", 'LIABILITY', KORTSIKTIG, '2770'),
  account('2800', 'Avsatt utbytte', 'Dividends payable', 'LIABILITY', KORTSIKTIG, '2800'),
  account('2900', 'Forskudd fra kunder', 'Advances from customers', 'LIABILITY', KORTSIKTIG, '2900'),
  account('2910', 'Kortsiktig gjeld til ansatte og aksjonærer', 'Short-term debt to employees and shareholders', 'LIABILITY', KORTSIKTIG, '2910'),
  account('2930', 'Skyldig lønn', 'Salaries payable', 'LIABILITY', KORTSIKTIG, '2949'),
  account('2940', 'Skyldige feriepenger', 'Holiday pay payable', 'LIABILITY', KORTSIKTIG, '2949'),
  account('2960', 'Påløpte kostnader', 'Accrued expenses', 'LIABILITY', KORTSIKTIG, '2990'),
  account('2970', 'Forskuddsbetalte inntekter', 'Deferred income', 'LIABILITY', KORTSIKTIG, '2970'),
  account('2990', 'Annen kortsiktig gjeld', 'Other short-term liabilities', 'LIABILITY', KORTSIKTIG, '2990'),

  // ── Class 3: operating income ─────────────────────────────────────────────────────────────────
  account('3000', 'Salgsinntekt, avgiftspliktig høy sats', 'Sales revenue, VAT standard rate', 'INCOME', SALG, '3000', '3'),
  account('3030', 'Salgsinntekt, avgiftspliktig middels sats', 'Sales revenue, VAT medium rate', 'INCOME', SALG, '3000', '31'),
  account('3033', 'Salgsinntekt, avgiftspliktig lav sats', 'Sales revenue, VAT low rate', 'INCOME', SALG, '3000', '33'),
  account('3100', 'Salgsinntekt, avgiftsfri', 'Sales revenue, zero-rated', 'INCOME', SALG, '3100', '5'),
  account('3150', 'Salgsinntekt, eksport', 'Sales revenue, exports', 'INCOME', SALG, '3100', '52'),
  account('3200', 'Salgsinntekt, utenfor merverdiavgiftsloven', 'Sales revenue, outside the scope of VAT', 'INCOME', SALG, '3200', '6'),
  account('3400', 'Offentlige tilskudd og refusjoner', 'Public grants and refunds', 'INCOME', ANNEN_INNTEKT, '3400'),
  account('3600', 'Leieinntekt fast eiendom', 'Rental income, real property', 'INCOME', ANNEN_INNTEKT, '3600', '6'),
  account('3700', 'Provisjonsinntekt', 'Commission income', 'INCOME', ANNEN_INNTEKT, '3700', '3'),
  account('3900', 'Annen driftsinntekt', 'Other operating income', 'INCOME', ANNEN_INNTEKT, '3900', '3'),

  // ── Class 4: cost of goods sold ───────────────────────────────────────────────────────────────
  account('4000', 'Innkjøp av råvarer og halvfabrikata', 'Purchases of raw materials and semi-finished goods', 'EXPENSE', VAREKOSTNAD, '4005', '1'),
  account('4300', 'Innkjøp av varer for videresalg', 'Purchases of goods for resale', 'EXPENSE', VAREKOSTNAD, '4005', '1'),
  account('4310', 'Innkjøp av varer for videresalg, import', 'Purchases of goods for resale, imported', 'EXPENSE', VAREKOSTNAD, '4005', '81'),
  account('4390', 'Beholdningsendring varer for videresalg', 'Change in inventory of goods for resale', 'EXPENSE', VAREKOSTNAD, '4005'),
  account('4500', 'Innleid arbeidskraft og underleverandører', 'Hired labour and subcontractors', 'EXPENSE', VAREKOSTNAD, '4500', '1'),

  // ── Class 5: payroll ──────────────────────────────────────────────────────────────────────────
  account('5000', 'Lønn', 'Salaries and wages', 'EXPENSE', LOENN, '5000'),
  account('5090', 'Feriepenger', 'Holiday pay', 'EXPENSE', LOENN, '5000'),
  account('5330', 'Styrehonorar', "Directors' fees", 'EXPENSE', LOENN, '5300'),
  account('5400', 'Arbeidsgiveravgift', "Employer's national insurance contribution", 'EXPENSE', LOENN, '5400'),
  account('5405', 'Arbeidsgiveravgift på feriepenger', "Employer's contribution on holiday pay", 'EXPENSE', LOENN, '5400'),
  account('5420', 'Pensjonskostnad, opplysningspliktig', 'Pension cost, reportable', 'EXPENSE', LOENN, '5420'),
  account('5800', 'Refusjon av sykepenger', 'Sickness benefit refunds', 'EXPENSE', LOENN, '5000'),
  account('5900', 'Annen personalkostnad', 'Other staff costs', 'EXPENSE', LOENN, '5900'),

  // ── Class 6: depreciation and other operating expenses ────────────────────────────────────────
  account('6000', 'Avskrivning på driftsmidler', 'Depreciation of fixed assets', 'EXPENSE', ANNEN_KOSTNAD, '6000'),
  account('6100', 'Frakt og transport ved salg', 'Freight and transport on sales', 'EXPENSE', ANNEN_KOSTNAD, '6100', '1'),
  account('6300', 'Husleie', 'Rent of premises', 'EXPENSE', ANNEN_KOSTNAD, '6300', '1'),
  account('6340', 'Strøm og oppvarming', 'Electricity and heating', 'EXPENSE', ANNEN_KOSTNAD, '6340', '1'),
  account('6400', 'Leie av maskiner og utstyr', 'Rental of machinery and equipment', 'EXPENSE', ANNEN_KOSTNAD, '6400', '1'),
  account('6420', 'Programvare og skytjenester', 'Software and cloud services', 'EXPENSE', ANNEN_KOSTNAD, '6350', '1'),
  account('6500', 'Verktøy', 'Tools', 'EXPENSE', ANNEN_KOSTNAD, '6500', '1'),
  account('6540', 'Inventar og utstyr, kostnadsført', 'Fixtures and equipment, expensed', 'EXPENSE', ANNEN_KOSTNAD, '6500', '1'),
  account('6620', 'Reparasjon og vedlikehold av utstyr', 'Repair and maintenance of equipment', 'EXPENSE', ANNEN_KOSTNAD, '6695', '1'),
  account('6700', 'Revisjonshonorar', 'Audit fees', 'EXPENSE', ANNEN_KOSTNAD, '6700', '1'),
  account('6705', 'Regnskapshonorar', 'Accounting fees', 'EXPENSE', ANNEN_KOSTNAD, '6700', '1'),
  account('6790', 'Andre fremmede tjenester', 'Other purchased services', 'EXPENSE', ANNEN_KOSTNAD, '6700', '1'),
  account('6795', 'Tjenester kjøpt fra utlandet', 'Services purchased from abroad', 'EXPENSE', ANNEN_KOSTNAD, '6700', '86'),
  account('6800', 'Kontorrekvisita', 'Office supplies', 'EXPENSE', ANNEN_KOSTNAD, '6995', '1'),
  account('6860', 'Møter, kurs og oppdatering', 'Meetings, courses and training', 'EXPENSE', ANNEN_KOSTNAD, '7700'),
  account('6900', 'Telefon og mobil', 'Telephone and mobile', 'EXPENSE', ANNEN_KOSTNAD, '6995', '1'),

  // ── Class 7: other operating expenses ─────────────────────────────────────────────────────────
  account('7000', 'Drivstoff', 'Fuel', 'EXPENSE', ANNEN_KOSTNAD, '7000', '1'),
  account('7020', 'Vedlikehold av kjøretøy', 'Vehicle maintenance', 'EXPENSE', ANNEN_KOSTNAD, '7020', '1'),
  account('7040', 'Forsikring og avgifter for kjøretøy', 'Vehicle insurance and charges', 'EXPENSE', ANNEN_KOSTNAD, '7040'),
  account('7100', 'Bilgodtgjørelse, opplysningspliktig', 'Car allowance, reportable', 'EXPENSE', ANNEN_KOSTNAD, '7155'),
  account('7140', 'Reisekostnader, ikke opplysningspliktig', 'Travel expenses, non-reportable', 'EXPENSE', ANNEN_KOSTNAD, '7165', '13'),
  account('7150', 'Diettgodtgjørelse, opplysningspliktig', 'Subsistence allowance, reportable', 'EXPENSE', ANNEN_KOSTNAD, '7155'),
  account('7320', 'Reklame og markedsføring', 'Advertising and marketing', 'EXPENSE', ANNEN_KOSTNAD, '7330', '1'),
  account('7350', 'Representasjon, fradragsberettiget', 'Entertainment, tax-deductible', 'EXPENSE', ANNEN_KOSTNAD, '7350'),
  account('7400', 'Kontingenter, fradragsberettiget', 'Membership fees, tax-deductible', 'EXPENSE', ANNEN_KOSTNAD, '7400'),
  account('7500', 'Forsikringspremier', 'Insurance premiums', 'EXPENSE', ANNEN_KOSTNAD, '7500'),
  account('7600', 'Lisenser og royalty', 'Licences and royalties', 'EXPENSE', ANNEN_KOSTNAD, '7600', '1'),
  account('7770', 'Bank- og kortgebyrer', 'Bank and card charges', 'EXPENSE', ANNEN_KOSTNAD, '7700'),
  account('7790', 'Andre driftskostnader', 'Other operating expenses', 'EXPENSE', ANNEN_KOSTNAD, '7700'),
  account('7830', 'Tap på fordringer', 'Bad debts', 'EXPENSE', ANNEN_KOSTNAD, '7830'),

  // ── Class 8: financial items, tax and appropriations ──────────────────────────────────────────
  account('8040', 'Renteinntekt, bank', 'Interest income, bank', 'INCOME', FINANSINNTEKT, '8050'),
  account('8050', 'Annen renteinntekt', 'Other interest income', 'INCOME', FINANSINNTEKT, '8050'),
  account('8060', 'Valutagevinst (agio)', 'Foreign exchange gain', 'INCOME', FINANSINNTEKT, '8060'),
  account('8070', 'Annen finansinntekt', 'Other financial income', 'INCOME', FINANSINNTEKT, '8079'),
  account('8150', 'Rentekostnad', 'Interest expense', 'EXPENSE', FINANSKOSTNAD, '8150'),
  account('8160', 'Valutatap (disagio)', 'Foreign exchange loss', 'EXPENSE', FINANSKOSTNAD, '8160'),
  account('8170', 'Annen finanskostnad', 'Other financial expenses', 'EXPENSE', FINANSKOSTNAD, '8179'),
  account('8300', 'Betalbar skatt', 'Tax payable for the year', 'EXPENSE', SKATT, '8300'),
  account('8320', 'Endring utsatt skatt', 'Change in deferred tax', 'EXPENSE', SKATT, '8321'),
  account('8800', 'Årsresultat', 'Profit or loss for the year', 'EQUITY', DISPONERING, '8800'),
  account('8920', 'Avsatt utbytte', 'Dividends proposed', 'EQUITY', DISPONERING, '8800'),
  account('8960', 'Overføring til/fra annen egenkapital', 'Transfer to or from other equity', 'EQUITY', DISPONERING, '8800'),
  account('8990', 'Overføring til/fra udekket tap', 'Transfer to or from uncovered loss', 'EQUITY', DISPONERING, '8800'),
]);

/**
 * Dimensions the default chart makes mandatory: receivables (1500) and payables (2400) are kept per
 * customer and supplier (the sub-ledgers), so every line posted to them names a business partner.
 */
export const DEFAULT_MANDATORY_DIMENSIONS: Readonly<Record<string, readonly ('BUSINESS_PARTNER' | 'PROJECT' | 'DEPARTMENT')[]>> = Object.freeze({
  '1500': ['BUSINESS_PARTNER'],
  '2400': ['BUSINESS_PARTNER'],
});
