// Display width in terminal cells (wide characters count two, combining marks
// none) and cutting to a width with `…`. Loaded with the table renderer, not at
// start-up (get-east-asian-width holds the Unicode tables).

import { eastAsianWidth } from 'get-east-asian-width'

/** Our style marks (out.ts): zero width, never cut in half. */
const MARK = /\uE000[^\uE001]{0,16}\uE001/g

function charWidth(cp: number): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0
  // Combining marks, zero-width joiners and variation selectors ride on the previous character.
  if (
    (cp >= 0x300 && cp <= 0x36f) ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0x1ab0 && cp <= 0x1aff) ||
    (cp >= 0x20d0 && cp <= 0x20ff) ||
    (cp >= 0xe0100 && cp <= 0xe01ef)
  ) {
    return 0
  }
  return eastAsianWidth(cp)
}

/** Terminal cells the text occupies (style marks and SGR sequences count zero; wide characters two). */
export function displayWidth(text: string): number {
  let w = 0
  for (const part of text.replace(MARK, '').replace(SGR, '')) w += charWidth(part.codePointAt(0) as number)
  return w
}

const SGR = /\u001b\[[0-9;]*m/g

/**
 * The text cut to at most `width` cells, ending in `…` when something was cut. Style marks are all kept (they
 * are zero width), so a style opened before the cut is still closed.
 */
export function cut(text: string, width: number): string {
  if (displayWidth(text) <= width) return text
  if (width <= 0) return (text.match(MARK) ?? []).join('')
  let out = ''
  let used = 0
  let full = false
  let i = 0
  while (i < text.length) {
    MARK.lastIndex = i
    const m = text[i] === '\uE000' ? MARK.exec(text) : null
    if (m !== null && m.index === i) {
      out += m[0]
      i += m[0].length
      continue
    }
    const cp = text.codePointAt(i) as number
    const ch = String.fromCodePoint(cp)
    i += ch.length
    if (full) continue
    const w = charWidth(cp)
    if (used + w > width - 1) {
      out += '…'
      full = true
      continue
    }
    out += ch
    used += w
  }
  MARK.lastIndex = 0
  // A style whose text was cut away entirely leaves nothing behind.
  return out.replace(/\uE000([a-z]{6}\d)o\uE001\uE000\1c\uE001/g, '')
}
