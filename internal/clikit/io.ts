// Output streams, and the stderr voice for people: warnings, notes and progress.
// The real streams are handed in by cmd/dacli.ts (the only file that touches
// `process`); tests use bufferIO().

import type { Notes, Progress } from '../base/notes.js'
import { textGate } from './text.js'

export type { Out } from './out.js'
export type { Styler } from './text.js'
export { colorEnabled, STATUS_STYLE, terminalWidth } from './text.js'

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
  /** Terminal width when stderr is a terminal (progress bars); stdout's when absent. */
  readonly stderrColumns?: number
}

export interface NotesOptions {
  quiet: boolean
  /** Under --json stderr carries warnings and the error envelope only. */
  json?: boolean
  color: boolean
  /** stderr is a terminal: progress is a bar redrawn in place. */
  tty?: boolean
  width?: number | null
  /** Milliseconds, for throttling redraws (tests pass a fake). */
  clock?: () => number
}

/** Runs shorter than this print no plain progress lines (a terminal still shows its bar). */
const MIN_PLAIN = 10

/** At most this many skipped files are named one per line. */
const SKIPPED_LINES = 10

const SILENT: Progress = { update() {}, tick() {}, say() {}, end() {} }
const BAR = 20
const REDRAW_MS = 100

export function makeNotes(w: Writer, o: NotesOptions): Notes {
  const { style, prepare, emit } = textGate(o.color)
  const clock = o.clock ?? (() => Date.now())
  const width = o.width ?? 80
  let bar: string | null = null
  // The bar is cut to the width by the width module, loaded on the first progress shown on a terminal.
  let cut = (text: string, n: number) => [...text].slice(0, Math.max(0, n)).join('')
  const put = (text: string) => {
    if (bar !== null) w.write('\r\u001b[K')
    w.write(`${emit(prepare(text))}\n`)
    if (bar !== null) w.write(bar)
  }
  const notes: Notes = {
    warn: (m) => {
      if (!o.quiet) put(`${style('yellow', 'warning:')} ${m}`)
    },
    skipped(objects) {
      // A few lines name files; a flood (thousands of planted or legacy files) is counted, not printed.
      for (const b of objects.slice(0, SKIPPED_LINES)) notes.warn(`skipped ${b.path}: ${b.reason} (see dacli doctor)`)
      const more = objects.length - SKIPPED_LINES
      if (more > 0) notes.warn(`skipped ${more} more file${more === 1 ? '' : 's'} (dacli doctor names each)`)
    },
    note: (m) => {
      if (!o.quiet) put(m)
    },
    progress(label, total) {
      if (o.quiet || o.json) return SILENT
      if (o.tty) {
        void import('./width.js').then((m) => {
          cut = m.cut
        })
      }
      let done = 0
      let lastDraw = Number.NEGATIVE_INFINITY
      let lastTenth = 0
      const fraction = () => (total === null || total <= 0 ? null : Math.min(1, done / total))
      const draw = (detail: string | undefined, force: boolean) => {
        if (o.tty) {
          const now = clock()
          if (!force && now - lastDraw < REDRAW_MS) return
          lastDraw = now
          const f = fraction()
          const filled = f === null ? 0 : Math.round(f * BAR)
          const meter = f === null ? '' : `${'█'.repeat(filled)}${'░'.repeat(BAR - filled)} `
          const counts = total === null ? `${done}` : `${done}/${total}`
          const text = cut(prepare(`${label} ${meter}${counts}${detail ? `  ${detail}` : ''}`, true), width - 1)
          bar = `\r${emit(text)}\u001b[K`
          w.write(bar)
          return
        }
        // Plain lines: one per tenth reached (or per hundred items when the total is unknown); none for a run of
        // fewer than MIN_PLAIN items (a line per item of a one-item prune is noise in a log).
        if (total !== null && total < MIN_PLAIN) return
        const step = total === null || total <= 0 ? Math.floor(done / 100) : Math.floor((done * 10) / total)
        if (step <= lastTenth && !force) return
        lastTenth = step
        const counts = total === null ? `${done}` : `${done}/${total} (${Math.round((fraction() ?? 0) * 100)}%)`
        w.write(`${emit(prepare(`${label}: ${counts}${detail ? ` ${detail}` : ''}`))}\n`)
      }
      return {
        update(n, detail) {
          done = Math.max(0, n)
          draw(detail, false)
        },
        tick(detail) {
          done++
          draw(detail, false)
        },
        say(m) {
          put(m)
        },
        end(summary) {
          if (bar !== null) {
            w.write('\r\u001b[K')
            bar = null
          }
          if (summary !== undefined) put(summary)
        },
      }
    },
  }
  return notes
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
