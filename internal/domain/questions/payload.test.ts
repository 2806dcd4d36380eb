import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { questionPayload } from './payload.js'
import { QuestionPayloadSchema } from './payload.schema.js'

describe('the question payload: one schema, one reader', () => {
  test('the reader answers exactly what the zod schema does, for any data an event file can hold', () => {
    const value = fc.oneof(fc.string(), fc.boolean(), fc.integer(), fc.constant(null), fc.array(fc.string()))
    const data = fc.record(
      { project: value, need: value, blocks: value, conflict: value, ours: value, theirs: value, other: value },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(data, (d) => {
        expect(questionPayload(d)).toEqual(QuestionPayloadSchema.parse(d))
      }),
      { numRuns: 2000 },
    )
  })

  test('a well-formed payload reads back as written; a hand-edited wrong type reads as absent', () => {
    expect(questionPayload({ project: 'api', need: 'a schema', blocks: true })).toEqual({
      project: 'api',
      need: 'a schema',
      blocks: true,
      conflict: null,
      ours: null,
      theirs: null,
    })
    expect(questionPayload({ project: 7, need: ['x'], blocks: 'yes' })).toEqual({
      project: null,
      need: null,
      blocks: false,
      conflict: null,
      ours: null,
      theirs: null,
    })
  })
})
