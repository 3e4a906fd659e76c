import { createHash } from 'node:crypto';
import { isValidNationalIdNumber, isValidOrganizationNumber } from '../../shared/norwegian-ids.ts';
import { defineSandbox, sandboxError } from '../sandbox/define.ts';

/**
 * The tax authority's reports of an employment's end, simulated (see ./employments.ts). Every report
 * accepted is kept in memory, as received; the same employment and end date reported again answers
 * the first receipt and is not kept twice. The control
 * GET /taxauthority/sandbox/employment-end-reports?organisasjonsnummer=… (or arbeidsforhold_id=…)
 * reads them back: `{reports: [{…the body, referanse, mottatt}]}`, oldest first.
 * A body without a valid organisation number, an arbeidsforholdId, ISO dates with the end not before
 * the start, or with a person number that fails its check digits is a 400.
 */
interface Report {
  organisasjonsnummer: string;
  arbeidsforholdId: string;
  arbeidstakeridentifikator: string | null;
  startdato: string;
  sluttdato: string;
  sluttaarsak: string | null;
  referanse: string;
  mottatt: string;
}

const reports: Report[] = [];
const isoDate = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v));

defineSandbox('taxauthority', (router) => {
  router.post('/employments/end-reports', (req, res) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const org = typeof b.organisasjonsnummer === 'string' ? b.organisasjonsnummer : '';
    if (!isValidOrganizationNumber(org)) return sandboxError(res, 400, 'organisasjonsnummer must be a valid organisation number');
    if (typeof b.arbeidsforholdId !== 'string' || !b.arbeidsforholdId.trim()) return sandboxError(res, 400, 'arbeidsforholdId is required');
    const person = b.arbeidstakeridentifikator ?? null;
    if (person !== null && (typeof person !== 'string' || !isValidNationalIdNumber(person))) return sandboxError(res, 400, 'arbeidstakeridentifikator must be a valid national identity number or null');
    if (!isoDate(b.startdato) || !isoDate(b.sluttdato)) return sandboxError(res, 400, 'startdato and sluttdato must be dates YYYY-MM-DD');
    if (b.sluttdato < b.startdato) return sandboxError(res, 400, 'sluttdato must not be before startdato');
    const reason = typeof b.sluttaarsak === 'string' ? b.sluttaarsak : null;
    const known = reports.find((r) => r.organisasjonsnummer === org && r.arbeidsforholdId === b.arbeidsforholdId && r.sluttdato === b.sluttdato);
    if (known) return res.status(201).json({ referanse: known.referanse, mottatt: known.mottatt });
    const referanse = `AVS-${createHash('sha256').update(`${org}:${b.arbeidsforholdId}:${b.sluttdato}`).digest('hex').slice(0, 16).toUpperCase()}`;
    const report: Report = {
      organisasjonsnummer: org,
      arbeidsforholdId: b.arbeidsforholdId,
      arbeidstakeridentifikator: person as string | null,
      startdato: b.startdato,
      sluttdato: b.sluttdato,
      sluttaarsak: reason,
      referanse,
      mottatt: new Date().toISOString(),
    };
    reports.push(report);
    res.status(201).json({ referanse, mottatt: report.mottatt });
  });

  router.get('/sandbox/employment-end-reports', (req, res) => {
    const org = typeof req.query.organisasjonsnummer === 'string' ? req.query.organisasjonsnummer : undefined;
    const id = typeof req.query.arbeidsforhold_id === 'string' ? req.query.arbeidsforhold_id : undefined;
    if (!org && !id) return sandboxError(res, 400, 'give organisasjonsnummer or arbeidsforhold_id');
    res.json({ reports: reports.filter((r) => (!org || r.organisasjonsnummer === org) && (!id || r.arbeidsforholdId === id)) });
  });
});
