// The prose and the literals of a TypeScript source, apart: comments (what the comment-citation rule reads)
// and the text of string and template literals (what the command-text rule reads). A small lexer: it knows
// quotes, template literals with nested `${…}`, line and block comments, and regular-expression literals (a `/`
// where an operand may start), which is all it needs to tell code, text and comments apart.

export interface Piece {
  readonly text: string
  /** 1-based line where the piece starts. */
  readonly line: number
  /** For a literal: the code just before the innermost `[`, `(` or `{` it stands in (`next: `), '' at the top. */
  readonly within?: string
}

export interface Scanned {
  readonly comments: readonly Piece[]
  readonly strings: readonly Piece[]
}

/** Characters after which a `/` starts a regular expression rather than a division. */
const BEFORE_REGEX = new Set([
  '',
  '(',
  ',',
  '=',
  ':',
  '[',
  '!',
  '&',
  '|',
  '?',
  '{',
  '}',
  ';',
  '+',
  '-',
  '*',
  '%',
  '<',
  '>',
  '~',
  '^',
])
const REGEX_KEYWORDS = /(?:^|[^\w$])(?:return|typeof|instanceof|in|of|new|delete|void|throw|case|do|else|yield|await)$/

export function scanText(src: string): Scanned {
  const comments: Piece[] = []
  const strings: Piece[] = []
  let line = 1
  let i = 0
  let last = '' // the last significant code character
  let code = '' // the code since the last literal, for the keyword test
  let recent = '' // the last code characters, a literal standing as '' (what labels an opening bracket)
  /** The brackets open around the cursor, each with the code before it. */
  const open: string[] = []
  const within = () => open[open.length - 1] ?? ''
  /** Template literals open around the cursor, each with the brace depth of its `${` expression. */
  const templates: { depth: number; start: number; line: number; text: string; within: string }[] = []
  let depth = 0

  const advance = (n: number) => {
    for (let k = 0; k < n; k++) if (src[i + k] === '\n') line++
    i += n
  }
  const readTemplate = () => {
    // At a backtick or a `}` closing an expression: read the template's text up to `${` or the closing backtick.
    const t = templates[templates.length - 1] as (typeof templates)[number]
    while (i < src.length) {
      const c = src[i]
      if (c === '\\') {
        t.text += src.slice(i, i + 2)
        advance(2)
      } else if (c === '`') {
        advance(1)
        templates.pop()
        strings.push({ text: t.text, line: t.line, within: t.within })
        recent = `${recent}''`.slice(-40)
        last = ')'
        return
      } else if (c === '$' && src[i + 1] === '{') {
        advance(2)
        t.text += '${…}'
        t.depth = depth
        depth++
        last = '('
        return
      } else {
        t.text += c
        advance(1)
      }
    }
  }

  while (i < src.length) {
    const c = src[i] as string
    const next = src[i + 1]
    if (c === '/' && next === '/') {
      const end = src.indexOf('\n', i)
      const stop = end === -1 ? src.length : end
      comments.push({ text: src.slice(i + 2, stop), line })
      advance(stop - i)
    } else if (c === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2)
      const stop = end === -1 ? src.length : end + 2
      comments.push({ text: src.slice(i + 2, end === -1 ? src.length : end), line })
      advance(stop - i)
    } else if (c === "'" || c === '"') {
      const start = line
      let text = ''
      advance(1)
      while (i < src.length && src[i] !== c && src[i] !== '\n') {
        if (src[i] === '\\') {
          text += src.slice(i, i + 2)
          advance(2)
        } else {
          text += src[i]
          advance(1)
        }
      }
      advance(1)
      strings.push({ text, line: start, within: within() })
      recent = `${recent}''`.slice(-40)
      last = ')'
      code = ''
    } else if (c === '`') {
      templates.push({ depth: -1, start: i, line, text: '', within: within() })
      advance(1)
      readTemplate()
      code = ''
    } else if (c === '/' && (BEFORE_REGEX.has(last) || REGEX_KEYWORDS.test(code.trimEnd()))) {
      // A regular-expression literal: skip it (classes may hold a `/`).
      advance(1)
      let inClass = false
      while (i < src.length && src[i] !== '\n') {
        const r = src[i]
        if (r === '\\') advance(2)
        else if (r === '[') inClass = true
        else if (r === ']') inClass = false
        else if (r === '/' && !inClass) break
        if (r !== '\\') advance(1)
      }
      advance(1)
      last = ')'
      code = ''
    } else if (c === '{') {
      open.push(recent.trim())
      recent = ''
      depth++
      last = c
      code += c
      advance(1)
    } else if (c === '}') {
      depth--
      const t = templates[templates.length - 1]
      advance(1)
      if (t !== undefined && t.depth === depth) readTemplate()
      else {
        open.pop()
        last = c
        code += c
      }
    } else {
      if (!/\s/.test(c)) last = c
      code = (code + c).slice(-16)
      if (c === '[' || c === '(') {
        open.push(recent.trim())
        recent = ''
      } else if (c === ']' || c === ')') {
        open.pop()
        recent = ''
      } else recent = (recent + c).slice(-40)
      advance(1)
    }
  }
  return { comments, strings }
}
