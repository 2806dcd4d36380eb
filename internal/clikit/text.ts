// Text for people: control characters from data made
// visible, colour (on a terminal, never with NO_COLOR) through one gate, counts
// with correct plurals, and the short task reference used in tables. Display
// width and cutting live in width.ts, loaded only to render tables.

/**
 * Characters a terminal acts on instead of showing: C0 (tab and newline aside), DEL, C1 (a lone 0x9b is a CSI on
 * some terminals) and the bidirectional controls that reorder what is shown ("Trojan Source"). `\uE000`/`\uE001`
 * are the private-use brackets of our own style marks (out.ts), so data can never carry one.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\uE000\uE001]/g
const UNSAFE_INLINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\uE000\uE001]/g

const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' }

function escapeOne(ch: string): string {
  const named = NAMED[ch]
  if (named !== undefined) return named
  const cp = ch.codePointAt(0) as number
  return cp <= 0xff ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`
}

/**
 * Text from data, safe to print: every control character becomes its escape (`\x1b`, `\u202e`), so a title cannot
 * clear the screen, retitle the window or reorder a line. Newlines and tabs stay unless `inline` (a table cell,
 * a one-line field), where they are shown as `\n` and `\t` too.
 */
export function visible(text: string, inline = false): string {
  return text.replace(inline ? UNSAFE_INLINE : UNSAFE, escapeOne)
}

/** `ledger/012-audit-the-writes` → `ledger/12` (tables); anything else is returned as it is. */
export function shortRef(ref: string): string {
  const m = /^([^/]+)\/0*(\d+)(?:-[^/]*)?$/.exec(ref)
  return m === null ? ref : `${m[1]}/${m[2]}`
}

/** One decimal for people (`2.167` → `2.2`, `6` → `6.0`); null stays `-`. */
export function oneDecimal(n: number | null | undefined): string {
  return n === null || n === undefined ? '-' : (Math.round(n * 10) / 10).toFixed(1)
}

const SGR = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  cyan: [36, 39],
} as const
export type Style = keyof typeof SGR
const NAMES = Object.keys(SGR) as Style[]

export type Styler = (style: Style, text: string) => string

/** Colour per task status (one each). */
export const STATUS_STYLE = { open: 'cyan', active: 'green', blocked: 'red', done: 'dim' } as const satisfies Record<
  string,
  Style
>

/**
 * Colour only for a terminal, never with NO_COLOR (https://no-color.org) or TERM=dumb; FORCE_COLOR set forces it
 * on, except `0` or `false`, which force it off (as Node and the common colour libraries read it).
 */
export function colorEnabled(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  const force = env.FORCE_COLOR
  if (force !== undefined) return force !== '0' && force !== 'false'
  return isTTY && env.TERM !== 'dumb'
}

/**
 * The width tables must fit: on a terminal, `COLUMNS` when set, else the terminal's own width, else 80. Piped
 * output has none (nothing is cut).
 */
export function terminalWidth(
  isTTY: boolean,
  columns: number | undefined,
  env: Readonly<Record<string, string | undefined>>,
): number | null {
  if (!isTTY) return null
  const fromEnv = Number(env.COLUMNS)
  if (env.COLUMNS !== undefined && Number.isInteger(fromEnv) && fromEnv >= 20 && fromEnv <= 1000) return fromEnv
  return columns !== undefined && columns >= 20 ? columns : 80
}

function nonce(): string {
  let s = ''
  for (let i = 0; i < 6; i++) s += String.fromCharCode(0x61 + Math.floor(Math.random() * 26))
  return s
}

export interface TextGate {
  style: Styler
  /** Data made visible, this gate's own marks kept (what tables measure and cut). */
  prepare(text: string, inline?: boolean): string
  /** Prepared text with the marks turned into SGR sequences (or dropped without colour). */
  emit(prepared: string): string
}

/** A styler and the gate that turns its marks into SGR sequences and everything from data into escapes. */
export function textGate(color: boolean): TextGate {
  if (!color)
    return { style: (_s, text) => text, prepare: (text, inline = false) => visible(text, inline), emit: (t) => t }
  const key = nonce()
  const mine = new RegExp(`\uE000${key}(\\d)([oc])\uE001`, 'g')
  const mark = (i: number, end: 'o' | 'c') => `\uE000${key}${i}${end}\uE001`
  return {
    style: (s, text) => {
      const i = NAMES.indexOf(s)
      return `${mark(i, 'o')}${text}${mark(i, 'c')}`
    },
    // Data between our marks is made visible; a forged mark (wrong key) is data, so it is escaped too.
    prepare(text, inline = false) {
      let out = ''
      let last = 0
      for (const m of text.matchAll(mine)) {
        out += visible(text.slice(last, m.index), inline) + m[0]
        last = m.index + m[0].length
      }
      return out + visible(text.slice(last), inline)
    },
    emit: (prepared) =>
      prepared.replace(mine, (_m, i: string, end: string) => {
        const codes = SGR[NAMES[Number(i)] as Style]
        return `\u001b[${end === 'o' ? codes[0] : codes[1]}m`
      }),
  }
}

/**
 * A usage synopsis folded to `width` columns: breaks fall between words and never inside a `[…]` or `<…>`
 * group; continuation lines are indented under the first argument (or by 4 when the path is too long).
 */
export function wrapUsage(usage: string, width: number, lead = ''): string {
  const words: string[] = []
  let depth = 0
  let cur = ''
  for (const ch of usage) {
    if (ch === ' ' && depth === 0) {
      if (cur !== '') words.push(cur)
      cur = ''
      continue
    }
    if (ch === '[' || ch === '<') depth++
    else if ((ch === ']' || ch === '>') && depth > 0) depth--
    cur += ch
  }
  if (cur !== '') words.push(cur)
  const firstArg = words.findIndex((w, i) => i > 0 && /^[[(<\-A-Z"]/.test(w))
  const head = `${lead}${words.slice(0, firstArg === -1 ? words.length : firstArg).join(' ')} `
  const indent = ' '.repeat(head.length <= width / 2 ? head.length : 4)
  const lines: string[] = []
  let line = ''
  for (const w of words) {
    const next = line === '' ? `${lines.length === 0 ? lead : indent}${w}` : `${line} ${w}`
    if (line !== '' && next.length > width) {
      lines.push(line)
      line = `${indent}${w}`
    } else line = next
  }
  if (line !== '') lines.push(line)
  return lines.join('\n').slice(lead.length)
}
