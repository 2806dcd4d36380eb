// fetch for the GitHub client: every request has a timeout, and nothing is sent
// off the API's own origin — not to a `Link: rel="next"` on another host, not
// to a redirect elsewhere (redirects are followed here, within the origin only).
// A refused URL raises ForeignHostError before any byte leaves.

import { ForeignHostError } from './failure.js'

const timeoutText = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`)

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** fetch with a timeout that sends nothing off the API's origin, following redirects only within it. */
export function guardedFetch(apiUrl: string, timeoutMs: number): typeof fetch {
  const origin = new URL(apiUrl).origin
  return async (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs)
    const signal = AbortSignal.any([deadline, ...(init?.signal ? [init.signal] : [])])
    let url = new URL(input instanceof Request ? input.url : String(input))
    let method = init?.method ?? 'GET'
    let body: RequestInit['body'] | undefined = init?.body
    for (let hop = 0; ; hop++) {
      if (url.origin !== origin) throw new ForeignHostError(url.host)
      let res: Response
      try {
        res = await fetch(url, {
          ...init,
          method,
          ...(body === undefined ? {} : { body }),
          signal,
          redirect: 'manual',
        })
      } catch (e) {
        // Named, so the message says which deadline passed rather than "This operation was aborted".
        if (deadline.aborted)
          throw new Error(`${url.host} did not answer within ${timeoutText(timeoutMs)} (remote_timeout)`)
        throw e
      }
      const location = res.headers.get('location')
      if (!REDIRECTS.has(res.status) || location === null || hop >= 5) return res
      await res.body?.cancel()
      url = new URL(location, url)
      if (res.status === 303 || (res.status !== 307 && res.status !== 308 && method === 'POST')) {
        method = 'GET'
        body = undefined
      }
    }
  }
}
