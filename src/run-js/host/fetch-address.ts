/**
 * Whether a URL's host is private: loopback, link-local, private ranges, unspecified, multicast,
 * and names that mean this machine or its network. The WHATWG URL parser has already turned decimal,
 * hex and octal IPv4 forms (`http://2130706433/`, `http://0x7f.1/`) into dotted quads and IPv6 into
 * its compressed form, so only those two shapes need reading here.
 */

/** Why a host is private, or undefined for a public one. */
export function privateHost(hostname: string): string | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '')
  if (host.startsWith('[')) return privateIPv6(host.slice(1, -1))
  const v4 = parseIPv4(host)
  if (v4) return privateIPv4(v4)
  if (host === 'localhost' || host.endsWith('.localhost')) return 'a loopback name'
  if (host.endsWith('.local') || host.endsWith('.internal') || host.endsWith('.home.arpa') || !host.includes('.'))
    return 'a local network name'
  return undefined
}

/** Why an address a name resolved to is private (for hosts that resolve names: `resolve`). */
export function privateAddress(address: string): string | undefined {
  if (address.includes(':')) return privateIPv6(address)
  const v4 = parseIPv4(address)
  return v4 ? privateIPv4(v4) : 'an address that is not an IP address'
}

function parseIPv4(host: string): number[] | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host)
  if (!m) return undefined
  const parts = m.slice(1).map(Number)
  return parts.every(p => p <= 255) ? parts : undefined
}

function privateIPv4([a, b]: number[]): string | undefined {
  if (a === 127) return 'a loopback address'
  if (a === 0) return 'an unspecified address'
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'a private address'
  if (a === 169 && b === 254) return 'a link-local address'
  if (a === 100 && b >= 64 && b <= 127) return 'a shared (carrier-grade NAT) address'
  if (a === 198 && (b === 18 || b === 19)) return 'a benchmarking address'
  if (a >= 224) return 'a multicast or reserved address'
  return undefined
}

/** The 8 groups of an IPv6 address (with an embedded IPv4 tail read as two groups). */
function groupsOf(address: string): number[] | undefined {
  let text = address.toLowerCase()
  const zone = text.indexOf('%')
  if (zone >= 0) text = text.slice(0, zone)
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (tail) {
    const v4 = parseIPv4(tail[1])
    if (!v4) return undefined
    text = text.slice(0, -tail[1].length) + `${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`
  }
  const [head, rest] = text.split('::')
  const left = head ? head.split(':') : []
  const right = rest === undefined ? [] : rest ? rest.split(':') : []
  const missing = 8 - left.length - right.length
  if (rest === undefined ? left.length !== 8 : missing < 0) return undefined
  const all = [...left, ...Array(rest === undefined ? 0 : missing).fill('0'), ...right].map(g => parseInt(g, 16))
  return all.length === 8 && all.every(g => g >= 0 && g <= 0xffff) ? all : undefined
}

function privateIPv6(address: string): string | undefined {
  const g = groupsOf(address)
  if (!g) return 'an address that cannot be read'
  const zeroUntil = (n: number) => g.slice(0, n).every(x => x === 0)
  if (zeroUntil(7) && g[7] === 1) return 'a loopback address'
  if (zeroUntil(8)) return 'an unspecified address'
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d): judge the IPv4 inside.
  const embedded = [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff]
  if ((zeroUntil(5) && g[5] === 0xffff) || zeroUntil(6) || (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every(x => x === 0)))
    return privateIPv4(embedded) ?? (zeroUntil(6) ? 'an IPv4-compatible address' : undefined)
  if ((g[0] & 0xfe00) === 0xfc00) return 'a private (unique local) address'
  if ((g[0] & 0xffc0) === 0xfe80) return 'a link-local address'
  if ((g[0] & 0xff00) === 0xff00) return 'a multicast address'
  return undefined
}
