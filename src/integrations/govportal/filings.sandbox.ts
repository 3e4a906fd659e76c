import { randomUUID } from 'node:crypto';
import PDFDocument from 'pdfkit';
import type { Request, Response } from 'express';
import { defineSandbox, sandboxError } from '../sandbox/define.ts';
import { FILING_KINDS, type Filing, type FilingKind, type Finding } from './filings.ts';
import { FILINGS_READ_SCOPE } from './portal.ts';
import { systemUserOfToken } from './portal.sandbox.ts';

/**
 * The portal's filing instances, simulated (see ./filings.ts for the API). Validation is the
 * authority's: each kind's rules are registered with defineFilingRules by the module that files it.
 * An instance with an error finding stays a draft; one with warnings does too unless ignore_warnings.
 * Assessment is decided through the sandbox control POST /govportal/sandbox/filings/{id}/decision;
 * POST /govportal/sandbox/filings places an earlier filing (one made elsewhere, for imports).
 * Calls come with the service's own credentials (HTTP Basic), or, for reading an organisation's
 * filings, a bearer token of its Active system user with the scope govportal:filings.read (401 for
 * a token the portal does not know, 403 for another organisation or scope).
 */
type Rules = (data: unknown, filing: { orgNumber: string; reportingYear: number; purpose: string }) => Finding[];

const rules = new Map<FilingKind, Rules>();

/** The authority's validation of a kind's data, as the sandbox applies it. */
export function defineFilingRules(kind: FilingKind, check: Rules): void {
  rules.set(kind, check);
}

/** Runs a kind's registered rules (its module's sandbox file registers them; none registered: no findings). */
export function checkFiling(kind: FilingKind, data: unknown, filing: { orgNumber: string; reportingYear: number; purpose: string }): Finding[] {
  return rules.get(kind)?.(data, filing) ?? [];
}

interface Stored extends Filing {
  data: unknown;
}

const filings = new Map<string, Stored>();

const ORG_NUMBER = /^\d{9}$/;

/** the portal's party id of an organisation: deterministic from its number */
const partyId = (orgNumber: string) => 50_000_000 + (Number(orgNumber) % 10_000_000);

const shown = ({ data: _data, ...filing }: Stored): Filing => filing;

function place(input: {
  kind: FilingKind;
  orgNumber: string;
  reportingYear: number;
  fromDate?: string | null;
  toDate?: string | null;
  purpose: 'original' | 'correction';
  corrects?: string | null;
  data: unknown;
}): Stored {
  const filing: Stored = {
    id: `${partyId(input.orgNumber)}/${randomUUID()}`,
    kind: input.kind,
    org_number: input.orgNumber,
    reporting_year: input.reportingYear,
    from_date: input.fromDate ?? `${input.reportingYear}-01-01`,
    to_date: input.toDate ?? `${input.reportingYear}-12-31`,
    purpose: input.purpose,
    corrects: input.corrects ?? null,
    status: 'draft',
    findings: [],
    reference: null,
    created_at: new Date().toISOString(),
    submitted_at: null,
    decided_at: null,
    decision_reason: null,
    receipt_available: false,
    data: input.data,
  };
  filings.set(filing.id, filing);
  return filing;
}

/** submits a draft when its findings allow it */
function trySubmit(filing: Stored, ignoreWarnings: boolean): void {
  filing.findings = checkFiling(filing.kind, filing.data, { orgNumber: filing.org_number, reportingYear: filing.reporting_year, purpose: filing.purpose });
  const blocked = filing.findings.some((f) => f.severity === 'error' || (!ignoreWarnings && f.severity === 'warning'));
  if (blocked) return;
  filing.status = 'submitted';
  filing.submitted_at = new Date().toISOString();
  filing.reference = `${filing.kind === 'tax-return' ? 'SKM' : 'RR'}-${filing.reporting_year}-${filing.id.slice(-12).toUpperCase()}`;
  filing.receipt_available = true;
}

function body(req: Request): Record<string, unknown> {
  return req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
}

/** the fields of a new instance, or a 400 naming the bad one */
function newFiling(res: Response, b: Record<string, unknown>): Parameters<typeof place>[0] | undefined {
  if (!FILING_KINDS.includes(b.kind as FilingKind)) return void sandboxError(res, 400, `kind must be one of ${FILING_KINDS.join(', ')}`);
  if (typeof b.org_number !== 'string' || !ORG_NUMBER.test(b.org_number)) return void sandboxError(res, 400, 'org_number must be 9 digits');
  if (!Number.isInteger(b.reporting_year)) return void sandboxError(res, 400, 'reporting_year must be an integer');
  const purpose = b.purpose ?? 'original';
  if (purpose !== 'original' && purpose !== 'correction') return void sandboxError(res, 400, 'purpose must be original or correction');
  if (purpose === 'correction') {
    const corrected = typeof b.corrects === 'string' ? filings.get(b.corrects) : undefined;
    if (!corrected || corrected.org_number !== b.org_number || corrected.kind !== b.kind) return void sandboxError(res, 400, 'corrects must name an earlier instance of this organisation and kind');
    if (corrected.status !== 'approved') return void sandboxError(res, 400, 'only an assessed (approved) filing can be corrected');
  }
  return {
    kind: b.kind as FilingKind,
    orgNumber: b.org_number,
    reportingYear: b.reporting_year as number,
    fromDate: typeof b.from_date === 'string' ? b.from_date : undefined,
    toDate: typeof b.to_date === 'string' ? b.to_date : undefined,
    purpose,
    corrects: typeof b.corrects === 'string' ? b.corrects : undefined,
    data: b.data ?? {},
  };
}

function receipt(filing: Stored): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 56, info: { Title: `Kvittering ${filing.reference}`, Producer: 'govportal sandbox' } });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.fontSize(18).text('Kvittering for innsending');
    doc.moveDown().fontSize(11);
    const kind = filing.kind === 'tax-return' ? 'Skattemelding for selskap' : 'Årsregnskap';
    for (const [label, value] of [
      ['Skjema', kind],
      ['Organisasjonsnummer', filing.org_number],
      ['Inntektsår', String(filing.reporting_year)],
      ['Referanse', filing.reference ?? ''],
      ['Instans', filing.id],
      ['Innsendt', filing.submitted_at ?? ''],
      ['Formål', filing.purpose === 'correction' ? 'Endringsanmodning' : 'Egenfastsetting'],
    ]) {
      doc.text(`${label}: ${value}`);
    }
    doc.end();
  });
}

/** a bearer token (a system user's) must speak for the organisation with the read scope; other calls are the service's own */
function tokenAllows(req: Request, res: Response, orgNumber: string): boolean {
  const bearer = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
  if (!bearer) return true;
  const user = systemUserOfToken(bearer);
  if (!user) return (sandboxError(res, 401, 'The token is not valid (unknown, expired, or its system user is no longer Active)'), false);
  if (user.scope !== FILINGS_READ_SCOPE || user.orgNumber !== orgNumber) {
    return (sandboxError(res, 403, `The token gives ${user.scope} for ${user.orgNumber}, not ${FILINGS_READ_SCOPE} for ${orgNumber}`), false);
  }
  return true;
}

defineSandbox('govportal', (router) => {
  router.post('/filings', (req, res) => {
    const b = body(req);
    const input = newFiling(res, b);
    if (!input) return;
    const filing = place(input);
    if (b.submit !== false) trySubmit(filing, b.ignore_warnings !== false);
    else filing.findings = checkFiling(filing.kind, filing.data, { orgNumber: filing.org_number, reportingYear: filing.reporting_year, purpose: filing.purpose });
    res.status(201).json(shown(filing));
  });

  router.get('/filings', (req, res) => {
    const org = String(req.query.org_number ?? '');
    if (!ORG_NUMBER.test(org)) return sandboxError(res, 400, 'org_number must be 9 digits');
    if (!tokenAllows(req, res, org)) return;
    const year = req.query.reporting_year === undefined ? undefined : Number(req.query.reporting_year);
    const items = [...filings.values()]
      .filter((f) => f.org_number === org && (!req.query.kind || f.kind === req.query.kind) && (year === undefined || f.reporting_year === year))
      .sort((a, b) => b.reporting_year - a.reporting_year || a.created_at.localeCompare(b.created_at));
    res.json({ items: items.map(shown) });
  });

  const found = (req: Request, res: Response): Stored | undefined => {
    const filing = filings.get(`${req.params.party}/${req.params.guid}`);
    if (!filing) sandboxError(res, 404, 'No such instance');
    return filing;
  };

  router.get('/filings/:party/:guid', (req, res) => {
    const filing = found(req, res);
    if (filing) res.json(shown(filing));
  });

  router.get('/filings/:party/:guid/data', (req, res) => {
    const filing = found(req, res);
    if (filing && tokenAllows(req, res, filing.org_number)) res.json({ data: filing.data });
  });

  router.post('/filings/:party/:guid/submit', (req, res) => {
    const filing = found(req, res);
    if (!filing) return;
    if (filing.status !== 'draft') return sandboxError(res, 409, `The instance is ${filing.status}, not a draft`);
    trySubmit(filing, body(req).ignore_warnings !== false);
    res.json(shown(filing));
  });

  router.post('/filings/:party/:guid/cancel', (req, res) => {
    const filing = found(req, res);
    if (!filing) return;
    if (filing.status !== 'draft' && filing.status !== 'submitted') return sandboxError(res, 409, `The instance is ${filing.status} and cannot be cancelled`);
    filing.status = 'cancelled';
    res.json(shown(filing));
  });

  router.get('/filings/:party/:guid/receipt', async (req, res, next) => {
    const filing = found(req, res);
    if (!filing) return;
    if (!filing.receipt_available) return sandboxError(res, 404, 'The instance has no receipt (it was never submitted)');
    try {
      res.type('application/pdf').send(await receipt(filing));
    } catch (e) {
      next(e);
    }
  });

  // --- sandbox controls (no real portal has these) ---

  /** places a filing as if made earlier elsewhere: {kind, org_number, reporting_year, status (default approved), data} */
  router.post('/sandbox/filings', (req, res) => {
    const b = body(req);
    const input = newFiling(res, { ...b, purpose: 'original' });
    if (!input) return;
    const status = (b.status ?? 'approved') as Filing['status'];
    if (!['draft', 'submitted', 'approved', 'rejected', 'cancelled'].includes(status)) return sandboxError(res, 400, 'status must be a filing status');
    const filing = place(input);
    if (status !== 'draft') {
      trySubmit(filing, true);
      filing.status = status;
      if (status === 'approved' || status === 'rejected') filing.decided_at = new Date().toISOString();
    }
    res.status(201).json(shown(filing));
  });

  /** the authority's assessment of a submitted filing: {status: approved | rejected, reason} */
  router.post('/sandbox/filings/:party/:guid/decision', (req, res) => {
    const filing = found(req, res);
    if (!filing) return;
    const b = body(req);
    if (b.status !== 'approved' && b.status !== 'rejected') return sandboxError(res, 400, 'status must be approved or rejected');
    if (filing.status !== 'submitted') return sandboxError(res, 409, `The instance is ${filing.status}; only a submitted one is assessed`);
    filing.status = b.status;
    filing.decided_at = new Date().toISOString();
    filing.decision_reason = typeof b.reason === 'string' ? b.reason : null;
    res.json(shown(filing));
  });
});
