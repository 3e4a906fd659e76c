import { z } from 'zod';
import { pageArgs } from '../../shared/pagination.ts';
import { id } from '../../shared/validation.ts';

/** The two person logins: the national login itself, and the government portal reached through it. */
export const LOGIN_SERVICES = ['idprovider', 'govportal'] as const;
export type LoginService = (typeof LOGIN_SERVICES)[number];

/** the browser route the login sends the person back to (mounted in src/app.ts; no bearer token: the state names the user) */
export const callbackPath = (service: LoginService) => `/public/v2/integrations/${service}/callback`;

/** how long a started login may take before its callback is refused */
export const LOGIN_STATE_TTL_MS = 15 * 60_000;

/** a portal token this close to its expiry is refreshed first */
export const TOKEN_MARGIN_MS = 30_000;

/** GET …/govportal/system-users: page 1, per_page 100 by default (spec 002), at most 1000 */
export const SYSTEM_USER_PAGE_LIMITS = { defaultPerPage: 100, maxPerPage: 1000 };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

const httpUrl = (field: string) =>
  z
    .string()
    .max(2000, 'must be at most 2000 characters')
    .refine((v) => /^https?:\/\/[^\s]+$/.test(v), `${field} must be an http:// or https:// URL`)
    .nullish();

/** The inputs of the portal operations (the GraphQL fields' arguments). */
export const portalRules = {
  /**
   * status, reportees, parties: a person's connection. client_account_id is optional (integrators send
   * it with every call): checked for access (403), otherwise it changes nothing — see personAccount
   */
  connection: z.object({ clientAccountId: id.nullish() }),
  authorize: z.object({ returnTo: httpUrl('return_to'), clientAccountId: id.nullish() }),
  createSystemUser: z.object({ clientAccountId: id, redirectUrl: httpUrl('redirect_url') }),
  listSystemUsers: z.object({ clientAccountId: id.nullish(), ...pageArgs }),
  /** any string: one that is no UUID names no system user (404, without a lookup) */
  getSystemUser: z.object({ id: z.string() }),
  propertySearch: z.object({
    /** spec 002: "inntektsaar integer"; which income years exist is the tax authority's to say (its 400) */
    inntektsaar: z.number().int('must be an integer'),
    clientAccountId: id,
    query: z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters'),
  }),
  dialogs: z.object({
    clientAccountId: id,
    status: z.string().max(200, 'must be at most 200 characters').nullish(),
    serviceResource: z.string().max(300, 'must be at most 300 characters').nullish(),
  }),
};
