import { createHash } from 'node:crypto';
import { PROPERTY_SEARCH_SCOPE } from '../govportal/portal.ts';
import { systemUserOfToken } from '../govportal/portal.sandbox.ts';
import { defineSandbox, sandboxError } from '../sandbox/define.ts';

/**
 * The tax authority's property search, simulated (see ./property.ts). Needs a live system-user token
 * with the scope taxauthority:eiendom (401 without one, 403 another scope). The results follow from
 * the query and the year alone: 0 to 4 properties (a query of "ingen" finds none) at addresses named
 * after the query, with matrikkel numbers and a wealth value (formuesverdi) that rises 4 % a year.
 * Years before 2009 or after next year are a 400.
 */
const MUNICIPALITIES = [
  ['0301', 'Oslo', '0150'],
  ['4601', 'Bergen', '5003'],
  ['5001', 'Trondheim', '7010'],
  ['1103', 'Stavanger', '4006'],
  ['5501', 'Tromsø', '9008'],
] as const;
const TYPES = ['bolig', 'fritidseiendom', 'naeringseiendom', 'tomt'] as const;

const titleCase = (s: string) => s.replace(/\S+/g, (w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase());

export function propertyResults(query: string, year: number) {
  const q = query.trim().replace(/\s+/g, ' ');
  const hash = createHash('sha256').update(`eiendom:${q.toLowerCase()}`).digest();
  const count = q.toLowerCase() === 'ingen' ? 0 : 1 + (hash[0]! % 4);
  const street = titleCase(q.replace(/[^\p{L}\p{N} ]/gu, '').slice(0, 40)) || 'Storgata';
  return Array.from({ length: count }, (_, i) => {
    const [kommunenummer, poststed, postnummer] = MUNICIPALITIES[(hash[1]! + i) % MUNICIPALITIES.length]!;
    const gaardsnummer = 1 + (hash.readUInt16BE(2 + i * 2) % 300);
    const bruksnummer = 1 + (hash[10 + i]! % 150);
    const type = TYPES[(hash[14 + i]! + i) % TYPES.length]!;
    const base = 800_000 + hash.readUInt32BE(16 + i * 2) % 9_000_000;
    const formuesverdi = Math.round((base * Math.pow(1.04, year - 2020)) / 1000) * 1000;
    return {
      eiendomsidentifikator: `${kommunenummer}-${gaardsnummer}/${bruksnummer}`,
      matrikkelenhet: { kommunenummer, gaardsnummer, bruksnummer, festenummer: 0, seksjonsnummer: 0 },
      adresse: { adressetekst: `${street} ${1 + (hash[20 + i]! % 120)}`, postnummer, poststed },
      eiendomstype: type,
      formuesverdi,
      inntektsaar: year,
    };
  });
}

defineSandbox('taxauthority', (router) => {
  router.get('/eiendom/soek/:inntektsaar', (req, res) => {
    const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
    const holder = systemUserOfToken(token);
    if (!holder) return sandboxError(res, 401, 'invalid_token: a live system-user token is required');
    if (holder.scope !== PROPERTY_SEARCH_SCOPE) return sandboxError(res, 403, `The token's scope is ${holder.scope}, not ${PROPERTY_SEARCH_SCOPE}`);
    const year = Number(req.params.inntektsaar);
    if (!Number.isInteger(year) || year < 2009 || year > new Date().getUTCFullYear() + 1) return sandboxError(res, 400, 'inntektsaar must be a year from 2009 to next year');
    const query = typeof req.query.query === 'string' ? req.query.query : '';
    if (query.trim().length < 2) return sandboxError(res, 400, 'query must have at least 2 characters');
    res.json({ inntektsaar: year, query, organisasjonsnummer: holder.orgNumber, eiendommer: propertyResults(query, year) });
  });
});
