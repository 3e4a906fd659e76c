import { z } from 'zod';
import { UpstreamError, type Connector } from '../connector.ts';

/**
 * The government portal's person and system-user APIs (spec 002 "Integrations", govportal):
 *
 *   GET  /authentication/exchange          a national-login access token (bearer) → a portal token
 *   GET  /reportees                        HAL+JSON: whom the person of a portal token may act for
 *   GET  /authorized-parties               the same parties with their roles and resources
 *   POST /systemuser/requests              asks an organisation for a system user (service credentials)
 *   GET  /systemuser/requests/{id}         the request and its status (New, Pending, Active, Rejected)
 *   POST /systemuser/token                 a token of an Active system user for one granted scope
 *
 * Calls without a token go with GOVPORTAL_CLIENT_ID/_SECRET as HTTP Basic.
 */

/** our system's id at the portal when GOVPORTAL_CLIENT_ID does not name it */
export const DEFAULT_SYSTEM_ID = 'accounting-api';

/** A right a system user asks for: a portal resource, and the token scope it grants. */
export const rightSchema = z.object({ resource: z.string().min(1), scope: z.string().min(1) });
export type SystemUserRight = z.infer<typeof rightSchema>;

/** the scopes our system needs, and the rights every system user request asks for */
export const PROPERTY_SEARCH_SCOPE = 'taxauthority:eiendom';
export const DIALOGS_SCOPE = 'dialogplatform:dialogs.read';
/** reading the organisation's filing instances at the portal (a tax-return import with auth maskinporten) */
export const FILINGS_READ_SCOPE = 'govportal:filings.read';
export const SYSTEM_RIGHTS: readonly SystemUserRight[] = [
  { resource: 'taxauthority-property-search', scope: PROPERTY_SEARCH_SCOPE },
  { resource: 'dialogplatform-dialogs', scope: DIALOGS_SCOPE },
  { resource: 'govportal-filings', scope: FILINGS_READ_SCOPE },
];

export const SYSTEM_USER_STATUSES = ['New', 'Pending', 'Active', 'Rejected'] as const;

export const systemUserSchema = z.object({
  id: z.string().uuid(),
  external_ref: z.string(),
  system_id: z.string(),
  org_number: z.string().regex(/^\d{9}$/),
  status: z.enum(SYSTEM_USER_STATUSES),
  confirm_url: z.string().nullish(),
  redirect_url: z.string().nullish(),
  rights: z.array(rightSchema),
});
export type PortalSystemUser = z.infer<typeof systemUserSchema>;

const portalTokenSchema = z.object({ access_token: z.string().min(1), expires_in: z.number().int().positive() });

/** The portal token for a national-login access token. */
export function exchangeLoginToken(c: Connector, loginAccessToken: string): Promise<z.infer<typeof portalTokenSchema>> {
  return c.call(portalTokenSchema, 'GET', '/authentication/exchange', { token: loginAccessToken });
}

/** HAL+JSON as the portal sends it: only its outline is checked, the body is passed on unchanged. */
const halSchema = z.looseObject({ _links: z.looseObject({}), _embedded: z.looseObject({ reportees: z.array(z.unknown()) }) });

export function reportees(c: Connector, portalToken: string): Promise<unknown> {
  return c.call(halSchema, 'GET', '/reportees', { token: portalToken });
}

export function authorizedParties(c: Connector, portalToken: string): Promise<unknown> {
  return c.call(z.array(z.looseObject({ name: z.string() })), 'GET', '/authorized-parties', { token: portalToken });
}

export function requestSystemUser(
  c: Connector,
  r: { externalRef: string; systemId: string; orgNumber: string; rights: readonly SystemUserRight[]; redirectUrl?: string | null },
): Promise<PortalSystemUser> {
  return c.call(systemUserSchema, 'POST', '/systemuser/requests', {
    body: { external_ref: r.externalRef, system_id: r.systemId, org_number: r.orgNumber, rights: r.rights, redirect_url: r.redirectUrl ?? null },
  });
}

/** The request, or null when the portal does not know it. */
export async function getSystemUser(c: Connector, id: string): Promise<PortalSystemUser | null> {
  const path = `/systemuser/requests/${encodeURIComponent(id)}`;
  const res = await c.request('GET', path, { accept: [404] });
  if (res.status === 404) return null;
  const parsed = systemUserSchema.safeParse(res.body);
  if (!parsed.success) throw new UpstreamError('govportal', 'malformed', `The government services portal answered in an unexpected shape (GET ${path})`, res.status);
  return parsed.data;
}

const systemTokenSchema = z.object({ access_token: z.string().min(1), expires_in: z.number().int().positive(), scope: z.string() });

/** A token of an Active system user for one of its granted scopes (the portal refuses with 403 otherwise). */
export function systemUserToken(c: Connector, r: { systemUserId: string; scope: string }): Promise<z.infer<typeof systemTokenSchema>> {
  return c.call(systemTokenSchema, 'POST', '/systemuser/token', { body: { system_user_id: r.systemUserId, scope: r.scope } });
}
