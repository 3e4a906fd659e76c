import { describe, expect, it } from 'vitest';
import {
  embeddingText,
  extractDocumentDate,
  extractTotalAmount,
  guessDocumentType,
  organizationNumbers,
  parseAmount,
} from '../../src/modules/vouchers/pipeline/pipeline.rules.ts';
import { randomOrganizationNumber } from '../support/seed.ts';

// The voucher pipeline's CLASSIFICATION step (src/modules/vouchers/pipeline): document type, total
// amount and document date read from a PDF's text layer.
describe('guessDocumentType', () => {
  it.each([
    ['Kreditnota nr 17\nGjelder faktura 1001', 'APCRN'],
    ['KREDITFAKTURA 2026-004', 'APCRN'],
    ['Credit note CN-2201', 'APCRN'],
    ['Faktura\nFakturanummer 10021', 'APINV'],
    ['INVOICE #4411\nAmount due 200.00', 'APINV'],
    ['Kvittering\nKaffe 45,00\nSum 45,00', 'RECPT'],
    ['Receipt from Coffee Ltd', 'RECPT'],
    ['Proformafaktura', 'APPIN'],
    ['Kontantfaktura 55', 'APCIN'],
    ['Inkassovarsel – betal innen 14 dager', 'APDEB'],
  ])('%j is %s', (text, type) => {
    expect(guessDocumentType(text)).toBe(type);
  });

  it('no keyword: null, not a guess', () => {
    expect(guessDocumentType('Møtereferat fra styremøtet 12. mars')).toBeNull();
    expect(guessDocumentType('')).toBeNull();
  });

  it('"the text names the client account\'s own organisation number as seller": a sales document', () => {
    const own = randomOrganizationNumber();
    let customer = randomOrganizationNumber();
    while (customer === own) customer = randomOrganizationNumber();
    const spaced = `${own.slice(0, 3)} ${own.slice(3, 6)} ${own.slice(6)}`;
    expect(guessDocumentType(`Faktura\nSelger: Oss AS, org.nr. ${spaced}\nKunde: org.nr. ${customer}`, own)).toBe('ARINV');
    expect(guessDocumentType(`Kreditnota\nNO ${own} MVA\nKunde ${customer}`, own)).toBe('ARCRN');
    expect(guessDocumentType(`Kvittering\nOrg.nr ${own}`, own)).toBe('ARCIN');
    // we are the buyer: the seller's number comes first
    expect(guessDocumentType(`Faktura\nLeverandør org.nr ${customer}\nKunde org.nr ${own}`, own)).toBe('APINV');
  });

  it('only numbers with a valid check digit count as organisation numbers', () => {
    const valid = randomOrganizationNumber();
    const broken = valid.slice(0, 8) + String((Number(valid[8]) + 1) % 10);
    expect(organizationNumbers(`Org ${valid} konto 1234.56.78903 tlf 22 33 44 55 ${broken}`)).toEqual([valid]);
  });
});

describe('extractTotalAmount', () => {
  it.each([
    ['Kvittering\nKaffe 45,00\nSum 1 234,50', '1234.50'],
    ['Sum eks. mva 1 000,00\nMva 25 % 250,00\nÅ betale 1 250,00', '1250.00'],
    ['Totalt å betale: kr 12.345,60', '12345.60'],
    ['Total: NOK 2,499.00', '2499.00'],
    ['Amount due 200.5', '200.50'],
    ['TOTAL 349,-', '349.00'],
    ['Beløp å betale 99', '99.00'],
    ['Sum inkl. mva 4 500,00', '4500.00'],
  ])('%j → %s', (text, amount) => {
    expect(extractTotalAmount(text)).toBe(amount);
  });

  it('no total label followed by an amount: null', () => {
    expect(extractTotalAmount('Kaffe 45,00\nTe 30,00')).toBeNull();
    expect(extractTotalAmount('Sum\n\nTakk for handelen')).toBeNull();
  });

  it.each([
    ['1 234,50', '1234.50'],
    ['1.234,50', '1234.50'],
    ['1,234.50', '1234.50'],
    ['1234', '1234.00'],
    ['0,5', '0.50'],
    ['-45,00', '-45.00'],
    ['abc', null],
  ])('parseAmount(%j) = %s', (written, amount) => {
    expect(parseAmount(written)).toBe(amount);
  });
});

describe('extractDocumentDate', () => {
  it.each([
    ['Fakturadato: 12.03.2026\nForfallsdato: 26.03.2026', '2026-03-12'],
    ['Forfallsdato 26.03.2026\nFakturadato 12.03.2026', '2026-03-12'],
    ['Kvittering 2026-01-31 14:02', '2026-01-31'],
    ['Dato 5. mars 2026', '2026-03-05'],
    ['Invoice date: March 7, 2026', '2026-03-07'],
    ['Kjøpt 01/02/26', '2026-02-01'],
  ])('%j → %s', (text, date) => {
    expect(extractDocumentDate(text)).toBe(date);
  });

  it('impossible or missing dates: null', () => {
    expect(extractDocumentDate('Dato 31.02.2026')).toBeNull();
    expect(extractDocumentDate('Ingen dato her')).toBeNull();
    expect(extractDocumentDate('Forfall 10.04.2026')).toBeNull();
  });
});

it('embeddingText: the file name without its extension, then the text', () => {
  expect(embeddingText('kvittering-rema.pdf', 'Sum 10')).toBe('kvittering-rema\nSum 10');
  expect(embeddingText('scan.jpg', null)).toBe('scan\n');
});
