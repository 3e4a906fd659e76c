/**
 * The three-level grouping of report rows, after the Norwegian standard chart of accounts (NS 4102):
 *
 *   level 1  the statement part:  1 Eiendeler, 2 Egenkapital og gjeld (balance sheet);
 *            3-7 Driftsresultat, 80-81 Finansposter, 82-89 Skatt, årsresultat og disponeringer
 *   level 2  the section:         10-13 Anleggsmidler, 14-19 Omløpsmidler, 20 Egenkapital, 21-22
 *            Langsiktig gjeld, 23-29 Kortsiktig gjeld, 3 Driftsinntekter, 4-7 Driftskostnader, 80
 *            Finansinntekter, 81 Finanskostnader, 82-89 Skatt, årsresultat og disponeringer
 *   level 3  the NS 4102 account group: the account code's first two digits (15 Kortsiktige
 *            fordringer, 24 Leverandørgjeld, 30 Salgsinntekt, avgiftspliktig …)
 *
 * The codes are the account-number ranges they cover, so a client can sort and filter by them. An
 * account code that does not start with two digits of classes 1-8 falls in '9' Andre kontoer.
 */

export interface Grouping {
  level1Code: string;
  level1Name: string;
  level2Code: string;
  level2Name: string;
  level3Code: string;
  level3Name: string;
}

/** NS 4102 account groups (kontogrupper) by their two digits. */
const GROUPS: Record<string, string> = {
  '10': 'Immaterielle eiendeler o.l.',
  '11': 'Tomter, bygninger og annen fast eiendom',
  '12': 'Transportmidler, inventar og maskiner o.l.',
  '13': 'Finansielle anleggsmidler',
  '14': 'Varelager og forskudd til leverandører',
  '15': 'Kortsiktige fordringer',
  '16': 'Merverdiavgift, opptjente offentlige tilskudd o.l.',
  '17': 'Forskuddsbetalt kostnad, påløpt inntekt o.l.',
  '18': 'Kortsiktige finansinvesteringer',
  '19': 'Bankinnskudd, kontanter o.l.',
  '20': 'Egenkapital',
  '21': 'Avsetning for forpliktelser',
  '22': 'Annen langsiktig gjeld',
  '23': 'Kortsiktige lån og gjeld til kredittinstitusjoner',
  '24': 'Leverandørgjeld',
  '25': 'Betalbar skatt',
  '26': 'Skattetrekk og andre trekk',
  '27': 'Skyldige offentlige avgifter',
  '28': 'Utbytte',
  '29': 'Annen kortsiktig gjeld',
  '30': 'Salgsinntekt, avgiftspliktig',
  '31': 'Salgsinntekt, avgiftsfri',
  '32': 'Salgsinntekt, utenfor avgiftsområdet',
  '33': 'Offentlig avgift vedrørende omsetning',
  '34': 'Offentlig tilskudd/refusjon',
  '35': 'Uopptjent inntekt',
  '36': 'Leieinntekt',
  '37': 'Provisjonsinntekt',
  '38': 'Gevinst ved avgang av anleggsmidler',
  '39': 'Annen driftsrelatert inntekt',
  '40': 'Forbruk av råvarer og innkjøpte halvfabrikata',
  '41': 'Forbruk av varer under tilvirkning',
  '42': 'Forbruk av ferdig egentilvirkede varer',
  '43': 'Innkjøp av varer for videresalg',
  '44': 'Varekostnad',
  '45': 'Fremmedytelse og underentreprise',
  '46': 'Varekostnad',
  '47': 'Varekostnad',
  '48': 'Varekostnad',
  '49': 'Annen periodisering',
  '50': 'Lønn til ansatte',
  '51': 'Lønn til ansatte',
  '52': 'Fordel i arbeidsforhold',
  '53': 'Annen opplysningspliktig godtgjørelse',
  '54': 'Arbeidsgiveravgift og pensjonskostnad',
  '55': 'Annen kostnadsgodtgjørelse',
  '56': 'Arbeidsgodtgjørelse til eiere',
  '57': 'Offentlig tilskudd vedrørende arbeidskraft',
  '58': 'Offentlig refusjon vedrørende arbeidskraft',
  '59': 'Annen personalkostnad',
  '60': 'Av- og nedskrivning',
  '61': 'Frakt og transportkostnad vedrørende salg',
  '62': 'Energi, brensel mv. vedrørende produksjon',
  '63': 'Kostnader lokaler',
  '64': 'Leie maskiner, inventar mv.',
  '65': 'Verktøy, inventar og driftsmaterialer som ikke skal aktiveres',
  '66': 'Reparasjon og vedlikehold',
  '67': 'Fremmed tjeneste',
  '68': 'Kontorkostnad, trykksak mv.',
  '69': 'Telefon, porto mv.',
  '70': 'Kostnad transportmidler',
  '71': 'Kostnad og godtgjørelse for reiser, diett, bil o.l.',
  '72': 'Provisjonskostnad',
  '73': 'Salgs-, reklame- og representasjonskostnad',
  '74': 'Kontingent og gave',
  '75': 'Forsikringspremie, garanti- og servicekostnad',
  '76': 'Lisens- og patentkostnad',
  '77': 'Annen kostnad',
  '78': 'Tap o.l.',
  '79': 'Periodisering',
  '80': 'Finansinntekt',
  '81': 'Finanskostnad',
  '82': 'Ekstraordinær inntekt',
  '83': 'Skattekostnad på ordinært resultat',
  '84': 'Ekstraordinær kostnad',
  '85': 'Ekstraordinær kostnad',
  '86': 'Skattekostnad på ekstraordinært resultat',
  '87': 'Skattekostnad',
  '88': 'Årsresultat',
  '89': 'Overføringer og disponeringer',
};

/** [first group, last group, code, name] of levels 1 and 2. */
const LEVEL1: readonly [number, number, string, string][] = [
  [10, 19, '1', 'Eiendeler'],
  [20, 29, '2', 'Egenkapital og gjeld'],
  [30, 79, '3-7', 'Driftsresultat'],
  [80, 81, '80-81', 'Finansposter'],
  [82, 89, '82-89', 'Skatt, årsresultat og disponeringer'],
];
const LEVEL2: readonly [number, number, string, string][] = [
  [10, 13, '10-13', 'Anleggsmidler'],
  [14, 19, '14-19', 'Omløpsmidler'],
  [20, 20, '20', 'Egenkapital'],
  [21, 22, '21-22', 'Langsiktig gjeld'],
  [23, 29, '23-29', 'Kortsiktig gjeld'],
  [30, 39, '3', 'Driftsinntekter'],
  [40, 79, '4-7', 'Driftskostnader'],
  [80, 80, '80', 'Finansinntekter'],
  [81, 81, '81', 'Finanskostnader'],
  [82, 89, '82-89', 'Skatt, årsresultat og disponeringer'],
];

const OTHER = { code: '9', name: 'Andre kontoer' };

const find = (table: readonly [number, number, string, string][], group: number) => table.find(([lo, hi]) => group >= lo && group <= hi);

/** The grouping of an account code ('1500' → Eiendeler / Omløpsmidler / 15 Kortsiktige fordringer). */
export function groupingOf(accountCode: string): Grouping {
  const two = /^\d\d/.exec(accountCode)?.[0];
  const group = two ? Number(two) : NaN;
  const l1 = find(LEVEL1, group);
  const l2 = find(LEVEL2, group);
  if (!two || !l1 || !l2) {
    return { level1Code: OTHER.code, level1Name: OTHER.name, level2Code: OTHER.code, level2Name: OTHER.name, level3Code: two ?? OTHER.code, level3Name: OTHER.name };
  }
  return { level1Code: l1[2], level1Name: l1[3], level2Code: l2[2], level2Name: l2[3], level3Code: two, level3Name: GROUPS[two] ?? OTHER.name };
}

/**
 * Where the result of the result accounts that no closing entry moved into equity is shown: a row of
 * the balance sheet (so its rows net to zero) and part of this account's opening balance in SAF-T.
 */
export const UNCLOSED_RESULT = { code: '2050', name: 'Udisponert resultat (ikke avsluttet)' } as const;
