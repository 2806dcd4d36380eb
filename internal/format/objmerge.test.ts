import { describe, expect, test } from 'vitest'
import { mergeObject, replaceBodyPart } from './objmerge.js'

const BASE = `---
id: t-01KBX3Q5M7E2RJ4T8W6YVZ0N1P
kind: task
# who decides: the lead
priority: should
version: 2
---

# Ship the shim

## Acceptance

- [ ] covers the batch
- [ ] suite green

## Log

- 2026-11-29T10:00:00Z a-root created
`

const edit = (text: string, from: string, to: string) => {
  if (!text.includes(from)) throw new Error(`no ${from}`)
  return text.replace(from, to)
}

describe('a three-way merge of an object file, field by field', () => {
  test('one-sided changes of different fields all land; comments and key order survive; version is one more', async () => {
    const ours = edit(
      edit(BASE, 'priority: should', 'priority: must'),
      '- 2026-11-29T10:00:00Z a-root created\n',
      '- 2026-11-29T10:00:00Z a-root created\n- 2026-11-29T11:00:00Z a-one edited priority\n',
    ).replace('version: 2', 'version: 3')
    const theirs = edit(
      edit(BASE, '- [ ] suite green', '- [x] suite green'),
      '- 2026-11-29T10:00:00Z a-root created\n',
      '- 2026-11-29T10:00:00Z a-root created\n- 2026-11-29T10:30:00Z a-two checked 2\n',
    )
      .replace('version: 2', 'version: 3')
      .replace('kind: task\n', 'kind: task\nowner: a-two\n')
    const m = await mergeObject(BASE, ours, theirs, 'theirs')
    expect(m?.conflicts).toEqual([])
    expect(m?.text).toBe(
      `---
id: t-01KBX3Q5M7E2RJ4T8W6YVZ0N1P
kind: task
# who decides: the lead
priority: must
version: 4
owner: a-two
---

# Ship the shim

## Acceptance

- [ ] covers the batch
- [x] suite green

## Log

- 2026-11-29T10:00:00Z a-root created
- 2026-11-29T10:30:00Z a-two checked 2
- 2026-11-29T11:00:00Z a-one edited priority
`,
    )
  })

  test('the same field changed differently is a conflict; the kept side is the one asked for', async () => {
    const ours = edit(BASE, 'priority: should', 'priority: must')
    const theirs = edit(edit(BASE, 'priority: should', 'priority: could'), '# Ship the shim', '# Ship it')
    const m = await mergeObject(BASE, ours, theirs, 'theirs')
    expect(m?.conflicts).toEqual([{ field: 'priority', base: 'should', ours: 'must', theirs: 'could' }])
    expect(m?.text).toContain('priority: could')
    expect(m?.text).toContain('# Ship it')
    const o = await mergeObject(BASE, ours, theirs, 'ours')
    expect(o?.text).toContain('priority: must')
    // A section changed on both sides differently conflicts as a whole section.
    const t2 = await mergeObject(
      BASE,
      edit(BASE, '# Ship the shim', '# A'),
      edit(BASE, '# Ship the shim', '# B'),
      'theirs',
    )
    expect(t2?.conflicts.map((c) => c.field)).toEqual(['title'])
    expect(t2?.text).toContain('# B\n')
  })

  test('acceptance boxes merge per criterion; criteria added on either side are kept in place', async () => {
    const ours = edit(BASE, '- [ ] covers the batch', '- [x] covers the batch')
    const theirs = edit(BASE, '- [ ] suite green\n', '- [ ] suite green\n- [ ] docs written\n')
    const m = await mergeObject(BASE, ours, theirs, 'theirs')
    expect(m?.conflicts).toEqual([])
    expect(m?.text).toContain('- [x] covers the batch\n- [ ] suite green\n- [ ] docs written\n\n## Log')
  })

  test('a criterion removed on one side and ticked on the other is a conflict on the section, either way round', async () => {
    const removed = edit(BASE, '- [ ] suite green\n', '')
    const ticked = edit(BASE, '- [ ] suite green', '- [x] suite green')
    for (const [ours, theirs] of [
      [ticked, removed],
      [removed, ticked],
    ] as const) {
      const m = await mergeObject(BASE, ours, theirs, 'theirs')
      expect(m?.conflicts.map((c) => c.field)).toEqual(['section:Acceptance'])
      expect(m?.text).toContain(theirs.slice(theirs.indexOf('## Acceptance'), theirs.indexOf('## Log')))
    }
    // Removed on one side and left alone on the other: removed, no conflict.
    const m = await mergeObject(BASE, removed, edit(BASE, 'priority: should', 'priority: must'), 'theirs')
    expect(m?.conflicts).toEqual([])
    expect(m?.text).not.toContain('suite green')
  })

  test('an unchanged merge returns ours byte for byte; a file that does not parse is left to the caller', async () => {
    expect((await mergeObject(BASE, BASE, BASE, 'theirs'))?.text).toBe(BASE)
    expect(await mergeObject(BASE, 'no frontmatter', BASE, 'theirs')).toBeNull()
  })

  test('version: a hand edit (no bump) on one side and a rewrite on the other is one more; a file without one gets none', async () => {
    const hand = edit(BASE, '# who decides: the lead\n', '# who decides: the lead\nreviewer: carol\n')
    const bumped = edit(BASE, 'priority: should', 'priority: must').replace('version: 2', 'version: 3')
    for (const [ours, theirs] of [
      [hand, bumped],
      [bumped, hand],
    ] as const) {
      const m = await mergeObject(BASE, ours, theirs, 'theirs')
      expect(m?.text).toContain('reviewer: carol\n')
      expect(m?.text).toContain('priority: must\n')
      expect(m?.text).toContain('version: 4\n')
    }
    // One side only: its version, whatever it is.
    expect((await mergeObject(BASE, BASE, hand, 'theirs'))?.text).toContain('version: 2\n')
    expect((await mergeObject(BASE, bumped, BASE, 'theirs'))?.text).toContain('version: 3\n')
    const plain = BASE.replace('version: 2\n', '')
    const m = await mergeObject(
      plain,
      edit(plain, 'priority: should', 'priority: must'),
      edit(plain, '# who decides: the lead\n', '# who decides: the lead\nreviewer: carol\n'),
      'theirs',
    )
    expect(m?.text).not.toContain('version')
  })

  test('replaceBodyPart puts a decided section back', () => {
    const body = '\n# Ship the shim\n\n## So that\n\nold\n\n## Log\n\n- x\n'
    expect(replaceBodyPart(body, 'section:So that', '## So that\n\nnew\n\n')).toBe(
      '\n# Ship the shim\n\n## So that\n\nnew\n\n## Log\n\n- x\n',
    )
    expect(replaceBodyPart(body, 'title', '# Shipped\n\n')).toBe('\n# Shipped\n\n## So that\n\nold\n\n## Log\n\n- x\n')
  })
})
