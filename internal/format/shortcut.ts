// The shortcut file's bytes → values (pure; FORMAT.md, "Shortcut"). A shortcut is a named list of dacli
// commands with `{{param}}` placeholders, in `.dacli/shortcuts/<name>.md`, written by hand. Each step is split
// into words here — never handed to a shell: double quotes group words ("two words", with \" and \\), and no other
// character means anything. Whether a step names a command and its flags is checked against the command table
// above this room (features/shortcut/load.ts); this file knows only the shape, and every fault names its line.

import { titleControl } from './ids.js'

export interface ShortcutParam {
  readonly name: string
  /** The value used when the caller gives none; null: the caller must give it. */
  readonly default: string | null
  readonly description: string | null
  readonly line: number
}

export interface ShortcutStepText {
  /** The words of the step, placeholders unexpanded (a leading `dacli` dropped). */
  readonly words: readonly string[]
  /** The step as written (without its list marker and backticks). */
  readonly text: string
  readonly line: number
}

export interface ShortcutText {
  readonly title: string | null
  readonly description: string | null
  readonly params: readonly ShortcutParam[]
  readonly steps: readonly ShortcutStepText[]
}

/** A fault in a shortcut file: the line (1-based) and why. */
export interface ShortcutFault {
  readonly line: number
  readonly why: string
}

/** A parameter's name: a plain word, as a flag is named (`--lease` → `lease`). */
export const PARAM_NAME = /^[a-z][a-z0-9_-]*$/

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g

const PARAM_LINE =
  /^\s*[-*]\s+(`?)([a-z][a-z0-9_-]*)\1(?:\s*=\s*("(?:[^"\\]|\\.)*"|`[^`]*`|[^\s"`]+))?(?:\s+(?:—|--)\s+(.*?))?\s*$/

const STEP_LINE = /^\s*(?:\d+[.)]|[-*])\s+(.*?)\s*$/

/** The names of the placeholders in a word, in order (a malformed `{{…}}` is reported by the parser). */
export function placeholdersOf(word: string): string[] {
  return [...word.matchAll(PLACEHOLDER)].map((m) => m[1] as string)
}

/** A word with its placeholders replaced by the values given (every name must have one). */
export function expand(word: string, values: Readonly<Record<string, string>>): string {
  return word.replace(PLACEHOLDER, (_m, name: string) => values[name] ?? '')
}

/** Split a step into words: whitespace separates, double quotes group (\" and \\ inside). */
export function splitWords(text: string): { words: string[] } | { why: string } {
  const words: string[] = []
  let cur = ''
  let inWord = false
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string
    if (quoted) {
      if (c === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) {
        cur += text[i + 1]
        i++
      } else if (c === '"') quoted = false
      else cur += c
      continue
    }
    if (c === '"') {
      quoted = true
      inWord = true
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur)
      cur = ''
      inWord = false
    } else {
      cur += c
      inWord = true
    }
  }
  if (quoted) return { why: 'a double quote is not closed' }
  if (inWord) words.push(cur)
  return { words }
}

function unquote(v: string): string {
  if (v.startsWith('`')) return v.slice(1, -1)
  if (v.startsWith('"')) return v.slice(1, -1).replace(/\\(["\\])/g, '$1')
  return v
}

/** Parse a shortcut file; the first fault met is returned instead of the values. */
export function parseShortcut(text: string): { shortcut: ShortcutText } | { fault: ShortcutFault } {
  const lines = text.replace(/\r\n/g, '\n').split('\n')
  let title: string | null = null
  const description: string[] = []
  const params: ShortcutParam[] = []
  const steps: ShortcutStepText[] = []
  let section: string | null = null
  let inFront = lines[0] === '---'
  let fence = false
  for (const [i, raw] of lines.entries()) {
    const n = i + 1
    if (inFront) {
      if (i > 0 && raw === '---') inFront = false
      continue
    }
    if (/^\s*(```|~~~)/.test(raw)) {
      fence = !fence
      continue
    }
    if (fence) continue
    const h = /^(#{1,6})\s+(.*?)\s*$/.exec(raw)
    // Every line read (headings, the description, parameters, steps) reaches `shortcut list`/`show` documents and
    // terminals: one holding a control character is a fault, as a task's title is refused.
    const read = h !== null || section === null || ['parameters', 'params', 'steps'].includes(section)
    const control = read ? titleControl(raw) : null
    if (control !== null) return { fault: { line: n, why: `the line holds ${control}` } }
    if (h) {
      if (h[1] === '#' && title === null) title = h[2] as string
      else section = (h[2] as string).toLowerCase()
      continue
    }
    if (raw.trim() === '') continue
    if (section === null) {
      if (title !== null && description.length < 20) description.push(raw.trim())
      continue
    }
    if (section === 'parameters' || section === 'params') {
      const m = PARAM_LINE.exec(raw)
      if (m === null) {
        return {
          fault: {
            line: n,
            why: `"${raw.trim().slice(0, 80)}" is not a parameter (- name, - name = default, then — what it is)`,
          },
        }
      }
      const name = m[2] as string
      if (params.some((p) => p.name === name)) return { fault: { line: n, why: `parameter ${name} is declared twice` } }
      params.push({
        name,
        default: m[3] === undefined ? null : unquote(m[3]),
        description: m[4] === undefined || m[4] === '' ? null : m[4],
        line: n,
      })
      continue
    }
    if (section === 'steps') {
      const m = STEP_LINE.exec(raw)
      if (m === null) {
        return { fault: { line: n, why: `"${raw.trim().slice(0, 80)}" is not a step (1. <command> [arguments])` } }
      }
      let body = m[1] as string
      if (/^`[^`]+`$/.test(body)) body = body.slice(1, -1)
      if (body.includes('`'))
        return { fault: { line: n, why: 'a step is one command: put it in one pair of backticks' } }
      const split = splitWords(body)
      if ('why' in split) return { fault: { line: n, why: split.why } }
      const words = split.words[0] === 'dacli' ? split.words.slice(1) : split.words
      if (words.length === 0) return { fault: { line: n, why: 'the step names no command' } }
      for (const w of words) {
        const open = (w.match(/\{\{/g) ?? []).length
        const names = placeholdersOf(w)
        if (open !== names.length || (w.match(/\}\}/g) ?? []).length !== names.length) {
          return { fault: { line: n, why: `"${w}": a placeholder is written {{name}}` } }
        }
        const bad = names.find((x) => !PARAM_NAME.test(x))
        if (bad !== undefined) return { fault: { line: n, why: `"{{${bad}}}" is not a parameter name` } }
      }
      steps.push({ words, text: body, line: n })
    }
    // Any other section is people's notes: not read.
  }
  if (steps.length === 0) return { fault: { line: lines.length, why: 'no steps: a "## Steps" list of commands' } }
  return {
    shortcut: { title, description: description.length === 0 ? null : description.join(' '), params, steps },
  }
}
