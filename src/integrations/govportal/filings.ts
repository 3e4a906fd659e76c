import { z } from 'zod';
import type { Connector } from '../connector.ts';

/**
 * The government portal's filing instances: a tax return (kind `tax-return`) or a yearly account
 * (`yearly-accounts`) is one instance, created with its data, submitted, and then assessed by the
 * authority (approved or rejected). The instance id is what spec 002 calls `portal_instance_id`.
 * Calls go with the service's own credentials (GOVPORTAL_CLIENT_ID / GOVPORTAL_CLIENT_SECRET), or a
 * token when the caller passes one.
 */
export const FILING_KINDS = ['tax-return', 'yearly-accounts'] as const;
export type FilingKind = (typeof FILING_KINDS)[number];
export const FILING_STATUSES = ['draft', 'submitted', 'approved', 'rejected', 'cancelled'] as const;
export type FilingStatus = (typeof FILING_STATUSES)[number];

export const findingSchema = z.object({
  severity: z.enum(['error', 'warning']),
  code: z.string(),
  message: z.string(),
  path: z.string().nullish(),
});
export type Finding = z.infer<typeof findingSchema>;

export const filingSchema = z.object({
  id: z.string().min(1),
  kind: z.enum(FILING_KINDS),
  org_number: z.string(),
  reporting_year: z.number().int(),
  from_date: z.string().nullish(),
  to_date: z.string().nullish(),
  /** original: a first filing; correction: a change to an assessed one (`corrects` names it) */
  purpose: z.enum(['original', 'correction']),
  corrects: z.string().nullish(),
  status: z.enum(FILING_STATUSES),
  findings: z.array(findingSchema),
  /** the authority's reference once submitted */
  reference: z.string().nullish(),
  created_at: z.string(),
  submitted_at: z.string().nullish(),
  decided_at: z.string().nullish(),
  decision_reason: z.string().nullish(),
  /** true when a receipt PDF can be fetched */
  receipt_available: z.boolean(),
});
export type Filing = z.infer<typeof filingSchema>;

export interface NewFiling {
  kind: FilingKind;
  orgNumber: string;
  reportingYear: number;
  fromDate?: string;
  toDate?: string;
  purpose?: 'original' | 'correction';
  /** the instance a correction corrects */
  corrects?: string;
  /** the filing's content (the form's figures and notes) */
  data: unknown;
  /** submit at once (false: create a draft instance) */
  submit: boolean;
  /** submit even with warnings (errors always keep it a draft) */
  ignoreWarnings?: boolean;
}

/** an instance id is `<party>/<guid>`: both parts go in the path */
const instancePath = (id: string) => id.split('/').map(encodeURIComponent).join('/');

export interface CallOptions {
  token?: string;
}

/** Creates an instance; it comes back `submitted`, or `draft` with the findings that kept it one. */
export function createFiling(c: Connector, f: NewFiling, o: CallOptions = {}): Promise<Filing> {
  return c.call(filingSchema, 'POST', '/filings', {
    token: o.token,
    body: {
      kind: f.kind,
      org_number: f.orgNumber,
      reporting_year: f.reportingYear,
      from_date: f.fromDate,
      to_date: f.toDate,
      purpose: f.purpose ?? 'original',
      corrects: f.corrects,
      data: f.data,
      submit: f.submit,
      ignore_warnings: f.ignoreWarnings ?? true,
    },
  });
}

export function getFiling(c: Connector, id: string, o: CallOptions = {}): Promise<Filing> {
  return c.call(filingSchema, 'GET', `/filings/${instancePath(id)}`, { token: o.token });
}

/** The organisation's instances (earlier filings too), newest year first. */
export async function listFilings(c: Connector, q: { orgNumber: string; kind?: FilingKind; reportingYear?: number }, o: CallOptions = {}): Promise<Filing[]> {
  const res = await c.call(z.object({ items: z.array(filingSchema) }), 'GET', '/filings', {
    token: o.token,
    query: { org_number: q.orgNumber, kind: q.kind, reporting_year: q.reportingYear },
  });
  return res.items;
}

/** The content an instance was filed with (what an import seeds from). */
export async function filingData(c: Connector, id: string, o: CallOptions = {}): Promise<unknown> {
  const res = await c.call(z.object({ data: z.unknown() }), 'GET', `/filings/${instancePath(id)}/data`, { token: o.token });
  return res.data;
}

export function submitFiling(c: Connector, id: string, s: { ignoreWarnings?: boolean } = {}, o: CallOptions = {}): Promise<Filing> {
  return c.call(filingSchema, 'POST', `/filings/${instancePath(id)}/submit`, { token: o.token, body: { ignore_warnings: s.ignoreWarnings ?? true } });
}

export function cancelFiling(c: Connector, id: string, o: CallOptions = {}): Promise<Filing> {
  return c.call(filingSchema, 'POST', `/filings/${instancePath(id)}/cancel`, { token: o.token, body: {} });
}

/** The receipt PDF of a submitted instance. */
export async function filingReceipt(c: Connector, id: string, o: CallOptions = {}): Promise<Buffer> {
  const res = await c.get<Buffer>(`/filings/${instancePath(id)}/receipt`, { token: o.token, as: 'bytes' });
  return res.body;
}
