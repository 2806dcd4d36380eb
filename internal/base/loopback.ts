// Which host names and addresses stay on this machine: what a server may listen on without being told it reaches
// other machines, and what a Host or Origin header may name for a loopback server (DNS rebinding protection).

/**
 * A host as the network reads it: an IPv4 address in any form the resolver and URLs accept (`127.1`, `0x7f.0.0.1`,
 * `2130706433`) as its dotted quad, an IPv6 address (bracketed or not) in its compressed form, a name lower-cased.
 * Null when it is none of these.
 */
export function canonicalHost(host: string): string | null {
  const bare = host.replace(/^\[(.*)\]$/, '$1')
  if (bare === '' || /[\s/?#@\\[\]]/.test(bare)) return null
  try {
    return new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname.replace(/^\[(.*)\]$/, '$1')
  } catch {
    return null
  }
}

/** `localhost` (and `*.localhost`), 127.0.0.0/8 and ::1 in any form that names them; case-insensitive. */
export function isLoopback(host: string): boolean {
  const h = canonicalHost(host) ?? host.toLowerCase()
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
}
