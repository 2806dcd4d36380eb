// Rendering of success documents and of errors (COMPATIBILITY.md).

import { cmd } from '../base/commands.js'
import { classifiedError, RefusedError } from '../base/errors.js'
import { RawJSON } from '../base/rawjson.js'
import { closestOf } from './didyoumean.js'
import { exitCodeOf, isUnexpected, KIND_OF_CODE, missingModule } from './exit.js'
import type { Writer } from './io.js'
import { textGate, wrapUsage } from './text.js'

/** One compact JSON document, newline-terminated, with `schema` as its first key. */
export function renderJSON(doc: unknown): string {
  return `${jsonOf(doc)}\n`
}

/** A document's JSON on one line, `schema` first (renderJSON without the newline). */
export function jsonOf(doc: unknown): string {
  if (doc !== null && typeof doc === 'object' && !Array.isArray(doc) && 'schema' in doc) {
    const { schema, ...rest } = doc as Record<string, unknown>
    return JSON.stringify({ schema, ...rest })
  }
  return JSON.stringify(doc)
}

/** How many characters of a long list writeJSON hands to `write` at a time. */
const PIECE = 64 * 1024

/**
 * Write exactly jsonOf(doc), in pieces of about PIECE characters: a top-level list is stringified one item at a
 * time. A listing of 10,000 tasks is megabytes of JSON; built as one string and then encoded as one buffer, each
 * of those megabytes is memory touched for the first time (measured: about 17 ms of a 10,000-task
 * `task list --json`, and twice the answer's size in peak memory), where pieces reuse the same few pages.
 */
export function writeJSON(doc: unknown, write: (text: string) => void): void {
  if (
    doc === null ||
    typeof doc !== 'object' ||
    Array.isArray(doc) ||
    typeof (doc as { toJSON?: unknown }).toJSON === 'function'
  ) {
    write(jsonOf(doc))
    return
  }
  let obj = doc as Record<string, unknown>
  if ('schema' in obj) {
    // The same object jsonOf stringifies (its few top-level keys are copied; the lists are not).
    const { schema, ...rest } = obj
    obj = { schema, ...rest }
  }
  let head = '{'
  let first = true
  for (const k of Object.keys(obj)) {
    const v = obj[k]
    const prefix = `${first ? '' : ','}${JSON.stringify(k)}:`
    if (Array.isArray(v) && v.length > 1) {
      first = false
      head += `${prefix}[`
      let piece: string[] = [head]
      let size = head.length
      head = ''
      for (let i = 0; i < v.length; i++) {
        // As JSON.stringify writes a list's item: null for what has no JSON (undefined, a function).
        const x = v[i]
        const item = x instanceof RawJSON ? x.text : (JSON.stringify(x) ?? 'null')
        piece.push(i === 0 ? item : `,${item}`)
        size += item.length + 1
        if (size >= PIECE) {
          write(piece.join(''))
          piece = []
          size = 0
        }
      }
      if (piece.length > 0) write(piece.join(''))
      head = ']'
      continue
    }
    const json = JSON.stringify(v)
    if (json === undefined) continue // as JSON.stringify leaves out a key whose value has no JSON
    first = false
    head += prefix + json
  }
  write(`${head}}`)
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
  const missing = c === null ? missingModule(err) : null
  if (missing !== null) details.missing_module = missing
  return {
    schema: 'error/v1',
    ok: false,
    exit_code: code,
    kind: KIND_OF_CODE[code] ?? 'failure',
    message: missing === null ? messageOf(err) : replacedMessage(missing),
    suggestions: c?.suggestions ?? [],
    next_actions: c?.next ?? (missing === null ? [] : RESTART),
    details,
  }
}

/** A module of the install that is gone: the files were replaced under the running process (exit.ts). */
const replacedMessage = (module: string) =>
  `dacli cannot load its own module ${module}: its installed files changed after this process started (an upgrade or a reinstall while it ran), or are incomplete`

const RESTART = [
  `restart this dacli process so it runs the installed version — an MCP server (${cmd('mcp serve')}) or a board (${cmd('board')}) is restarted by whoever started it — then try again`,
  'if a fresh start fails the same way, reinstall dacli',
]

/** The message to show: the classified error's own message, prefixed by any wrapping context. */
function messageOf(err: unknown): string {
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

const TAIL_LINES = 20

/** The last lines of a failed command's output (`details.output_tail`), for people. */
function tailLines(tail: string, n = TAIL_LINES): string[] {
  const lines = tail.replace(/\n+$/, '').split('\n')
  return lines.slice(-n)
}

/**
 * Human error output: `dacli: <message>`, the refusing policy, the last lines of a failed command's output,
 * suggestions, next actions, and the usage line on exit 2. Messages quote data (titles, paths), so control
 * characters in them are shown as escapes.
 */
export function writeHumanError(
  w: Writer,
  env: Envelope,
  usageLine: string | null,
  color: boolean,
  debugStack?: string,
  /** A terminal's width: the usage line is folded to it (null: a pipe, one line). */
  width: number | null = null,
) {
  const { style: s, prepare, emit } = textGate(color)
  const put = (line: string) => w.write(`${emit(prepare(line))}\n`)
  put(`${s('red', 'dacli:')} ${env.message}`)
  if (typeof env.details.policy === 'string' && env.kind === 'refused') put(s('dim', `policy: ${env.details.policy}`))
  const tail = env.details.output_tail
  if (typeof tail === 'string' && tail.trim() !== '') {
    const lines = tailLines(tail)
    put(s('dim', `Output (last ${lines.length === 1 ? 'line' : `${lines.length} lines`}):`))
    for (const l of lines) put(`  ${l}`)
  }
  const near = closestOf(env.details)
  const titles = near !== null && near.closest.length === env.suggestions.length ? near.closest : null
  if (env.suggestions.length > 0) {
    put('Suggestions:')
    env.suggestions.forEach((x, i) => {
      const title = titles?.[i]?.title
      put(`  ${x}${title ? s('dim', `   # ${title}`) : ''}`)
    })
  } else if (near !== null) {
    put(`Closest: ${near.closest.map((c) => (c.title ? `${c.value} (${c.title})` : c.value)).join(', ')}`)
  }
  if (env.next_actions.length > 0) {
    put('Next actions:')
    for (const x of env.next_actions) put(`  ${x}`)
  }
  if (env.exit_code === 2 && usageLine !== null)
    put(`usage: ${width === null ? usageLine : wrapUsage(usageLine, width, 'usage: ')}`)
  if (debugStack) w.write(`${debugStack}\n`)
}
