// Who may talk to the board: the session token (in the printed URL, then a
// cookie, or a header for scripts), the CSRF token every action must carry, and
// the Host header (a page on another site that rebinds its DNS name to
// 127.0.0.1 still sends its own name, and is refused).

import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

export interface Secrets {
  /** The session token printed in the URL. */
  readonly token: string
  /** What an action must echo in X-Dacli-CSRF (given to the page by /api/session). */
  readonly csrf: string
  /** The cookie holding the session token, named per port (cookies are shared across ports). */
  readonly cookie: string
}

export function newSecrets(port: number): Secrets {
  return {
    token: randomBytes(24).toString('base64url'),
    csrf: randomBytes(24).toString('base64url'),
    cookie: `dacli_board_${port}`,
  }
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

function cookieValue(req: IncomingMessage, name: string): string | null {
  const header = req.headers.cookie
  if (typeof header !== 'string') return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return null
}

/** The session token the request carries, from where it carried it. */
export function presented(req: IncomingMessage, url: URL, s: Secrets): 'query' | 'cookie' | 'header' | null {
  const q = url.searchParams.get('t')
  if (q !== null && same(q, s.token)) return 'query'
  const c = cookieValue(req, s.cookie)
  if (c !== null && same(c, s.token)) return 'cookie'
  const h = req.headers['x-dacli-token']
  if (typeof h === 'string' && same(h, s.token)) return 'header'
  return null
}

/**
 * The Host header names this server (loopback names, or the host it was told to listen on), with its port. Bound to
 * every interface (`--host 0.0.0.0` or `::`), any name is accepted: the token still guards every request.
 */
export function hostAllowed(req: IncomingMessage, listenHost: string, port: number): boolean {
  const host = req.headers.host
  if (typeof host !== 'string') return false
  if (listenHost === '0.0.0.0' || listenHost === '::') return /^[A-Za-z0-9.:[\]_-]{1,300}$/.test(host)
  const names = new Set(['127.0.0.1', 'localhost', '[::1]', listenHost.includes(':') ? `[${listenHost}]` : listenHost])
  return [...names].some((n) => host.toLowerCase() === `${n.toLowerCase()}:${port}`)
}

/** An action's CSRF proof: the header, and (when the browser sends one) an Origin naming this server. */
export function csrfOk(req: IncomingMessage, s: Secrets): boolean {
  const h = req.headers['x-dacli-csrf']
  if (typeof h !== 'string' || !same(h, s.csrf)) return false
  const origin = req.headers.origin
  if (typeof origin === 'string' && origin !== `http://${req.headers.host}`) return false
  return true
}

export function sessionCookie(s: Secrets): string {
  return `${s.cookie}=${s.token}; HttpOnly; SameSite=Strict; Path=/`
}
