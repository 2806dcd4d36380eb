// The exit code → MCP result mapping:
//   0        a normal result: structuredContent is the document, plus the same JSON as text;
//   3        a normal result carrying {refused: {policy, reason, next}} — an answer, not a failure;
//   1,2,4,5  isError with the error/v1 envelope.
// Error results carry the envelope as text only (a client that validates structuredContent would hold an envelope
// against the success document).

import { RawJSON } from '../base/rawjson.js'
import type { Refusal } from '../clikit/command.js'
import type { Outcome } from '../clikit/invoke.js'
import type { Envelope } from '../clikit/render.js'

export interface ToolResult {
  [key: string]: unknown
  content: { type: 'text'; text: string }[]
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

/** Appended to every refusal's `next`: the point of exit 3 is that a loop stops here. */
export const NOT_RETRY =
  'This refusal is an answer, not a failure: do one of the above or ask for a decision; retrying the same call unchanged gets the same refusal.'

const text = (value: unknown): { type: 'text'; text: string } => ({ type: 'text', text: JSON.stringify(value) })

const isDoc = (d: unknown): d is Record<string, unknown> => d !== null && typeof d === 'object' && !Array.isArray(d)

export function errorResult(env: Envelope): ToolResult {
  return { isError: true, content: [text(env)] }
}

/** A failure raised before the command ran (the cli tool's own refusals included): a refusal stays an answer. */
export function thrownResult(env: Envelope): ToolResult {
  return env.exit_code === 3 ? refusedResult(env, undefined) : errorResult(env)
}

function refusedResult(env: Envelope | undefined, report: unknown, refusal?: Refusal): ToolResult {
  const policy = refusal?.policy ?? env?.details.policy
  const refused = {
    policy: typeof policy === 'string' ? policy : null,
    reason: refusal?.reason ?? env?.message ?? 'the command reported a refusal (see report)',
    next: [...(refusal?.next ?? env?.next_actions ?? []), NOT_RETRY],
    details: env?.details ?? {},
  }
  const body = isDoc(report) ? { refused, report } : { refused }
  return { content: [text(body)], structuredContent: body }
}

/**
 * Texts that are exactly the JSON of their result's structuredContent (the document's `--json` text). The
 * transport writes such a text twice — escaped as the text content, and as it is for structuredContent —
 * instead of serializing the document a second time (stdio.ts); a few are remembered at most.
 */
const serialized = new Set<string>()

function markSerialized(text: string): void {
  if (serialized.size >= 16) serialized.delete(serialized.values().next().value as string)
  serialized.add(text)
}

/** Whether `text` is the JSON of its result's structuredContent (forgotten once asked: the answer is sent). */
export function takeSerialized(text: string): boolean {
  return serialized.delete(text)
}

/**
 * `printed` is what the command wrote on its (buffered) stdout: the document's exact `--json` text, or help
 * text when the `cli` tool was asked for `--help`.
 */
export function resultOf(out: Outcome, printed: string): ToolResult {
  if (out.exitCode === 0) {
    if (isDoc(out.data)) {
      // A command that streams under --json (pr wait) printed a line per change before its document, which is the
      // last line: the answer carries that one document (text and structuredContent are one and the same JSON).
      const text = printed.trimEnd()
      const json = text.trim() === '' ? JSON.stringify(out.data) : text.slice(text.lastIndexOf('\n') + 1)
      markSerialized(json)
      return { content: [{ type: 'text', text: json }], structuredContent: plainDoc(out.data, json) }
    }
    return { content: [{ type: 'text', text: printed }] }
  }
  if (out.exitCode === 3) return refusedResult(out.error, out.data, out.refusal)
  if (out.error !== undefined) return errorResult(out.error)
  // A verdict command (doctor --strict) prints its report whatever the verdict; the exit code carries it.
  return { isError: true, content: [{ type: 'text', text: printed.trimEnd() || JSON.stringify(out.data ?? null) }] }
}

/**
 * The document as plain values: a list of items whose JSON text was kept (RawJSON, `task list`) is read back from
 * the text, since a transport that hands results over in memory would otherwise pass the wrappers on.
 */
function plainDoc(data: Record<string, unknown>, json: string): Record<string, unknown> {
  for (const v of Object.values(data)) {
    if (Array.isArray(v) && v[0] instanceof RawJSON) return JSON.parse(json) as Record<string, unknown>
  }
  return data
}
