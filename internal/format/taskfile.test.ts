import fc from 'fast-check'
import { expect, test } from 'vitest'
import { parseObject } from './frontmatter.js'
import { parseEstimate, renderTaskFile, yamlValue } from './taskfile.js'

// Task files are written without the YAML library; whatever they hold, a YAML parser must read back
// exactly the data the writer meant.
test('a hand-rendered task file reads back, through YAML, as exactly its data', () => {
  const text = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.constantFrom(
      '007',
      'true',
      'null',
      '~',
      'a: b',
      'x #y',
      '- lead',
      '@at',
      '`cmd`',
      '"q"',
      "'q'",
      '2026-01-02',
      '1e3',
      'acme/widgets',
      'a:b',
    ),
  )
  const num = fc.oneof(
    fc.integer({ min: 0, max: 1000 }),
    fc.double({ min: 0, max: 1000, noNaN: true, noDefaultInfinity: true }),
  )
  fc.assert(
    fc.property(
      fc.record({
        priority: fc.option(fc.constantFrom('must', 'should', 'could', 'wont'), { nil: null }),
        estimate: fc.option(
          fc.tuple(num, num, num).map(([a, b, c]) => ({ optimistic: a, probable: b, pessimistic: c })),
          { nil: null },
        ),
        deps: fc.array(
          fc.record({
            on: fc.oneof(fc.constant('t-01KBX3Q5M7E2RJ4T8W6YVZ0N1P'), text),
            type: fc.constantFrom('FS', 'SS', 'FF', 'SF'),
          }),
          { maxLength: 3 },
        ),
        parent: fc.option(text, { nil: null }),
        extra: fc.option(
          fc.record({ github: fc.record({ issue: fc.integer({ min: 1 }), repo: text, synced_at: text }) }),
          { nil: undefined },
        ),
      }),
      (f) => {
        const { text: out, data } = renderTaskFile(
          {
            id: 't-01KBX3Q5M7E2RJ4T8W6YVZ0N1P',
            created: '2026-11-29T14:03:11Z',
            created_by: 'a-root',
            priority: f.priority,
            estimate: f.estimate,
            depends_on: f.deps,
            parent: f.parent,
            ...(f.extra ? { extra: f.extra } : {}),
          },
          '\n# Title\n',
        )
        expect(parseObject(out).data).toEqual(data)
      },
    ),
    { numRuns: 2000 },
  )
  expect(yamlValue('plain-token_1.2')).toBe('plain-token_1.2')
  expect(yamlValue('007')).toBe('"007"')
})

test('--estimate takes decimal numbers only: hex, binary, octal and exponents are refused as the integer flags refuse them', () => {
  expect(parseEstimate('1,2.5,4')).toEqual({ optimistic: 1, probable: 2.5, pessimistic: 4 })
  expect(parseEstimate(' 0 , 1 , 2 ')).toEqual({ optimistic: 0, probable: 1, pessimistic: 2 })
  for (const bad of ['0x1,2,3', '0b1,2,3', '0o7,8,9', '1e1,20,30', '-1,2,3', '+1,2,3', '1,2', '1,,3', 'Infinity,1,2'])
    expect(() => parseEstimate(bad), bad).toThrow(/--estimate must be three numbers/)
})
