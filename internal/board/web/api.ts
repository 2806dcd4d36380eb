// The page's one way to the server: GET /api/<command path> answers with the
// same documents as `dacli … --json`; actions POST with the CSRF token from the
// page's <meta>; /api/events says when anything under .dacli/ changed.

import type { Envelope } from '../../clikit/render.js'

export type { Envelope }

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly envelope: Envelope | null,
    message: string,
  ) {
    super(message)
  }
}

type Params = Record<string, string | number | boolean | readonly (string | number)[] | undefined | null>

function query(params: Params): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === false) continue
    if (Array.isArray(v)) for (const x of v) q.append(k, String(x))
    else q.append(k, v === true ? '' : String(v))
  }
  const s = q.toString()
  return s === '' ? '' : `?${s}`
}

async function parse(res: Response): Promise<unknown> {
  const text = await res.text()
  try {
    return JSON.parse(text)
  } catch {
    throw new ApiError(res.status, null, text.trim() || `HTTP ${res.status}`)
  }
}

/** A read command's document, e.g. get('task/list', {project: 'ledger'}). */
export async function get<T>(path: string, params: Params = {}): Promise<T> {
  const res = await fetch(`/api/${path}${query(params)}`, { credentials: 'same-origin' })
  const body = (await parse(res)) as { schema?: string }
  if (body.schema === 'error/v1') throw new ApiError(res.status, body as Envelope, (body as Envelope).message)
  if (!res.ok) throw new ApiError(res.status, null, `HTTP ${res.status}`)
  return body as T
}

export type Outcome<T> = { ok: true; doc: T } | { ok: false; error: Envelope }

const csrf = () => document.querySelector('meta[name="dacli-csrf"]')?.getAttribute('content') ?? ''

/** Run one of the page's actions (claim, release, tick, done, note) as the server's identity. */
export async function act<T>(path: string, args: Params, flags: Params = {}): Promise<Outcome<T>> {
  const res = await fetch(`/api/${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'X-Dacli-CSRF': csrf() },
    body: JSON.stringify({ args, flags }),
  })
  const body = (await parse(res)) as { schema?: string }
  if (body.schema === 'error/v1') return { ok: false, error: body as Envelope }
  return { ok: true, doc: body as T }
}

/** Changes pushed by the server (server-sent events), with the connection's state. */
export function live(onChange: () => void, onState: (connected: boolean) => void): void {
  const es = new EventSource('/api/events')
  es.addEventListener('hello', () => onState(true))
  es.addEventListener('change', () => onChange())
  es.onerror = () => onState(false)
}
