import type ipaddr from 'ipaddr.js'

/**
 * Whether a URL's host may be reached by a program: only public unicast space. Addresses are
 * classified by ipaddr.js (its `range()` names loopback, private, link-local, unique-local,
 * site-local, reserved, documentation, discard, NAT64, 6to4, Teredo …) instead of hand lists; the
 * forms that carry an IPv4 address inside (IPv4-mapped and -translated, NAT64, 6to4, Teredo) are
 * judged by the addresses they carry. The WHATWG URL parser has already turned decimal, hex and
 * octal IPv4 forms (`http://2130706433/`, `http://0x7f.1/`) into dotted quads and IPv6 into its
 * compressed form; names are judged by their spelling (the host may also resolve them: `resolve`).
 */

type Address = ipaddr.IPv4 | ipaddr.IPv6
type Ipaddr = typeof ipaddr

let loading: Promise<Ipaddr> | undefined

/** ipaddr.js, loaded by the first request a program makes: not at start-up (most runs fetch nothing). */
function loadIpaddr(): Promise<Ipaddr> {
  loading ??= import('ipaddr.js').then(
    m => ((m as { default?: Ipaddr }).default ?? m) as Ipaddr,
    error => {
      loading = undefined // tried again by the next request
      throw error
    },
  )
  return loading
}

/** How each range ipaddr.js names is told to the program (anything not here is named as it is). */
const RANGES: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
  private: 'a private address',
  uniqueLocal: 'a private (unique local) address',
  deprecatedSiteLocal: 'a private (site-local) address',
  reserved: 'a reserved or documentation address',
  benchmarking: 'a benchmarking address',
  discard: 'a discard-only address',
}

/** How an address that carries an IPv4 address inside is named, by its range. */
const FORMS: Record<string, string> = {
  ipv4Mapped: 'an IPv4-mapped form',
  rfc6145: 'an IPv4-translated form',
  rfc6052: 'a NAT64 form',
  '6to4': 'a 6to4 form',
  teredo: 'a Teredo form',
}

/** Why a host is private, or undefined for a public one. */
export async function privateHost(hostname: string): Promise<string | undefined> {
  const host = hostname.toLowerCase().replace(/\.$/, '')
  const ip = await loadIpaddr()
  if (host.startsWith('[')) return classify(ip, host.slice(1, -1))
  if (ip.IPv4.isValidFourPartDecimal(host)) return classify(ip, host)
  if (host === 'localhost' || host.endsWith('.localhost')) return 'a loopback name'
  if (host.endsWith('.local') || host.endsWith('.internal') || host.endsWith('.home.arpa') || !host.includes('.'))
    return 'a local network name'
  return undefined
}

/** Why an address is not public unicast space (also for the addresses a name resolved to: `resolve`). */
export async function privateAddress(address: string): Promise<string | undefined> {
  return classify(await loadIpaddr(), address)
}

function classify(ip: Ipaddr, address: string): string | undefined {
  let parsed: Address
  try {
    parsed = ip.parse(address)
  } catch {
    return 'an address that is not an IP address'
  }
  return parsed.kind() === 'ipv4' ? whyIPv4(parsed as ipaddr.IPv4) : whyIPv6(ip, parsed as ipaddr.IPv6)
}

function named(range: string): string {
  return RANGES[range] ?? `a special-purpose address (${range})`
}

function whyIPv4(ip: ipaddr.IPv4): string | undefined {
  const range = ip.range()
  return range === 'unicast' ? undefined : named(range)
}

function whyIPv6(ip: Ipaddr, address: ipaddr.IPv6): string | undefined {
  const range: string = address.range()
  const p = address.parts
  if (range === 'unicast') {
    // IPv4-compatible (`::a.b.c.d`, deprecated by RFC 4291): ipaddr.js has no range for it.
    return p.slice(0, 6).every(x => x === 0) ? 'an IPv4-compatible address' : undefined
  }
  // RFC 8215's local-use NAT64 prefix translates through the operator's own network: never public.
  if (range === 'rfc6052' && p[2] !== 0) return 'a local-use NAT64 address'
  const inside = embeddedIPv4(ip, range, p)
  if (!inside) return named(range)
  for (const v4 of inside) {
    const why = whyIPv4(v4)
    if (why) return `${FORMS[range]} of ${why}`
  }
  return undefined
}

/** The IPv4 addresses an IPv6 address of `range` carries, or undefined for a range that carries none. */
function embeddedIPv4(ip: Ipaddr, range: string, p: number[]): ipaddr.IPv4[] | undefined {
  const v4 = (high: number, low: number) => new ip.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
    case 'rfc6052': // 64:ff9b::a.b.c.d
      return [v4(p[6], p[7])]
    case '6to4': // 2002:AABB:CCDD::/48
      return [v4(p[1], p[2])]
    case 'teredo': // 2001:0:<server>:<flags>:<port>:<client, inverted>
      return [v4(p[2], p[3]), v4(p[6] ^ 0xffff, p[7] ^ 0xffff)]
    default:
      return undefined
  }
}
