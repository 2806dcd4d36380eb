// Params checked before the SDK reads them. The SDK parses a request's params with the method's schema inside
// the handler it installs, and a failure there is answered as an internal error (-32603) whose message is the
// schema library's issue list. A server whose handlers are registered through CheckedServer answers such a
// request with -32602 (invalid params) and one short line naming the bad param, as stdio.ts does for tools/call.

import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js'
import { ProtocolError } from './resources.js'

interface Issue {
  readonly code: string
  readonly path: readonly PropertyKey[]
  readonly expected?: unknown
  readonly message: string
}

/** What JSON calls a value: an object, an array, a string, a number, a boolean, null. */
function jsonType(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  const t = typeof v
  return t === 'object' ? 'an object' : `a ${t}`
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let at = root
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined
    at = (at as Record<PropertyKey, unknown>)[key]
  }
  return at
}

/** One issue in words: `params.cursor must be a string, not a number`. */
function described(request: unknown, issue: Issue): string {
  const where = issue.path.map(String).join('.') || 'params'
  if (issue.code === 'invalid_type' && typeof issue.expected === 'string') {
    const got = valueAt(request, issue.path)
    const want = issue.expected === 'object' ? 'an object' : `a ${issue.expected}`
    return got === undefined ? `${where} is missing (${want})` : `${where} must be ${want}, not ${jsonType(got)}`
  }
  return `${where}: ${issue.message}`
}

/** What is used of a request's schema (the SDK's zod objects; zod itself loads only where the house allows). */
interface RequestSchema {
  safeParse(v: unknown): { success: true; data: unknown } | { success: false; error: { issues: readonly Issue[] } }
  omit(keys: { params: true }): { loose(): unknown }
}

/** The readable refusal of a request its method's schema did not take (at most three of the issues). */
function problemOf(request: { method: string }, issues: readonly Issue[]): string {
  return `invalid params for ${request.method}: ${issues
    .slice(0, 3)
    .map((i) => described(request, i))
    .join('; ')}`
}

type Register = Server['setRequestHandler']

/** The SDK's Server, whose every request handler first checks params (see the top of this file). */
export class CheckedServer extends Server {
  override setRequestHandler(...[schema, handler]: Parameters<Register>): void {
    const strict = schema as unknown as RequestSchema
    // The SDK parses with a schema that passes any params through; the method's own schema is applied here, first.
    const loose = strict.omit({ params: true }).loose()
    const checked = (request: { method: string }, extra: Parameters<typeof handler>[1]) => {
      const parsed = strict.safeParse(request)
      if (!parsed.success) throw new ProtocolError(ErrorCode.InvalidParams, problemOf(request, parsed.error.issues))
      return handler(parsed.data as never, extra)
    }
    super.setRequestHandler(loose as never, checked as never)
  }
}
