// `dacli board`: a local web server over the same store,
// reached lazily through services.boardServe so only this command loads it.
// Every request is checked in this order: the Host header names this server,
// the session token (URL once, then a cookie; a header for scripts), the path
// (the page's three files, /api/…), and for actions the CSRF token. Reads and
// actions go through the command table and invoke(), as the CLI does.

import { spawn } from 'node:child_process'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { platform } from 'node:os'
import { gzipSync } from 'node:zlib'
import { drainable } from '../base/drain.js'
import { RefusedError } from '../base/errors.js'
import type { CommandEntry } from '../clikit/command.js'
import type { BoardHandle, BoardServeRequest } from '../clikit/context.js'
import {
  ACTIONS,
  type Answer,
  argvOf,
  commandAt,
  errorAnswer,
  executingFlags,
  noCommandAnswer,
  type Params,
  paramsOfBody,
  run,
  usageAnswer,
} from './api.js'
import { type Asset, loadAssets } from './assets.js'
import { csrfOk, hostAllowed, newSecrets, presented, type Secrets, sessionCookie } from './guard.js'
import { watchTree } from './watch.js'

const MAX_URL = 8_192
const MAX_BODY = 65_536
const DRAIN_LIMIT = 16 * 1024 * 1024
const MAX_STREAMS = 64
const HEARTBEAT_MS = 20_000

const SECURITY = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
}

const ALLOW = { Allow: 'GET, POST' }

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer, extra = {}): void {
  res.writeHead(status, { ...SECURITY, 'Content-Type': type, 'Cache-Control': 'no-store', ...extra })
  res.end(body)
}

const text = (res: http.ServerResponse, status: number, body: string) =>
  send(res, status, 'text/plain; charset=utf-8', `${body}\n`)

function answer(res: http.ServerResponse, a: Answer, extra: Record<string, string> = {}): void {
  send(res, a.status, 'application/json; charset=utf-8', a.body, { 'X-Dacli-Exit-Code': String(a.exit), ...extra })
}

function refused(policy: string, message: string, next: string[]): Answer {
  return errorAnswer(new RefusedError(policy, message, { next }), 403)
}

/**
 * The body, or null when it is larger than MAX_BODY. An oversize body is drained, not kept, and answered once it has
 * been sent (so the client reads its 413 document: destroying the request, or answering while it still uploads,
 * leaves it an empty reply or a reset). Past DRAIN_LIMIT the connection is cut.
 */
function readBody(req: http.IncomingMessage): Promise<string | null> {
  return new Promise((resolve) => {
    let size = 0
    let parts: Buffer[] | null = Number(req.headers['content-length'] ?? 0) > MAX_BODY ? null : []
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > DRAIN_LIMIT) {
        resolve(null)
        req.destroy()
        return
      }
      if (parts !== null && size > MAX_BODY) parts = null
      parts?.push(c)
    })
    req.on('end', () => resolve(parts === null ? null : Buffer.concat(parts).toString('utf8')))
    req.on('error', () => resolve(null))
  })
}

function openInBrowser(url: string, log: (l: string) => void): void {
  const [cmd, args] =
    platform() === 'darwin'
      ? ['open', [url]]
      : platform() === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]]
  try {
    const child = spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true })
    child.on('error', () => log(`dacli board: could not open a browser (${cmd}); open the URL yourself`))
    child.unref()
  } catch {
    log('dacli board: could not open a browser; open the URL yourself')
  }
}

export async function serve(req: BoardServeRequest): Promise<BoardHandle> {
  const rt = req.runtime
  const table = rt.table
  const entry = (p: string) => {
    const e = table.find((c) => c.path === p)
    if (e === undefined) throw new Error(`the command table has no "${p}"`)
    return e
  }
  const assets = loadAssets()

  let secrets: Secrets = newSecrets(0)
  let port = 0
  const streams = new Set<http.ServerResponse>()
  let seq = 0
  let index: Asset = assets.get('index.html') as Asset

  // The same read asked again while it runs (two tabs, the warm-up and the first page) shares its answer.
  const inFlight = new Map<string, Promise<Answer>>()
  function read(cmd: CommandEntry, argv: string[]): Promise<Answer> {
    const key = `${cmd.path}\u0000${argv.join('\u0000')}`
    let p = inFlight.get(key)
    if (p === undefined) {
      p = run(rt, cmd, argv).finally(() => inFlight.delete(key))
      inFlight.set(key, p)
    }
    return p
  }

  async function handle(hreq: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const rawUrl = hreq.url ?? '/'
    if (!hostAllowed(hreq, req.host, port)) return text(res, 403, '403: this server answers only to its own address')
    if (rawUrl.length > MAX_URL) return text(res, 414, '414: the request line is too long')
    let url: URL
    try {
      url = new URL(rawUrl, `http://127.0.0.1:${port}`)
    } catch {
      return text(res, 400, '400: malformed request')
    }
    const by = presented(hreq, url, secrets)
    if (by === null) {
      return text(res, 403, '403: this page needs its token: open the URL that `dacli board` printed')
    }
    const method = hreq.method ?? 'GET'
    const p = url.pathname
    if (method !== 'GET' && method !== 'POST') {
      // The API answers in its own document; the page and its assets in text. Either says what is allowed.
      if (p.startsWith('/api/'))
        return answer(res, usageAnswer(`${method} is not served: GET or POST only`, 405), ALLOW)
      return send(res, 405, 'text/plain; charset=utf-8', '405: GET or POST only\n', ALLOW)
    }
    // The first load carries the token in the URL: keep it in a cookie and take it out of the address bar.
    if (by === 'query' && method === 'GET' && (p === '/' || p === '/index.html')) {
      res.writeHead(303, {
        ...SECURITY,
        Location: '/',
        'Set-Cookie': sessionCookie(secrets),
        'Cache-Control': 'no-store',
      })
      return void res.end()
    }
    if (method === 'GET' && (p === '/' || p === '/index.html')) return asset(hreq, res, index)
    if (method === 'GET' && p.startsWith('/assets/')) {
      const a = assets.get(p.slice('/assets/'.length))
      if (a === undefined || p.slice('/assets/'.length) === 'index.html') return text(res, 404, '404: no such file')
      return asset(hreq, res, a)
    }
    if (p === '/api/events' && method === 'GET') return events(hreq, res)
    if (p === '/api/board' && method === 'GET') return answer(res, { status: 200, exit: 0, body: boardDoc() })
    if (!p.startsWith('/api/')) return text(res, 404, '404: not found')
    const segments = p.slice('/api/'.length).split('/')
    const cmd = commandAt(table, segments)
    if (cmd === null) return answer(res, noCommandAnswer(p))
    if (method === 'GET') {
      const params: Params = [...url.searchParams.entries()].filter(([k]) => k !== 't')
      if (cmd.mutates || (cmd.mutatesWith ?? []).some((f) => params.some(([k]) => k === f))) {
        return answer(res, usageAnswer(`${cmd.path} changes the workspace: not a GET`, 405), { Allow: 'POST' })
      }
      if (executingFlags(cmd, params).length > 0) {
        return answer(res, refused('board-runs-no-command', 'the board never runs a command', []))
      }
      const a = argvOf(cmd, params)
      if ('problem' in a) return answer(res, usageAnswer(a.problem))
      return answer(res, await read(cmd, a.argv))
    }
    // POST: one of the page's actions.
    if (!ACTIONS.has(cmd.path)) return answer(res, usageAnswer(`${cmd.path} is not one of the page's actions`, 405))
    if (req.readOnly) {
      return answer(
        res,
        refused('read-only', 'this board was started with --read-only: it makes no changes', [
          'run the command with dacli instead',
        ]),
      )
    }
    if (!csrfOk(hreq, secrets)) {
      return answer(
        res,
        refused('csrf', 'the action lacks this page’s CSRF token (reload the page)', ['reload the page']),
      )
    }
    if (!String(hreq.headers['content-type'] ?? '').startsWith('application/json')) {
      return answer(res, usageAnswer('an action sends a JSON body (Content-Type: application/json)', 415))
    }
    const raw = await readBody(hreq)
    if (raw === null) {
      res.setHeader('Connection', 'close')
      return answer(res, usageAnswer(`the body is larger than ${MAX_BODY} bytes`, 413, { limit: MAX_BODY }))
    }
    let body: unknown
    try {
      body = JSON.parse(raw)
    } catch {
      return answer(res, usageAnswer('the body is not JSON'))
    }
    const params = paramsOfBody(body)
    if (params === null)
      return answer(res, usageAnswer('the body must be {"args": {…}, "flags": {…}} of strings, numbers or booleans'))
    const runs = executingFlags(cmd, params)
    if (runs.length > 0) {
      return answer(
        res,
        refused('board-runs-no-command', `the board never runs a command: ${runs.join(', ')} is refused here`, [
          `run dacli ${cmd.path} ${runs[0]} CMD in a terminal`,
        ]),
      )
    }
    const a = argvOf(cmd, params)
    if ('problem' in a) return answer(res, usageAnswer(a.problem))
    return answer(res, await run(rt, cmd, a.argv))
  }

  function asset(hreq: http.IncomingMessage, res: http.ServerResponse, a: Asset): void {
    const headers = {
      ...SECURITY,
      'Content-Type': a.type,
      'Cache-Control': 'no-cache',
      ETag: a.etag,
      Vary: 'Accept-Encoding',
    }
    if (hreq.headers['if-none-match'] === a.etag) {
      res.writeHead(304, headers)
      return void res.end()
    }
    const gz = /\bgzip\b/.test(String(hreq.headers['accept-encoding'] ?? ''))
    res.writeHead(200, gz ? { ...headers, 'Content-Encoding': 'gzip' } : headers)
    res.end(gz ? a.gzip : a.body)
  }

  function events(hreq: http.IncomingMessage, res: http.ServerResponse): void {
    if (streams.size >= MAX_STREAMS) {
      text(res, 503, '503: too many open pages')
      return
    }
    res.writeHead(200, { ...SECURITY, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' })
    res.write(`retry: 1000\nevent: hello\ndata: {"seq":${seq}}\n\n`)
    streams.add(res)
    hreq.on('close', () => streams.delete(res))
  }

  function broadcast(): void {
    seq++
    for (const s of streams) s.write(`event: change\ndata: {"seq":${seq}}\n\n`)
  }

  function boardDoc(): string {
    return `${JSON.stringify({
      schema: 'board/v1',
      url: `http://${hostForUrl(req.host)}:${port}/?t=${secrets.token}`,
      port,
      host: req.host,
      read_only: req.readOnly,
      identity: req.identity,
    })}\n`
  }

  const server = http.createServer((hreq, res) => {
    handle(hreq, res).catch((e: unknown) => {
      req.log(`dacli board: ${(e as Error).message}`)
      if (!res.headersSent) text(res, 500, '500: internal error (see the terminal running dacli board)')
      else res.end()
    })
  })
  server.headersTimeout = 10_000
  server.requestTimeout = 60_000
  const drain = drainable(server)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(req.port, req.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  port = (server.address() as AddressInfo).port
  secrets = newSecrets(port)
  const csrfMeta = `<meta name="dacli-csrf" content="${secrets.csrf}">`
  const html = Buffer.from((assets.get('index.html') as Asset).body.toString('utf8').replace('<!--csrf-->', csrfMeta))
  index = { ...index, body: html, gzip: gzipSync(html), etag: `"i-${secrets.csrf.slice(0, 8)}"` }

  const watch = watchTree(req.folders, broadcast)
  const heartbeat = setInterval(() => {
    for (const s of streams) s.write(': keep-alive\n\n')
  }, HEARTBEAT_MS)
  heartbeat.unref()

  const url = `http://${hostForUrl(req.host)}:${port}/?t=${secrets.token}`
  // Warm up while the person opens the page: load the read path's modules and bring the store's caches up to date.
  void read(entry('project list'), ['--json', '--']).catch(() => {})
  if (req.open) openInBrowser(url, req.log)
  let closing: Promise<void> | null = null
  return {
    url,
    port,
    host: req.host,
    close() {
      closing ??= (async () => {
        watch.close()
        clearInterval(heartbeat)
        for (const s of streams) s.end()
        streams.clear()
        // An action under way when the person pressed Ctrl-C still tells the page how it ended (base/drain.ts).
        await drain.stop()
        server.closeAllConnections()
        await drain.closed
      })()
      return closing
    },
  }
}

const hostForUrl = (h: string) => (h.includes(':') ? `[${h}]` : h)
