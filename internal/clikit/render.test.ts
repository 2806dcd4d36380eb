import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonOf, writeJSON } from './render.js'

/** What writeJSON writes, piece by piece. */
function pieces(doc: unknown): string[] {
  const out: string[] = []
  writeJSON(doc, (t) => out.push(t))
  return out
}

// Values JSON.stringify treats specially: undefined (a key left out, a list item written as null), functions,
// dates (their toJSON), nested lists and objects.
const value = fc.oneof(
  fc.jsonValue(),
  fc.constant(undefined),
  fc.constant(() => 1),
  fc.date({ noInvalidDate: true }),
  fc.array(
    fc.oneof(
      fc.jsonValue(),
      fc.constant(undefined),
      fc.constant(() => 1),
    ),
    { maxLength: 40 },
  ),
)

describe('writeJSON', () => {
  it('writes exactly the bytes of jsonOf, for any document (schema first when it has one)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), value, { maxKeys: 8 }),
        fc.option(fc.string(), { nil: undefined }),
        (fields, schema) => {
          const doc = schema === undefined ? fields : { ...fields, schema }
          expect(pieces(doc).join('')).toBe(jsonOf(doc))
        },
      ),
      { numRuns: 500 },
    )
  })

  it('writes anything that is not a plain object, or has its own toJSON, as jsonOf does', () => {
    for (const doc of [null, 3, 'text', [1, undefined, 'x'], { toJSON: () => ({ a: 1 }) }, new Date(0)]) {
      expect(pieces(doc)).toEqual([jsonOf(doc)])
    }
  })

  it('writes a long list in pieces of about 64 KB, never as one string', () => {
    const tasks = Array.from({ length: 2000 }, (_, i) => ({ id: `t-${i}`, title: 'x'.repeat(200), n: i }))
    const doc = { schema: 'task-list/v1', tasks, total: tasks.length, skipped: [] }
    const out = pieces(doc)
    expect(out.join('')).toBe(jsonOf(doc))
    expect(out.length).toBeGreaterThan(5)
    for (const p of out) expect(p.length).toBeLessThan(64 * 1024 + 300)
  })
})
