// Rendering of success documents and of errors (contract.md §3, §4).

import { classifiedError, RefusedError } from '../store/errors.js'
import { exitCodeOf, isUnexpected, KIND_OF_CODE } from './exit.js'
import type { Writer } from './io.js'
import { styler } from './io.js'

/** One compact JSON document, newline-terminated, with `schema` as its first key. */
export function renderJSON(doc: unknown): string {
  if (doc !== null && typeof doc === 'object' && !Array.isArray(doc) && 'schema' in doc) {
    const { schema, ...rest } = doc as Record<string, unknown>
    return `${JSON.stringify({ schema, ...rest })}\n`
  }
  return `${JSON.stringify(doc)}\n`
}

export interface Envelope {
  schema: 'error/v1'
  ok: false
  exit_code: number
  kind: string
  message: string
  suggestions: string[]
  next_actions: string[]
  details: Record<string, unknown>
}

/** The error/v1 envelope for any thrown value. */
export function envelopeOf(err: unknown, debug: boolean): Envelope {
  const code = exitCodeOf(err)
  const c = classifiedError(err)
  const details: Record<string, unknown> = { ...(c?.details ?? {}) }
  if (c instanceof RefusedError || (c !== null && c.kind === 'refused' && 'policy' in c)) {
    details.policy = (c as RefusedError).policy
  }
  if (debug && err instanceof Error && err.stack) details.stack = err.stack
  return {
    schema: 'error/v1',
    ok: false,
    exit_code: code,
    kind: KIND_OF_CODE[code] ?? 'failure',
    message: messageOf(err),
    suggestions: c?.suggestions ?? [],
    next_actions: c?.next ?? [],
    details,
  }
}

/** The message to show: the classified error's own message, prefixed by any wrapping context. */
export function messageOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  if (isUnexpected(err)) {
    return `internal error: ${err.message} (this is a bug in dacli; set DACLI_DEBUG=1 for the stack trace)`
  }
  const parts: string[] = []
  const seen = new Set<unknown>()
  for (let cur: unknown = err; cur instanceof Error && !seen.has(cur); cur = cur.cause) {
    seen.add(cur)
    if (!parts.some((p) => p.includes(cur instanceof Error ? cur.message : ''))) parts.push(cur.message)
    if (classifiedError(cur) === cur) break
  }
  return parts.join(': ')
}

/** Human error output: `dacli: <message>`, suggestions, next actions, and the usage line on exit 2. */
export function writeHumanError(
  w: Writer,
  env: Envelope,
  usageLine: string | null,
  color: boolean,
  debugStack?: string,
) {
  const s = styler(color)
  let text = `${s('red', 'dacli:')} ${env.message}\n`
  if (env.suggestions.length > 0) text += `Suggestions:\n${env.suggestions.map((x) => `  ${x}\n`).join('')}`
  if (env.next_actions.length > 0) text += `Next actions:\n${env.next_actions.map((x) => `  ${x}\n`).join('')}`
  if (env.exit_code === 2 && usageLine !== null) text += `usage: ${usageLine}\n`
  if (debugStack) text += `${debugStack}\n`
  w.write(text)
}
