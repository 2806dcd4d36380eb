// The subset reader against the YAML library: on any text it either answers exactly what the library
// answers (core schema, unique keys) or declines; and it never declines what dacli itself writes.

import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { Document, parseDocument } from 'yaml'
import { readFront, splitFrontmatter } from './flat.js'
import { renderTaskFile } from './taskfile.js'

/** What parseObject makes of a frontmatter text: the data, or null when it refuses it. */
function library(front: string): Record<string, unknown> | null {
  const doc = parseDocument(front, { uniqueKeys: true, prettyErrors: false })
  if (doc.errors.length > 0) return null
  if (doc.contents !== null && doc.contents.constructor.name !== 'YAMLMap') return null
  try {
    return (doc.toJS({ maxAliasCount: 0 }) ?? {}) as Record<string, unknown>
  } catch {
    return null // aliases are refused
  }
}

const SCALARS = [
  'must',
  'a-root',
  't-01KDVDNA00ZTQGFKY2Y4AN2RE3',
  '2026-01-01T00:00:00Z',
  '2026-01-01',
  '12:30',
  '1:2',
  'FS',
  'hello world',
  "it's",
  'a"b',
  '1',
  '0',
  '007',
  '12',
  '1.5',
  '1.50',
  '-3',
  '+4',
  '1e3',
  '1E-2',
  '0x1F',
  '0o17',
  '.inf',
  '-.Inf',
  '.NaN',
  '1.',
  '.5',
  '1_000',
  '123456789012345678',
  'null',
  '~',
  'Null',
  'true',
  'False',
  'TRUE',
  'yes',
  'no',
  'on',
  'a: b',
  'a #b',
  'a#b',
  '#x',
  '- x',
  '-x',
  '?x',
  ':x',
  'x:',
  'a:b',
  '[a]',
  '{a}',
  'a,b',
  'a, b',
  '*a',
  '&a',
  '!t',
  '|',
  '>',
  '%x',
  '@x',
  '`x',
  '"q"',
  "'q'",
  '"a\\nb"',
  '"\\x41"',
  '"a\\"b"',
  '"\\u00e9"',
  "'a''b'",
  "'un",
  '"un',
  'é',
  '日本',
  'a\tb',
  '\u2028',
  '\u00a0x',
  'a  b',
  '...',
  '---',
  '',
]

const key = fc.constantFrom(
  'id',
  'kind',
  'on',
  'type',
  'a',
  'b',
  'tags',
  'x_y',
  'k-1',
  'true',
  'null',
  '1',
  'a b',
  '"q"',
)
const scalar = fc.constantFrom(...SCALARS)
const spaces = fc.constantFrom('', ' ', '  ')

const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    tie('flowMap') as fc.Arbitrary<string>,
    tie('flowSeq') as fc.Arbitrary<string>,
  ),
  flowMap: fc
    .tuple(fc.array(fc.tuple(key, spaces, tie('value') as fc.Arbitrary<string>), { maxLength: 3 }), spaces)
    .map(([kv, sp]) => `{${sp}${kv.map(([k, s, v]) => `${k}:${s === '' ? ' ' : s}${v}`).join(`,${sp}`)}${sp}}`),
  flowSeq: fc
    .tuple(fc.array(tie('value') as fc.Arbitrary<string>, { maxLength: 3 }), fc.constantFrom(', ', ',', ' , ', ', ,'))
    .map(([vs, sep]) => `[${vs.join(sep)}]`),
}))

/** One top-level entry, possibly with a block list or map below it, comments and blank lines. */
const entry = fc.oneof(
  fc
    .tuple(key, fc.constantFrom(': ', ':  ', ':'), value, fc.constantFrom('', ' # note', '#x', '  '))
    .map(([k, c, v, tail]) => `${k}${c}${v}${tail}`),
  fc
    .tuple(key, fc.constantFrom('  ', '', '    ', ' '), fc.array(value, { minLength: 1, maxLength: 3 }))
    .map(([k, ind, items]) => `${k}:\n${items.map((v) => `${ind}- ${v}`).join('\n')}`),
  fc
    .tuple(key, fc.constantFrom('  ', '    '), fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 3 }))
    .map(([k, ind, kv]) => `${k}:\n${kv.map(([a, v]) => `${ind}${a}: ${v}`).join('\n')}`),
  fc
    .tuple(
      key,
      fc.array(fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 }),
    )
    .map(
      ([k, items]) =>
        `${k}:\n${items.map((kv) => kv.map(([a, v], i) => `${i === 0 ? '  - ' : '    '}${a}: ${v}`).join('\n')).join('\n')}`,
    ),
  fc.constantFrom('# a comment', '', '  # indented comment', '   ', '  stray: 1', '- item', 'plain', '? complex'),
)

describe('readFront, the subset reader', () => {
  test('answers exactly what the YAML library answers, or declines', () => {
    let answered = 0
    let both = 0
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), fc.boolean(), (entries, crlf) => {
        const front = entries.join('\n') + (entries.length > 0 ? '\n' : '')
        const text = crlf ? front.replace(/\n/g, '\r\n') : front
        const mine = readFront(text)
        const theirs = library(front)
        if (theirs !== null) both++
        if (mine === null) return
        answered++
        expect(theirs).toEqual(mine)
      }),
      { numRuns: Number(process.env.FLAT_RUNS ?? 4000) },
    )
    // The property is not vacuous: the reader answers a good share of what the library accepts.
    expect(answered).toBeGreaterThan(both / 4)
  })

  test('declines what it does not know rather than guessing', () => {
    for (const front of [
      'a: 1\na: 2\n', // duplicate keys: the library refuses, and so does parseObject
      'a: |\n  text\n',
      'a: &x 1\nb: *x\n',
      'a: !tag 1\n',
      'a: long\n  continued\n',
      '  a: 1\n',
      'a: "two\n  lines"\n',
      'a: 0x10\n',
      'a: 1e3\n',
      'a:\n- - nested\n',
      'a: [1, 2,]\n',
      'a: {b}\n',
    ]) {
      expect(readFront(front), front).toBeNull()
    }
  })

  test('reads, without the library, every task file dacli writes and the edits the library makes to it', () => {
    const { text, data } = renderTaskFile(
      {
        id: 't-01KDVDNA00ZTQGFKY2Y4AN2RE3',
        created: '2026-01-01T00:00:00Z',
        created_by: 'a-root',
        priority: 'must',
        estimate: { optimistic: 1, probable: 2.5, pessimistic: 4 },
        depends_on: [
          { on: 't-01KDVDNAZ8H0GMDYJ7J6RQ8KR3', type: 'FS' },
          { on: 'p/3', type: 'SS' },
        ],
        parent: 't-01KDVDNBYGM2K5YMMQZ5NSK56P',
        extra: { tags: ['ui', 'needs review'], unverified: true },
      },
      '\n# T\n',
    )
    const front = text.split('---\n')[1] as string
    expect(readFront(front)).toEqual(data)
    // Edits go through the library's Document API (block maps and lists, quoting where it chooses).
    const doc = parseDocument(front)
    doc.set('claim', { by: 'a-worker', at: '2026-01-02T00:00:00Z', expires: null })
    doc.set('github', { issue: 12, repo: 'o/r', synced_at: '2026-01-03T00:00:00Z' })
    doc.set('aliases', [3, 4])
    doc.set('blocked_by', 'waiting on: the vendor # really')
    doc.set('depends_on', doc.createNode([{ on: 'x', type: 'FF' }]))
    doc.set('version', 7)
    const edited = doc.toString({ lineWidth: 0, flowCollectionPadding: false })
    expect(readFront(edited)).toEqual(doc.toJS())
    expect(readFront(new Document({ a: { b: [1, { c: 'd' }] } }).toString())).toEqual({ a: { b: [1, { c: 'd' }] } })
  })
})

test('the closing line is found exactly where the closing-line pattern finds it', () => {
  // The pattern the splitter used before a plain search replaced it (the oracle).
  const close = /(?:^|\n)(---[ \t]*(?:\r?\n|$))/
  const oracle = (rest: string) => {
    const m = close.exec(rest)
    if (m === null) return 'no-close'
    const c = m[1] as string
    const at = m.index + m[0].length - c.length
    return { front: rest.slice(0, at), close: c, body: rest.slice(at + c.length) }
  }
  const actual = (rest: string) => {
    try {
      const s = splitFrontmatter(`---\n${rest}`)
      return { front: s.front, close: s.close, body: s.body }
    } catch {
      return 'no-close'
    }
  }
  const piece = fc.constantFrom('-', '--', '---', '\n', '\r', '\r\n', ' ', '\t', 'a', 'id: x', '\n---')
  fc.assert(
    fc.property(
      fc.array(piece, { maxLength: 14 }).map((p) => p.join('')),
      (rest) => {
        expect(actual(rest)).toEqual(oracle(rest))
      },
    ),
    { numRuns: 5000 },
  )
})
