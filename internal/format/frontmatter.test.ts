import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { stringify } from 'yaml'
import { ParseError, parseObject, renderEdited, renderNew, setScalar, splitFrontmatter } from './frontmatter.js'

const edit = (text: string, fn: (doc: ReturnType<typeof parseObject>['doc']) => void, body?: string) => {
  const p = parseObject(text)
  const doc = p.doc.clone()
  fn(doc)
  return renderEdited(p, doc, body ?? p.split.body)
}

describe('frontmatter', () => {
  test('split handles CRLF, BOM, empty frontmatter and a missing close', () => {
    expect(splitFrontmatter('---\r\na: 1\r\n---\r\nbody\r\n')).toMatchObject({
      front: 'a: 1\r\n',
      body: 'body\r\n',
      eol: '\r\n',
    })
    expect(splitFrontmatter('\uFEFF---\n---\nx')).toMatchObject({ front: '', body: 'x' })
    expect(() => splitFrontmatter('a: 1\n')).toThrow(ParseError)
    expect(() => splitFrontmatter('---\na: 1\n')).toThrow(/unterminated/)
  })

  test('invalid YAML and non-maps are parse errors', () => {
    expect(() => parseObject('---\ntitle: fix: login breaks\n---\n')).toThrow(ParseError)
    expect(() => parseObject('---\n- a\n- b\n---\n')).toThrow(/map/)
    expect(() => parseObject('---\na: 1\na: 2\n---\n')).toThrow(ParseError)
  })

  test('an alias (*name) is refused with a message that says so, never resolved', () => {
    const text = '---\nid: t-1\nbase: &v 3\nversion: *v\n---\n# x\n'
    expect(() => parseObject(text)).toThrow(ParseError)
    expect(() => parseObject(text)).toThrow(/anchors and aliases .* write the value out in full/)
    expect(parseObject('---\nid: t-1\nbase: &v 3\n---\n').data).toEqual({ id: 't-1', base: 3 })
  })

  test('a rewrite keeps comments, order, quoting, flow style and dates of untouched keys', () => {
    const src = [
      '---',
      'id: t-1   # the id, spaced oddly',
      '# a comment line',
      "weird: 'yes'",
      'created: 2025-01-02',
      'estimate: {optimistic: 1, probable: 2, pessimistic: 3}',
      'owner: bob # who',
      'zz_unknown:',
      '  - nested',
      '  - [a, b]',
      'version: 3',
      '---',
      '# Title',
      '',
    ].join('\n')
    const out = edit(src, (doc) => {
      setScalar(doc, 'owner', 'alice: needs quoting')
      doc.set('version', 4)
    })
    const lines = out.split('\n')
    expect(lines).toContain('owner: "alice: needs quoting" # who')
    expect(lines).toContain('version: 4')
    for (const keep of src.split('\n').filter((l) => !l.startsWith('owner') && !l.startsWith('version'))) {
      expect(lines).toContain(keep)
    }
    expect(parseObject(out).data.owner).toBe('alice: needs quoting')
    // A no-op rewrite is byte-identical.
    expect(edit(src, () => {})).toBe(src)
  })

  test('CRLF files stay CRLF', () => {
    const src = '---\r\nid: t-1\r\nowner: bob\r\n---\r\n# T\r\n'
    const out = edit(src, (doc) => setScalar(doc, 'owner', 'al'))
    expect(out).toBe('---\r\nid: t-1\r\nowner: al\r\n---\r\n# T\r\n')
  })

  test('renderNew quotes what needs quoting', () => {
    const text = renderNew({ id: 't-1', title: '@alice `make` *x* &y !z', n: '007' }, '# x\n')
    expect(parseObject(text).data).toEqual({ id: 't-1', title: '@alice `make` *x* &y !z', n: '007' })
  })
})

// ---- property: every byte outside the edited field survives ----------------------------

const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/).filter((k) => k !== 'owner' && k !== 'version')
const scalarText = fc.oneof(
  fc.integer().map(String),
  fc.constantFrom('true', 'false', 'null', '2025-01-02', '007', "'yes'", '"quoted # not a comment"'),
  fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => stringify(s, { lineWidth: 0 }).trimEnd()),
  fc.string({ unit: 'binary', maxLength: 12 }).map((s) => stringify(s, { lineWidth: 0 }).trimEnd()),
)
const valueText = fc.oneof(
  scalarText.filter((s) => !s.includes('\n')),
  fc.array(fc.integer(), { maxLength: 3 }).map((a) => `[${a.join(', ')}]`),
  fc.tuple(fc.integer(), fc.constantFrom('x', 'y z')).map(([a, b]) => `{a: ${a}, b: ${b}}`),
)
const entry = fc.tuple(key, valueText, fc.option(fc.constantFrom('# note', '#x', '# ünïcödé ✓'), { nil: undefined }))
const between = fc.option(fc.constantFrom('# comment line', '', '#'), { nil: undefined })

describe('lossless rewrite property', () => {
  test('editing owner changes only the owner entry (LF and CRLF)', () => {
    let checked = 0
    let runs = 0
    fc.assert(
      fc.property(
        fc.uniqueArray(entry, { selector: (e) => e[0], minLength: 0, maxLength: 8 }),
        fc.array(between, { maxLength: 8 }),
        fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }),
        fc.boolean(),
        fc.string({ unit: 'grapheme', maxLength: 20 }),
        fc.string({ maxLength: 40 }).map((s) => s.replace(/\r/g, '')),
        (entries, comments, ownerAt, crlf, newOwner, bodyText) => {
          const lines: string[] = []
          entries.forEach(([k, v, c], i) => {
            const cm = comments[i]
            if (cm !== undefined) lines.push(cm)
            if (ownerAt === i) lines.push('owner: someone # keep me')
            lines.push(`${k}: ${v}${c === undefined ? '' : ` ${c}`}`)
          })
          if (ownerAt !== undefined && ownerAt >= entries.length) lines.push('owner: someone')
          const eol = crlf ? '\r\n' : '\n'
          const front = lines.map((l) => l + eol).join('')
          const src = `---${eol}${front}---${eol}# Title${eol}${bodyText}`
          runs++
          let parsed: ReturnType<typeof parseObject>
          try {
            parsed = parseObject(src)
          } catch {
            return // a generated combination that is not valid YAML is out of scope
          }
          const doc = parsed.doc.clone()
          setScalar(doc, 'owner', newOwner)
          const out = renderEdited(parsed, doc, parsed.split.body)
          const re = parseObject(out)
          expect(re.data).toEqual({ ...parsed.data, owner: newOwner })
          const strip = (t: string) =>
            t
              .split(eol)
              .filter((l) => !l.startsWith('owner:'))
              .join(eol)
          const stripped = strip(out)
          // When owner was new, yaml may have appended it; everything else is byte-identical.
          expect(stripped).toBe(strip(src))
          checked++
        },
      ),
      { numRuns: 1500 },
    )
    // The property must not pass vacuously on unparseable inputs.
    expect(checked).toBeGreaterThan(runs * 0.8)
  })

  test('a changed value keeps the blanks before its comment; a # inside a quoted value is never taken for one', () => {
    const src = '---\nowner: bob     # who\ntitle: "a  #b"\nlabels: [x, y]   # two\n---\nbody\n'
    const out = edit(src, (doc) => {
      setScalar(doc, 'owner', 'ann')
      setScalar(doc, 'title', 'c #b')
      doc.set('labels', ['x', 'y', 'z'])
    })
    expect(out).toContain('owner: ann     # who\n')
    expect(parseObject(out).data).toEqual({ owner: 'ann', title: 'c #b', labels: ['x', 'y', 'z'] })
  })
})
