// Stopping an HTTP server without dropping the answers under way (`board`, `mcp serve --http`): Ctrl-C cut every
// connection at once, so a request the server was still working on (an action the page sent, a tool call) got no
// answer though its change may have been made. A stopping server takes no new connection, closes the idle ones,
// answers the requests under way and closes each connection as its answer ends; what is still open after a while
// is cut by the caller.

import type * as http from 'node:http'

/** How long a stopping server waits for the requests under way to be answered. */
export const DRAIN_MS = 5_000

export interface Drain {
  /**
   * Stop taking connections and close the idle ones; resolves once every request under way that `wait` picks (all
   * of them by default: not an event stream the server keeps open on its own) has been answered, or after `ms`.
   */
  stop(wait?: (req: http.IncomingMessage) => boolean, ms?: number): Promise<void>
  /** Resolves once the server has closed (every connection ended: the caller cuts what is left after `stop`). */
  readonly closed: Promise<void>
}

/** Follow `server`'s requests from now on, so that it can be stopped without dropping an answer (Drain). */
export function drainable(server: http.Server): Drain {
  const open = new Map<http.ServerResponse, http.IncomingMessage>()
  let stopping = false
  let settled: (() => void) | null = null
  let closed: Promise<void> | null = null
  let picked: (req: http.IncomingMessage) => boolean = () => true
  const pending = () => [...open.values()].some((req) => picked(req))
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    open.set(res, req)
    res.once('close', () => {
      open.delete(res)
      if (!stopping) return
      // The answer ended: its connection is idle now, and a stopping server keeps none alive.
      setImmediate(() => server.closeIdleConnections())
      if (!pending()) settled?.()
    })
  })
  return {
    stop(wait = () => true, ms = DRAIN_MS) {
      stopping = true
      picked = wait
      closed ??= new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      if (!pending()) return Promise.resolve()
      return new Promise<void>((resolve) => {
        const cut = setTimeout(resolve, ms)
        settled = () => {
          clearTimeout(cut)
          resolve()
        }
      })
    },
    get closed() {
      return closed ?? Promise.resolve()
    },
  }
}
