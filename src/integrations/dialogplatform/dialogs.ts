import { z } from 'zod';
import type { Connector } from '../connector.ts';

/**
 * The government dialog platform's dialog search (spec 002 "GET /integrations/dialogplatform/
 * dialogs"): GET /dialogs?party=urn:altinn:organization:identifier-no:{org}&status=…&serviceResource=…
 * with a system-user token of the scope dialogplatform:dialogs.read for that organisation.
 */
export const dialogSchema = z.object({
  id: z.string().min(1),
  party: z.string(),
  serviceResource: z.string(),
  status: z.string(),
  title: z.string(),
  senderName: z.string().nullish(),
  createdAt: z.string(),
  updatedAt: z.string(),
  dueAt: z.string().nullish(),
});
export type Dialog = z.infer<typeof dialogSchema>;

export const partyUrn = (orgNumber: string) => `urn:altinn:organization:identifier-no:${orgNumber}`;

export async function searchDialogs(c: Connector, r: { orgNumber: string; status?: string | null; serviceResource?: string | null; token: string }): Promise<Dialog[]> {
  const res = await c.call(z.object({ items: z.array(dialogSchema) }), 'GET', '/dialogs', {
    token: r.token,
    query: { party: partyUrn(r.orgNumber), status: r.status ?? undefined, serviceResource: r.serviceResource ?? undefined },
  });
  return res.items;
}
