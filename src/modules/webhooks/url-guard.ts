import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ValidationError } from '../../shared/errors.ts';

/**
 * Where a webhook may point (SSRF): https, and every address its host resolves to public. Checked
 * when a webhook is created or its URL changed, and again before every delivery, whose request then
 * goes to the address checked here (pinned), so a DNS answer that changes between check and request
 * (rebinding) cannot reach an internal address. `allowPrivate` (WEBHOOK_ALLOW_PRIVATE_URLS) lets
 * http and every address through, for development and tests.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64 (embeds an IPv4 address)
  ['64:ff9b:1::', 48], // local NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID …)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (embeds an IPv4 address)
  ['fc00::', 7], // unique local (AWS's metadata fd00:ec2::254 too)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** Is the address one a webhook may not reach (loopback, private, link-local, unique-local, CGNAT, metadata, reserved)? */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address) ?? /^::(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hexMapped) {
    const hi = parseInt(hexMapped[1]!, 16);
    const lo = parseInt(hexMapped[2]!, 16);
    return blocked.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
  }
  return blocked.check(address, 'ipv6');
}

/** The address a delivery connects to, checked. */
export interface ResolvedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** Resolves a host name (tests replace it to make a name resolve to loopback). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;
export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * Parses and checks a webhook URL and resolves its host: 400 naming `field` when it is not an
 * absolute http(s) URL, is http without allowPrivate, has credentials, does not resolve, or resolves
 * to any non-public address without allowPrivate.
 */
export async function resolveWebhookUrl(
  text: string,
  { allowPrivate, resolver = systemResolver, field = 'url' }: { allowPrivate: boolean; resolver?: Resolver; field?: string },
): Promise<ResolvedTarget> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw ValidationError.field(field, 'must be an absolute URL (https://…)');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw ValidationError.field(field, allowPrivate ? 'must be an http or https URL' : 'must be an https URL (http is allowed only with WEBHOOK_ALLOW_PRIVATE_URLS=true)');
  }
  if (url.username || url.password) throw ValidationError.field(field, 'must not carry a user name or password');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await resolver(host);
    } catch {
      throw ValidationError.field(field, `host ${host} does not resolve`);
    }
    if (addresses.length === 0) throw ValidationError.field(field, `host ${host} does not resolve`);
  }
  if (!allowPrivate) {
    const inner = addresses.find((a) => isPrivateAddress(a.address));
    if (inner) {
      throw ValidationError.field(
        field,
        `must point to a public address: ${host} is ${inner.address}, a loopback, private, link-local or reserved address (allowed only with WEBHOOK_ALLOW_PRIVATE_URLS=true)`,
      );
    }
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
