// The one place that maps an error to an exit code (COMPATIBILITY.md). The
// classification is found anywhere on the `cause` chain, so wrapping an error
// (`new Error('while …', { cause })`) never changes the code.

import { classifiedError, type DacliError, type ErrorKind } from '../base/errors.js'

const CODE_OF: Record<ErrorKind, number> = {
  failure: 1,
  usage: 2,
  refused: 3,
  not_found: 4,
  conflict: 5,
}

export const KIND_OF_CODE: Record<number, ErrorKind> = {
  1: 'failure',
  2: 'usage',
  3: 'refused',
  4: 'not_found',
  5: 'conflict',
}

/** The exit code of a kind (a verdict command's `verdict`, or a classified error's kind). */
export const codeOfKind = (kind: ErrorKind): number => CODE_OF[kind]

export function exitCodeOf(err: unknown): number {
  if (err === null || err === undefined) return 0
  const c = classifiedError(err)
  return c === null ? 1 : CODE_OF[c.kind]
}

/** True for an exception no layer classified and that is not an OS-level failure: a bug. */
export function isUnexpected(err: unknown): boolean {
  if (classifiedError(err) !== null) return false
  return !isSystemError(err) && missingModule(err) === null
}

/**
 * The module of dacli's own that could not be loaded (`./write-G2PGEL2A.js`), or null. Commands load on first use,
 * from the files of the install the process started from; when those were replaced meanwhile (an upgrade, a
 * reinstall, a rebuild under a running `mcp serve` or `board`), the module asked for is gone. An operational
 * failure (1) that a restart cures, not a bug: the message says so (render.ts).
 */
export function missingModule(err: unknown): string | null {
  for (const cur of causeChain(err)) {
    const code = (cur as { code?: unknown }).code
    if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') {
      const message = String((cur as { message?: unknown }).message ?? '')
      return /Cannot find (?:module|package) '([^']+)'/.exec(message)?.[1] ?? (message.split('\n')[0] as string)
    }
  }
  return null
}

/** Node's system errors (ENOENT, EACCES, ENOSPC, …) anywhere on the cause chain. */
function isSystemError(err: unknown): boolean {
  for (const cur of causeChain(err)) {
    const code = (cur as { code?: unknown }).code
    if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return true
  }
  return false
}

/** An error and its causes, each object once (a cause chain may loop). */
function* causeChain(err: unknown): Generator<object> {
  const seen = new Set<unknown>()
  for (
    let cur = err;
    cur !== null && typeof cur === 'object' && !seen.has(cur);
    cur = (cur as { cause?: unknown }).cause
  ) {
    seen.add(cur)
    yield cur
  }
}

export type { DacliError }
