import { z } from 'zod';
import type { Connector } from '../connector.ts';

/**
 * The second bank integration provider's onboarding: one onboarding per organisation, naming the
 * bank accounts to connect. The company's owner gives consent on the provider's page (consent_url);
 * the provider then connects each account it can reach at its bank. Calls go with the service's own
 * credentials (PROVIDERB_CLIENT_ID / PROVIDERB_CLIENT_SECRET).
 */
export const ONBOARDING_STATUSES = ['PENDING_CONSENT', 'COMPLETED'] as const;

export const onboardingSchema = z.object({
  id: z.string().min(1),
  org_number: z.string(),
  status: z.enum(ONBOARDING_STATUSES),
  /** where the company's owner gives consent (null once completed) */
  consent_url: z.string().nullable(),
  /** what is still to be done before the accounts are connected, e.g. CONSENT */
  missing_steps: z.array(z.string()),
  accounts: z.array(z.object({ account_number: z.string(), connected: z.boolean() })),
});
export type Onboarding = z.infer<typeof onboardingSchema>;

/**
 * The organisation's onboarding, created on the first call and updated with the accounts given on
 * later ones (PUT is idempotent): answers the provider's current state.
 */
export function ensureOnboarding(c: Connector, o: { orgNumber: string; name: string; accountNumbers: readonly string[] }): Promise<Onboarding> {
  return c.call(onboardingSchema, 'PUT', `/onboardings/${encodeURIComponent(o.orgNumber)}`, {
    body: { name: o.name, account_numbers: o.accountNumbers },
  });
}
