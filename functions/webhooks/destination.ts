// Where a delivery may go. With WEBHOOK_ALLOW_LOCAL unset (the deployed default) only https://
// URLs whose host resolves to public addresses are contacted: loopback, private, link-local
// (cloud metadata at 169.254.169.254), CGNAT, multicast, reserved and unspecified ranges are
// refused, checked at send time on what the name resolves to then (DNS can change after the
// endpoint was created).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

const V4_BLOCKED: [string, number, string][] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "CGNAT"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

function v4(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

/** Why an address must not be contacted, or null when it is public. */
export function blockedRange(address: string): string | null {
  if (isIP(address) === 4) {
    const n = v4(address);
    for (const [base, bits, why] of V4_BLOCKED) {
      const size = 2 ** (32 - bits);
      if (Math.floor(n / size) === Math.floor(v4(base) / size)) return why;
    }
    return null;
  }
  const a = address.toLowerCase().replace(/^\[|\]$/g, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return blockedRange(mapped[1]);
  if (a === "::") return "unspecified";
  if (a === "::1") return "loopback";
  if (/^f[cd]/.test(a)) return "private";
  if (/^fe[89ab]/.test(a)) return "link-local";
  if (/^ff/.test(a)) return "multicast";
  return null;
}

/** Null when the URL may be contacted; otherwise why not (for the delivery's last_error). */
export async function refusedDestination(url: URL, allowLocal: boolean): Promise<string | null> {
  if (allowLocal) return null;
  if (url.protocol !== "https:") return "destination refused: only https:// URLs are contacted";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return `could not resolve ${host}`;
  }
  for (const address of addresses) {
    const why = blockedRange(address);
    if (why) return `destination refused: ${host} resolves to ${address}, a ${why} address, which is not contacted`;
  }
  return null;
}
