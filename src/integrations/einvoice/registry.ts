import { z } from 'zod';
import type { Connector } from '../connector.ts';

/**
 * The e-invoicing network's receiver registry (its address book): an organisation registered as a
 * receiver can be sent e-invoices through the network, in the document types its capabilities name.
 * Calls go with the service's own credentials (EINVOICE_CLIENT_ID / EINVOICE_CLIENT_SECRET): we are
 * the access point registering our customers.
 */
export const receiverSchema = z.object({
  org_number: z.string(),
  name: z.string(),
  /** REGISTERED: reachable in the network; PENDING: the registry has not published it yet */
  status: z.enum(['REGISTERED', 'PENDING']),
  /** document types it receives, e.g. the PEPPOL BIS Billing 3.0 invoice and credit note */
  capabilities: z.array(z.string()),
  registered_at: z.string(),
});
export type Receiver = z.infer<typeof receiverSchema>;

/** Registers (or re-registers) an organisation as a receiver; answers the registry's entry. */
export function registerReceiver(c: Connector, r: { orgNumber: string; name: string }): Promise<Receiver> {
  return c.call(receiverSchema, 'PUT', `/receivers/${encodeURIComponent(r.orgNumber)}`, { body: { name: r.name } });
}

/** Removes an organisation from the registry; one that is not there is already removed. */
export async function deregisterReceiver(c: Connector, orgNumber: string): Promise<void> {
  await c.request('DELETE', `/receivers/${encodeURIComponent(orgNumber)}`, { accept: [404] });
}
