import { describe, expect, test } from 'vitest'
import { extractAcceptance } from './acceptance.js'

describe('acceptance criteria from an issue body', () => {
  test('checkboxes and bullets under an Acceptance heading, imported once each', () => {
    const body = [
      'Intro text with - [ ] a box outside the section.',
      '',
      '## Acceptance criteria',
      '',
      '- [ ] Works offline',
      '- [x] Has tests',
      '* Documented in the README',
      '- [ ] Works offline',
      '',
      'Some closing prose.',
      '',
      '## Notes',
      '- [ ] not a criterion',
    ].join('\n')
    expect(extractAcceptance(body)).toEqual({
      criteria: ['Works offline', 'Has tests', 'Documented in the README'],
      ambiguities: [],
    })
  })

  test('nested, numbered and wrapped items are reported, never guessed', () => {
    const body = [
      '### Acceptance',
      '- [ ] Top level',
      '  - [ ] nested detail',
      '1. numbered thing',
      '- [ ] Wrapped criterion that',
      '  continues here',
      '```',
      '- [ ] inside a fence',
      '```',
    ].join('\n')
    expect(extractAcceptance(body)).toEqual({
      criteria: ['Top level', 'Wrapped criterion that'],
      ambiguities: ['- [ ] nested detail', '1. numbered thing', 'continues here'],
    })
  })

  test('no heading, no criteria; CRLF and control characters are handled', () => {
    expect(extractAcceptance('- [ ] a\n- [ ] b')).toEqual({ criteria: [], ambiguities: [] })
    expect(extractAcceptance('# Acceptance:\r\n- [ ] one\u0007two\r\n').criteria).toEqual(['one two'])
  })
})
