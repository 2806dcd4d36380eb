import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { ConflictError, FailureError, NotFoundError, RefusedError, UsageError } from '../base/errors.js'
import { exitCodeOf } from './exit.js'
import { envelopeOf, renderJSON } from './render.js'

const typed = [
  [() => new UsageError('u'), 2],
  [() => new RefusedError('grant', 'r'), 3],
  [() => new NotFoundError('n'), 4],
  [() => new ConflictError('c'), 5],
  [() => new FailureError('f'), 1],
] as const

describe('exit codes (contract.md §1)', () => {
  test('each typed error maps to its code; anything else is 1; nothing is 0', () => {
    for (const [make, code] of typed) expect(exitCodeOf(make())).toBe(code)
    expect(exitCodeOf(new Error('boom'))).toBe(1)
    expect(exitCodeOf(Object.assign(new Error('io'), { code: 'EACCES' }))).toBe(1)
    expect(exitCodeOf(null)).toBe(0)
  })

  test('the code survives cause wrapping at any depth', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 25 }), (which, depth) => {
        const [make, code] = typed[which] as (typeof typed)[number]
        let err: unknown = make()
        for (let i = 0; i < depth; i++) err = new Error(`while doing step ${i}`, { cause: err })
        expect(exitCodeOf(err)).toBe(code)
        expect(envelopeOf(err, false).exit_code).toBe(code)
      }),
      { numRuns: 200 },
    )
  })

  test('a cause cycle does not hang', () => {
    const a = new Error('a') as Error & { cause?: unknown }
    const b = new Error('b', { cause: a })
    a.cause = b
    expect(exitCodeOf(a)).toBe(1)
  })
})

describe('the error/v1 envelope (contract.md §4)', () => {
  test('carries kind, message, suggestions, next actions and details; schema first', () => {
    const err = new Error('while claiming', {
      cause: new ConflictError('held', { details: { owner: 'a-x' }, next: ['dacli next'] }),
    })
    const env = envelopeOf(err, false)
    expect(env).toEqual({
      schema: 'error/v1',
      ok: false,
      exit_code: 5,
      kind: 'conflict',
      message: 'while claiming: held',
      suggestions: [],
      next_actions: ['dacli next'],
      details: { owner: 'a-x' },
    })
    expect(renderJSON(env).startsWith('{"schema":"error/v1"')).toBe(true)
  })

  test('a refusal names its policy; an unexpected exception says it is a bug', () => {
    expect(envelopeOf(new RefusedError('grant', 'no'), false).details.policy).toBe('grant')
    const bug = envelopeOf(new TypeError('x is undefined'), false)
    expect(bug.exit_code).toBe(1)
    expect(bug.message).toMatch(/bug/)
    expect(bug.details.stack).toBeUndefined()
    expect(envelopeOf(new TypeError('x'), true).details.stack).toMatch(/TypeError/)
  })

  test('renderJSON puts schema first and ends with one newline', () => {
    const s = renderJSON({ b: 1, schema: 'x/v1', a: [] })
    expect(s).toBe('{"schema":"x/v1","b":1,"a":[]}\n')
  })
})
