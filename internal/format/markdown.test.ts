// Body edits touch only what they change: sections, checkboxes and appended log lines, with the bytes around
// them (unknown sections, CRLF line ends, fenced code) left exactly as they were.

import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  appendToSection,
  checkboxes,
  checkedTitleOf,
  headingLine,
  headingText,
  inlineMarkdown,
  quote,
  sections,
  sectionText,
  setChecked,
  setSection,
  setTitle,
  titleOf,
} from './markdown.js'

const BODY = [
  '# Do the thing',
  '',
  '## Context',
  'Some words.',
  '',
  '```md',
  '## Not a heading (inside a fence)',
  '```',
  '',
  '## Custom section someone wrote',
  'keep me *exactly*   ',
  '',
  '## Acceptance',
  '- [ ] first',
  '- [x] second',
  '* [X] third, another bullet',
  '- not a box',
  '',
  '## Log',
  '- 2026-01-01T00:00:00Z a-root created',
  '',
].join('\n')

describe('sections', () => {
  test('headings outside fences, each section running to the next heading of its level or higher', () => {
    expect(sections(BODY).map((s) => [s.level, s.title])).toEqual([
      [1, 'Do the thing'],
      [2, 'Context'],
      [2, 'Custom section someone wrote'],
      [2, 'Acceptance'],
      [2, 'Log'],
    ])
    expect(titleOf(BODY)).toBe('Do the thing')
    expect(sectionText(BODY, 'context')).toBe('Some words.\n\n```md\n## Not a heading (inside a fence)\n```')
    expect(sectionText(BODY, 'Missing')).toBeNull()
  })

  test('replacing a section leaves every other byte as it was', () => {
    const edited = setSection(BODY, 'Context', 'New words.')
    expect(sectionText(edited, 'Context')).toBe('New words.')
    const fromCustom = (b: string) => b.slice(b.indexOf('## Custom'))
    expect(fromCustom(edited)).toBe(fromCustom(BODY))
    expect(edited.startsWith('# Do the thing\n\n## Context\nNew words.\n')).toBe(true)
  })

  test('a missing section is added at the end, or before the one named', () => {
    expect(setSection('# T\n', 'So that', 'why')).toBe('# T\n\n## So that\nwhy\n')
    const before = setSection(BODY, 'So that', 'why', { before: 'Acceptance' })
    expect(before.indexOf('## So that')).toBeLessThan(before.indexOf('## Acceptance'))
    expect(sectionText(before, 'So that')).toBe('why')
  })

  test('CRLF bodies stay CRLF through every edit', () => {
    const crlf = BODY.replace(/\n/g, '\r\n')
    for (const out of [
      setSection(crlf, 'Context', 'a\nb'),
      appendToSection(crlf, 'Log', ['- later']),
      setChecked(crlf, checkboxes(crlf), true),
    ]) {
      expect(out.replace(/\r\n/g, '')).not.toMatch(/\n/)
    }
  })

  test('set then read gives back the text, for any text (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z .,\n-]{0,80}$/), (text) => {
        const expected =
          text.trim() === ''
            ? null
            : text
                .replace(/\s+$/, '')
                .replace(/^\s*\n/, '')
                .trim()
        expect(sectionText(setSection(BODY, 'Context', text), 'Context')).toBe(expected)
      }),
      { numRuns: 300 },
    )
  })
})

describe('checkboxes', () => {
  test('only box items of the section, numbered from 1, any bullet, x or X', () => {
    expect(checkboxes(BODY).map((b) => [b.n, b.text, b.checked])).toEqual([
      [1, 'first', false],
      [2, 'second', true],
      [3, 'third, another bullet', true],
    ])
    expect(checkboxes(BODY, 'Context')).toEqual([])
  })

  test('checking touches one character per box', () => {
    const boxes = checkboxes(BODY)
    const out = setChecked(BODY, [boxes[0] as (typeof boxes)[0]], true)
    expect(out.length).toBe(BODY.length)
    const diff = [...out].filter((c, i) => c !== BODY[i])
    expect(diff).toEqual(['x'])
    expect(checkboxes(out).map((b) => b.checked)).toEqual([true, true, true])
  })
})

describe('appendToSection', () => {
  test('lines go after the last line of the section; a missing section is created', () => {
    const out = appendToSection(BODY, 'Log', ['- 2026-01-02T00:00:00Z a-root claimed'])
    expect(sectionText(out, 'Log')).toBe('- 2026-01-01T00:00:00Z a-root created\n- 2026-01-02T00:00:00Z a-root claimed')
    expect(out.slice(0, out.indexOf('## Log'))).toBe(BODY.slice(0, BODY.indexOf('## Log')))
    expect(sectionText(appendToSection('# T\n', 'Log', ['- one']), 'Log')).toBe('- one')
  })

  test('in a body mixing CRLF and LF, new lines take the end of the line they follow', () => {
    const mixed = '# T\r\n\r\n## Context\r\nwhy\r\n\n## Log\n- a\n'
    expect(appendToSection(mixed, 'Log', ['- b'])).toBe(`${mixed}- b\n`)
    expect(appendToSection(mixed, 'Context', ['more'])).toBe(mixed.replace('why\r\n', 'why\r\nmore\r\n'))
    expect(appendToSection('# T\r\n\n## Log\n- a\n', 'Acceptance', ['- [ ] c'])).toBe(
      '# T\r\n\n## Log\n- a\n\n## Acceptance\n\n- [ ] c\n',
    )
  })
})

describe('text from others', () => {
  test('a quote cannot open a section', () => {
    expect(quote('hi\n## Acceptance\n- [x] done')).toBe('> hi\n> ## Acceptance\n> - [x] done')
    expect(sections(`# T\n\n${quote('x\n## Log')}\n`).map((s) => s.title)).toEqual(['T'])
  })

  test('inline text renders as itself on one line: no heading, box, link or tag survives', () => {
    const hostile = '## [x] <img src=x> [link](http://e.invalid)\n- [ ] *boom*'
    const out = inlineMarkdown(hostile)
    expect(out).not.toMatch(/\n/)
    const body = `# T\n\n## Acceptance\n- [ ] ${out}\n`
    expect(checkboxes(body).map((b) => b.checked)).toEqual([false])
    expect(sections(body).map((s) => s.title)).toEqual(['T', 'Acceptance'])
    expect(out).not.toMatch(/(^|[^\\])[<[\]]/)
  })
})

describe('heading text (CommonMark closing sequences)', () => {
  test('a closing run of # counts only after a blank: C# keeps its #, Log ## loses the run', () => {
    expect(titleOf('# Support C#\n')).toBe('Support C#')
    expect(titleOf('# Port to F# and C#  \n')).toBe('Port to F# and C#')
    expect(titleOf('# Do the thing ##\n')).toBe('Do the thing')
    expect(titleOf('# Do the thing\t#\t\n')).toBe('Do the thing')
    expect(titleOf('# C # #\n')).toBe('C #')
    expect(titleOf('# # #\n')).toBe('#')
    expect(sections('## Acceptance ##\n- [ ] a\n').map((x) => x.title)).toEqual(['Acceptance'])
    expect(sections('## Acceptance#\n').map((x) => x.title)).toEqual(['Acceptance#'])
  })

  test('a heading line written for any one-line text reads back as that text (property)', () => {
    const text = fc
      .string({ unit: fc.constantFrom('a', 'C', '#', ' ', '\t', 'é', '\\'), minLength: 1, maxLength: 12 })
      .map((t) => t.trim())
      .filter((t) => t !== '')
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 6 }), (t, level) => {
        const line = headingLine(level, t)
        expect(headingText(line.slice(level + 1))).toBe(t)
        if (level === 1) expect(titleOf(setTitle('\n# Old\n\n## Log\n', t))).toBe(t)
      }),
    )
  })

  test('only a text a closing sequence would eat gets one of its own', () => {
    expect(headingLine(1, 'Support C#')).toBe('# Support C#')
    expect(headingLine(1, 'Port to F# and C #')).toBe('# Port to F# and C # #')
    expect(headingLine(2, '#')).toBe('## # #')
  })

  test('a heading holds every character of its line: a carriage return in a title is refused by name, never passed over', () => {
    expect(() => checkedTitleOf('# Title with\rcarriage return\n')).toThrow(/title.*U\+000D|title.*control|carriage/i)
    expect(titleOf('# Line\u2028separated\n')).toBe('Line\u2028separated')
  })
})
