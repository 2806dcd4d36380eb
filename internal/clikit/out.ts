// Human output for one stream: lines, width-aware tables with a header row, and
// aligned fields. Everything written passes through
// one gate that shows control characters from data as escapes; the only escape
// sequences that reach the terminal are this writer's own colours, which travel
// as private-use marks carrying a per-writer nonce that data cannot forge.

import type { Writer } from './io.js'
import { STATUS_STYLE, type Styler, textGate } from './text.js'
import { cut, displayWidth } from './width.js'

export interface TableOptions {
  indent?: number
  gap?: number
  /**
   * The column that gives way first when the table is too wide (default: the last, usually the title), or the
   * columns in the order they give way; each gives down to ten cells, then the widest of all give a cell at a time.
   */
  shrink?: number | readonly number[]
  /** Right-aligned columns (numbers). */
  right?: readonly number[]
}

/** Human output for one command's stdout. */
export interface Out {
  /**
   * One line (more when the text holds newlines); control characters in it are shown as escapes. On a terminal a
   * line wider than the width wraps at spaces, continuing under its own indent plus two (or at `hang`); a word too
   * long for any line (a path) is kept whole. Piped, lines are never wrapped. `wrap: false` for text to be copied
   * as it is (diagrams).
   */
  line(text?: string, opts?: { hang?: number; wrap?: boolean }): void
  /**
   * A table with a header row. On a terminal it fits the width: the `shrink` column is cut with `…` first, then
   * the widest others; piped, nothing is cut. Cells are one line each (newlines in data are shown as `\n`).
   * Nothing is printed when there are no rows.
   */
  table(header: readonly string[], rows: readonly (readonly string[])[], opts?: TableOptions): void
  /** `key: value` pairs, keys aligned. */
  fields(pairs: readonly (readonly [string, string | number | null | undefined])[], opts?: { indent?: number }): void
  /** The text cut to the terminal width less `reserve` cells (unchanged when piped). */
  fit(text: string, reserve?: number): string
  readonly style: Styler
  /** A task status in its colour (open, active, blocked, done; anything else plain). */
  status(status: string): string
  readonly color: boolean
  /** The terminal width, or null when output is piped. */
  readonly width: number | null
}

export interface OutOptions {
  color: boolean
  width?: number | null
}

/**
 * Greedy word wrap of prepared text at `width` cells: breaks only at whitespace (dropped at the break), keeps
 * runs of spaces inside a line, and never moves a word to a new line where it would not fit either.
 */
export function wrapLine(text: string, width: number, hang?: number): string[] {
  if (displayWidth(text) <= width) return [text]
  const lead = /^ */.exec(text)?.[0].length ?? 0
  const pad = ' '.repeat(Math.min(hang ?? lead + 2, Math.floor(width / 2)))
  const parts = text.slice(lead).split(/( +)/)
  const lines: string[] = []
  let cur = ' '.repeat(lead)
  let curWidth = lead
  let fresh = true
  for (let i = 0; i < parts.length; i += 2) {
    const word = parts[i] as string
    const space = i === 0 ? '' : (parts[i - 1] as string)
    const ww = displayWidth(word)
    if (!fresh && curWidth + space.length + ww > width && pad.length + ww <= width) {
      lines.push(cur)
      cur = pad + word
      curWidth = pad.length + ww
    } else {
      cur += space + word
      curWidth += space.length + ww
    }
    fresh = false
  }
  lines.push(cur)
  return lines
}

const MIN_SHRINK = 10

/** Column widths that fit `limit` (or the natural ones when there is no limit or they already fit). */
export function fitColumns(
  natural: readonly number[],
  limit: number | null,
  gap: number,
  shrink: number | readonly number[],
): number[] {
  const w = [...natural]
  if (limit === null || w.length === 0) return w
  const total = () => w.reduce((a, b) => a + b, 0) + gap * (w.length - 1)
  let excess = total() - limit
  if (excess <= 0) return w
  for (const col of typeof shrink === 'number' ? [shrink] : shrink) {
    const s = Math.min(Math.max(col, 0), w.length - 1)
    const give = Math.min(excess, Math.max(0, (w[s] as number) - MIN_SHRINK))
    w[s] = (w[s] as number) - give
    excess -= give
  }
  // Still too wide: take one cell at a time from the widest column, down to 1.
  while (excess > 0) {
    let widest = -1
    for (let i = 0; i < w.length; i++)
      if ((w[i] as number) > 1 && (widest < 0 || (w[i] as number) > (w[widest] as number))) widest = i
    if (widest < 0) break
    w[widest] = (w[widest] as number) - 1
    excess--
  }
  return w
}

export function makeOut(w: Writer, opts: OutOptions): Out {
  const gate = textGate(opts.color)
  const { style, prepare, emit } = gate
  const width = opts.width ?? null
  const line = (text = '', o: { hang?: number; wrap?: boolean } = {}) => {
    const prepared = prepare(text)
    if (width === null || o.wrap === false) {
      w.write(`${emit(prepared)}\n`)
      return
    }
    for (const l of prepared.split('\n')) for (const part of wrapLine(l, width, o.hang)) w.write(`${emit(part)}\n`)
  }
  return {
    style,
    status: (st) => (st in STATUS_STYLE ? style(STATUS_STYLE[st as keyof typeof STATUS_STYLE], st) : st),
    color: opts.color,
    width,
    line,
    fit: (text, reserve = 0) => (width === null ? text : cut(prepare(text, true), width - reserve)),
    table(header, rows, o = {}) {
      // No rows, no table: the command says "no … match" in its own words.
      if (rows.length === 0) return
      const indent = o.indent ?? 0
      const gap = o.gap ?? 2
      const right = new Set(o.right ?? [])
      const all = [header.map((h) => (h === '' ? '' : style('bold', h))), ...rows].map((r) =>
        r.map((c) => prepare(c, true)),
      )
      const cols = Math.max(0, ...all.map((r) => r.length))
      const natural = Array.from({ length: cols }, (_, i) => Math.max(0, ...all.map((r) => displayWidth(r[i] ?? ''))))
      const widths = fitColumns(natural, width === null ? null : width - indent, gap, o.shrink ?? cols - 1)
      for (const r of all) {
        const cells = r.map((c, i) => {
          const cw = widths[i] as number
          const text = cut(c, cw)
          const pad = ' '.repeat(Math.max(0, cw - displayWidth(text)))
          if (right.has(i)) return pad + text
          return i === r.length - 1 ? text : text + pad
        })
        w.write(`${emit(`${' '.repeat(indent)}${cells.join(' '.repeat(gap))}`.trimEnd())}\n`)
      }
    },
    fields(pairs, o = {}) {
      const indent = ' '.repeat(o.indent ?? 0)
      const keyWidth = Math.max(0, ...pairs.map(([k]) => displayWidth(k)))
      for (const [k, v] of pairs) {
        const value = v === null || v === undefined ? '-' : prepare(String(v), true)
        line(`${indent}${style('dim', `${k}:`.padEnd(keyWidth + 1))} ${value}`, { hang: indent.length + keyWidth + 2 })
      }
    },
  }
}
