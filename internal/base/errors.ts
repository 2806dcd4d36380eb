// The typed errors every layer raises. This file imports nothing, so any module
// (store, engines, slices, adapters) can throw a classified error without
// depending on the CLI kernel; internal/clikit/exit.ts maps them to exit codes.

export type ErrorKind = 'failure' | 'usage' | 'refused' | 'not_found' | 'conflict'

export interface ErrorOptions {
  /** Typed facts for machines (`details` in the error/v1 envelope). */
  details?: Record<string, unknown>
  /** Complete command lines the caller may have meant. Never executed. */
  suggestions?: string[]
  /** What to do next (commands or short instructions). */
  next?: string[]
  cause?: unknown
}

/** A brand that survives bundling and realm boundaries better than instanceof. */
const ERROR_KIND = Symbol.for('dacli.error.kind')

export class DacliError extends Error {
  readonly [ERROR_KIND]: ErrorKind
  readonly details: Record<string, unknown>
  readonly suggestions: string[]
  readonly next: string[]

  constructor(kind: ErrorKind, message: string, opts: ErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this[ERROR_KIND] = kind
    this.details = opts.details ?? {}
    this.suggestions = opts.suggestions ?? []
    this.next = opts.next ?? []
  }

  get kind(): ErrorKind {
    return this[ERROR_KIND]
  }
}

/** The base of an error class whose kind is fixed: its constructor takes the message and the options. */
const ofKind = (kind: ErrorKind) =>
  class extends DacliError {
    constructor(message: string, opts?: ErrorOptions) {
      super(kind, message, opts)
    }
  }

/** Exit 2: the caller's bug (unknown flag, bad value, missing argument, ambiguous reference). */
export class UsageError extends ofKind('usage') {
  override name = 'UsageError'
}

/** Exit 3: policy said no. An answer: callers must not retry it unchanged. */
export class RefusedError extends DacliError {
  override name = 'RefusedError'
  /** A short stable name for the policy that refused (e.g. `grant`, `acceptance`). */
  readonly policy: string
  constructor(policy: string, message: string, opts?: ErrorOptions) {
    super('refused', message, opts)
    this.policy = policy
  }
}

/** Exit 4: no workspace, no such project / task / note / agent / event. */
export class NotFoundError extends ofKind('not_found') {
  override name = 'NotFoundError'
}

/** Exit 5: another writer holds or changed the thing. */
export class ConflictError extends ofKind('conflict') {
  override name = 'ConflictError'
}

/** Exit 1: an operational failure with a clear message (the thing exists; the operation failed). */
export class FailureError extends ofKind('failure') {
  override name = 'FailureError'
}

/** The first classified error on the cause chain (any depth), or null. */
export function classifiedError(err: unknown): DacliError | null {
  const seen = new Set<unknown>()
  let cur: unknown = err
  while (cur !== null && typeof cur === 'object' && !seen.has(cur)) {
    seen.add(cur)
    if (ERROR_KIND in cur) return cur as DacliError
    cur = (cur as { cause?: unknown }).cause
  }
  return null
}
