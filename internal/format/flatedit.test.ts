// The renderer without the YAML library against the library's own rewrite (frontmatter.ts renderEdited over the
// edited Document): on any frontmatter and any edits it writes the same bytes or declines, and it never declines
// the rewrites of the lifecycle on a file dacli wrote.

import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { assemble, readObject } from './flat.js'
import { editFront, type FrontEdit } from './flatedit.js'
import { applyEdits, parseObject, renderEdited } from './frontmatter.js'
import { renderTaskFile } from './taskfile.js'

/** The library path: the edits on a clone of the file's Document, spliced. */
function library(text: string, edits: readonly FrontEdit[]): string {
  const parsed = parseObject(text)
  const doc = parsed.doc.clone()
  applyEdits(doc, edits)
  return renderEdited(parsed, doc, parsed.split.body)
}

/** The path without the library, or null where it declines. */
function flat(text: string, edits: readonly FrontEdit[]): string | null {
  const read = readObject(text)
  if (read === null) return null
  const front = editFront(read.split.front, read.data, edits)
  return front === null ? null : assemble(read.split, front, read.split.body)
}

/** Objects as code makes them (fast-check's dictionaries have no prototype). */
const plain = <T extends object>(a: fc.Arbitrary<T>) => a.map((o) => ({ ...o }))
const scalar = fc.oneof(
  fc.constantFrom('a-root', 'must', '2026-01-01T00:00:00Z', 'FS', '12:30', '1.5', 'x y', 'true', '', 'a:b', 'é', '007'),
  fc.integer({ min: -5, max: 1000 }),
  fc.boolean(),
  fc.constant(1.5),
  fc.constant(null),
)
const key = fc.constantFrom('owner', 'claim', 'priority', 'labels', 'estimate', 'depends_on', 'github', 'x_y')
const flowMap = plain(fc.dictionary(fc.constantFrom('by', 'at', 'on', 'type'), scalar, { maxKeys: 3 }))
const flowList = fc.array(plain(fc.dictionary(fc.constantFrom('on', 'type'), scalar, { minKeys: 1, maxKeys: 2 })), {
  maxLength: 2,
})
const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), flowMap, flowList)
const edit: fc.Arbitrary<FrontEdit> = fc.oneof(
  fc.record({ op: fc.constant('set' as const), key, value }),
  fc.record({ op: fc.constant('delete' as const), key }),
  fc.record({ op: fc.constant('flow' as const), key, value: fc.oneof(flowMap, flowList) }),
  fc.record({
    op: fc.constant('block' as const),
    key,
    value: plain(fc.dictionary(fc.constantFrom('issue', 'repo'), scalar, { minKeys: 1, maxKeys: 2 })),
  }),
)
/** Top-level entries as dacli writes them and as people write them by hand. */
const line = fc.oneof(
  fc.tuple(key, scalar).map(([k, v]) => `${k}: ${v === null ? '~' : v === '' ? '""' : v}`),
  fc
    .tuple(key, fc.constantFrom('{by: a-x, at: 2026-01-01T00:00:00Z}', '[a, b]', '[]', '{}', '"quoted"', "'single'"))
    .map(([k, v]) => `${k}: ${v}`),
  key.map((k) => `${k}:\n  - {on: t-1, type: FS}\n  - {on: t-2, type: SS}`),
  key.map((k) => `${k}:\n  - a\n  - b`),
  key.map((k) => `${k}:\n- a\n- b`),
  key.map((k) => `${k}:\n  issue: 3\n  repo: o/r`),
  key.map((k) => `${k}: x # a comment`),
)

describe('editFront', () => {
  test('writes what the library writes, or declines', () => {
    let taken = 0
    fc.assert(
      fc.property(
        fc.uniqueArray(line, { selector: (l) => l.split(':')[0], minLength: 1, maxLength: 6 }),
        fc.boolean(),
        fc.array(edit, { maxLength: 4 }),
        (lines, blank, edits) => {
          const text = `---\n${lines.join(blank ? '\n\n' : '\n')}\n---\nbody\n`
          const got = flat(text, edits)
          if (got === null) return
          taken++
          expect(got).toBe(library(text, edits))
        },
      ),
      { numRuns: 4000 },
    )
    // The property is about something: a good share of the cases took the path without the library.
    expect(taken).toBeGreaterThan(250)
  })

  test('takes the lifecycle on a file dacli wrote: claim, check, done, release, a github mapping', () => {
    const { text } = renderTaskFile(
      {
        id: 't-01KDVMC6YGV9Y2CESBY1KGH0J6',
        created: '2026-01-01T00:00:00Z',
        created_by: 'a-root',
        priority: 'should',
        estimate: { optimistic: 3, probable: 5, pessimistic: 8 },
        depends_on: [{ on: 't-01KDVMC5Z8CPB1KSTA2JNRVC8X', type: 'FS' }],
        parent: null,
      },
      '\n# A task\n',
    )
    const at = '2026-12-05T15:08:32Z'
    const steps: FrontEdit[][] = [
      [
        { op: 'set', key: 'owner', value: 'a-root' },
        { op: 'flow', key: 'claim', value: { by: 'a-root', at, expires: '2026-12-05T17:08:32Z' } },
        { op: 'set', key: 'version', value: 2 },
      ],
      [{ op: 'set', key: 'version', value: 3 }],
      [
        { op: 'set', key: 'unverified', value: true },
        { op: 'delete', key: 'claim' },
        { op: 'set', key: 'version', value: 4 },
      ],
      [
        { op: 'delete', key: 'owner' },
        { op: 'delete', key: 'claim' },
        { op: 'block', key: 'github', value: { issue: 12, repo: 'o/r', synced_at: at } },
        { op: 'set', key: 'version', value: 5 },
      ],
    ]
    let now = text
    for (const edits of steps) {
      const got = flat(now, edits)
      expect(got, JSON.stringify(edits)).not.toBeNull()
      expect(got).toBe(library(now, edits))
      now = got as string
    }
    expect(now).toBe(
      '---\nid: t-01KDVMC6YGV9Y2CESBY1KGH0J6\nkind: task\ncreated: 2026-01-01T00:00:00Z\ncreated_by: a-root\n' +
        'priority: should\nestimate: {optimistic: 3, probable: 5, pessimistic: 8}\ndepends_on:\n' +
        '  - {on: t-01KDVMC5Z8CPB1KSTA2JNRVC8X, type: FS}\nversion: 5\nunverified: true\ngithub:\n  issue: 12\n' +
        `  repo: o/r\n  synced_at: ${at}\n---\n\n# A task\n`,
    )
  })

  test('declines what only the library writes exactly: comments, quoted values, blank lines, CRLF, a merged block', () => {
    const version = { op: 'set', key: 'version', value: 2 } as const
    const cases: [string, FrontEdit[]][] = [
      ['---\nowner: a-x # who\nversion: 1\n---\n', [{ op: 'set', key: 'owner', value: 'a-y' }]],
      ['---\nowner: "a-x"\nversion: 1\n---\n', [{ op: 'set', key: 'owner', value: 'a-y' }]],
      ['---\nowner: a-x\n\nversion: 1\n---\n', [version]],
      ['---\r\nowner: a-x\r\nversion: 1\r\n---\r\n', [version]],
      ['---\ngithub:\n  repo: o/r\nversion: 1\n---\n', [{ op: 'block', key: 'github', value: { issue: 3 } }]],
      ['---\nversion: 1\n---\n', [{ op: 'set', key: 'owner', value: 'needs quotes: yes' }]],
      ['---\nversion: 1\n---\n', [{ op: 'set', key: 'n', value: 1.5 }]],
    ]
    for (const [text, edits] of cases) expect(flat(text, edits), text).toBeNull()
  })
})
