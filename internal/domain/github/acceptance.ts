// Acceptance criteria in a GitHub issue body: the list items under a heading
// named "Acceptance" or "Acceptance criteria" (any level). Top-level items —
// checkboxes, checked or not, and plain bullets — become criteria, always
// imported unchecked (a box ticked on GitHub proves nothing here). Nested or
// numbered items, wrapped continuation lines and checkboxes with no text are
// reported as ambiguities and never guessed into a criterion; fenced code is
// ignored.

import { headingText } from '../../format/markdown.js'

const HEADING = /^ {0,3}(#{1,6})[ \t]+([^\n]*)$/
const FENCE = /^ {0,3}(`{3,}|~{3,})/
const ACCEPTANCE = /^acceptance(?:[ \t]+criteria)?[ \t]*:?$/i
const TOP_ITEM = /^ ?[-*+][ \t]+(?:\[[ xX]\][ \t]+)?(.*)$/
const NUMBERED = /^[ \t]*\d{1,9}[.)][ \t]+/
const NESTED_ITEM = /^(?: {2,}|\t)[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+/
const EMPTY_BOX = /^ ?[-*+][ \t]+\[[ xX]\][ \t]*$/
const MAX = 500

export interface Acceptance {
  criteria: string[]
  ambiguities: string[]
}

const clean = (s: string) =>
  s
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()

export function extractAcceptance(body: string): Acceptance {
  const criteria: string[] = []
  const ambiguities: string[] = []
  let fence: string | null = null
  let inSection = false
  let afterItem = false
  for (const raw of body.replace(/\r\n?/g, '\n').split('\n')) {
    const f = FENCE.exec(raw)
    if (f) {
      const marker = (f[1] as string)[0] as string
      if (fence === null) fence = marker
      else if (fence === marker) fence = null
      afterItem = false
      continue
    }
    if (fence !== null) continue
    const h = HEADING.exec(raw)
    if (h) {
      inSection = ACCEPTANCE.test(headingText(h[2] as string))
      afterItem = false
      continue
    }
    if (!inSection) continue
    if (raw.trim() === '') {
      afterItem = false
      continue
    }
    if (NUMBERED.test(raw) || NESTED_ITEM.test(raw)) {
      ambiguities.push(clean(raw))
      continue
    }
    // A checkbox with no text is no criterion; its box would otherwise be read as the criterion's words.
    if (EMPTY_BOX.test(raw)) {
      ambiguities.push(`${clean(raw)} (an empty checkbox)`)
      afterItem = false
      continue
    }
    const top = TOP_ITEM.exec(raw)
    if (top) {
      const text = clean(top[1] as string)
      if (text === '') continue
      if (text.length > MAX) ambiguities.push(`${text.slice(0, 80)}… (longer than ${MAX} characters)`)
      else if (!criteria.includes(text)) criteria.push(text)
      afterItem = true
      continue
    }
    // Text right after an item, indented or not, continues it: which words belong to the criterion is a guess.
    if (afterItem) ambiguities.push(clean(raw))
  }
  return { criteria, ambiguities }
}
