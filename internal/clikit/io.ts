// Output streams and human rendering helpers. The real streams are handed in by
// cmd/dacli.ts (the only file that touches `process`); tests use bufferIO().

export interface Writer {
  write(text: string): void
}

export interface IO {
  readonly stdout: Writer
  readonly stderr: Writer
  readonly stdoutIsTTY: boolean
  readonly stderrIsTTY: boolean
  /** Terminal width when stdout is a terminal. */
  readonly columns?: number
}

/** Color only for a terminal, and never when NO_COLOR is set (https://no-color.org) or TERM=dumb. */
export function colorEnabled(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true
  return isTTY && env.TERM !== 'dumb'
}

const SGR = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39] } as const
type Style = keyof typeof SGR

export type Styler = (style: Style, text: string) => string

export function styler(enabled: boolean): Styler {
  return (style, text) => (enabled ? `\u001b[${SGR[style][0]}m${text}\u001b[${SGR[style][1]}m` : text)
}

/** Human output for one command's stdout. */
export interface Out {
  line(text?: string): void
  /** Aligned columns; cells may carry styling (width is measured without escape codes). */
  table(rows: readonly (readonly string[])[], opts?: { indent?: number; gap?: number }): void
  /** `key: value` pairs, keys aligned. */
  fields(pairs: readonly (readonly [string, string | number | null | undefined])[], opts?: { indent?: number }): void
  readonly style: Styler
  readonly color: boolean
}

const ESC = /\u001b\[[0-9;]*m/g
export const visibleWidth = (s: string): number => [...s.replace(ESC, '')].length

export function makeOut(w: Writer, color: boolean): Out {
  const style = styler(color)
  const line = (text = '') => w.write(`${text}\n`)
  return {
    style,
    color,
    line,
    table(rows, opts = {}) {
      const indent = ' '.repeat(opts.indent ?? 0)
      const gap = ' '.repeat(opts.gap ?? 2)
      const widths: number[] = []
      for (const r of rows) {
        r.forEach((c, i) => {
          widths[i] = Math.max(widths[i] ?? 0, visibleWidth(c))
        })
      }
      for (const r of rows) {
        const cells = r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat((widths[i] ?? 0) - visibleWidth(c))))
        line(`${indent}${cells.join(gap)}`.trimEnd())
      }
    },
    fields(pairs, opts = {}) {
      const indent = ' '.repeat(opts.indent ?? 0)
      const width = Math.max(0, ...pairs.map(([k]) => k.length))
      for (const [k, v] of pairs) {
        line(`${indent}${style('dim', `${k}:`.padEnd(width + 1))} ${v === null || v === undefined ? '-' : String(v)}`)
      }
    },
  }
}

/** Warnings, notes and progress for people, on stderr; silenced by --quiet. */
export interface Notes {
  warn(message: string): void
  note(message: string): void
  /** stderr is a terminal (and not silenced): a status line can be redrawn in place. */
  readonly live: boolean
  /**
   * A transient status line (a progress bar), redrawn in place on a terminal; '' clears it. Notes and warnings
   * clear it first. Without a terminal it writes nothing: callers print plain progress lines with note().
   */
  status(text: string): void
}

const CLEAR_LINE = '\r\u001b[2K'

export function makeNotes(w: Writer, quiet: boolean, color: boolean, tty = false): Notes {
  const style = styler(color)
  const live = tty && !quiet
  let shown = false
  const clear = () => {
    if (shown) w.write(CLEAR_LINE)
    shown = false
  }
  return {
    live,
    warn: (m) => {
      if (quiet) return
      clear()
      w.write(`${style('yellow', 'warning:')} ${m}\n`)
    },
    note: (m) => {
      if (quiet) return
      clear()
      w.write(`${m}\n`)
    },
    status: (text) => {
      if (!live) return
      if (text === '') return clear()
      w.write(`${CLEAR_LINE}${text}`)
      shown = true
    },
  }
}

export interface BufferIO extends IO {
  out(): string
  err(): string
}

/** An in-memory IO for tests. */
export function bufferIO(opts: { tty?: boolean; columns?: number } = {}): BufferIO {
  let o = ''
  let e = ''
  return {
    stdout: {
      write: (t) => {
        o += t
      },
    },
    stderr: {
      write: (t) => {
        e += t
      },
    },
    stdoutIsTTY: opts.tty ?? false,
    stderrIsTTY: opts.tty ?? false,
    ...(opts.columns === undefined ? {} : { columns: opts.columns }),
    out: () => o,
    err: () => e,
  }
}
