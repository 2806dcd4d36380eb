// How a cache file is laid out (filecache.ts reads it): its header, its table of contents, then one line per section,
// a section copied through as the bytes it was read as, or a fresh one entry by entry, each part as it is, through
// one reused buffer (fsio.ts Spool). A section's text is never joined into one string, nor its length in bytes
// counted before it is written: at 10,000 tasks the join copied each cache file whole twice more (the join, then its
// encoding), and counting took a call per entry, which in a command's unoptimised code costs about a microsecond.
// The lines are written first, after room set aside for the table of contents; the table goes into that room last,
// padded with spaces (JSON allows them) so it fills it exactly. A reader learns the layout from the table (tocOf).

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Proc } from '../base/system.js'
import type { LineSigner } from './cachekey.js'
import { mkdirNoLinks, Spool, sweepTemps, tempPathFor } from './fsio.js'

/** Between two entries of a section (FORMAT.md, "The cache"). */
export const RS = '\u001e'

/** As long as a line's code (an HMAC-SHA256 in base64url) is written. */
const CODE_ROOM = 'x'.repeat(43)

/** A value shorter than this is joined to its entry's name and stamp when written. */
const SHORT = 256

/** An entry as it was set in this process: its stamp's text with the tab after it, and its value's text. */
export type Fresh = [stamp: string, value: string]
/** An entry to write: as it was read (`stamp\tvalue`), or as it was set. */
export type Kept = string | Fresh

/** A line of a cache file to write: a section copied as its bytes (with its code), or a fresh one as its entries. */
export type Line = { name: string; bytes: Buffer; code: string } | { name: string; entries: Map<string, Kept> }

/** At least the length in bytes of a line (a UTF-16 unit takes at most three bytes), without counting them. */
function bound(line: Line): number {
  if ('bytes' in line) return line.bytes.length
  let n = line.name.length + line.entries.size // the tab, then a separator between entries
  for (const [k, e] of line.entries) n += k.length + 1 + (typeof e === 'string' ? e.length : e[0].length + e[1].length)
  return 3 * n
}

/**
 * Write the cache file `file`: `header`, the table of contents (a JSON list of [name, line start, entries start,
 * line end, code], offsets counted from the byte after the table's line, the code `signer`'s of the line's bytes),
 * then the lines. Temp file and rename, without fsync: a cache lost in a crash costs only speed, and a torn one fails
 * its header, its JSON or a code and is ignored. Dead writers' temp files in the folder are swept first.
 */
export function writeCache(sys: Proc, file: string, header: string, lines: readonly Line[], signer: LineSigner): void {
  const dir = path.dirname(file)
  const tmp = tempPathFor(sys, file)
  // Room for the table: every offset is at most the bound of the whole body, so printed at most that long.
  let most = 0
  for (const line of lines) most += bound(line) + 1
  const room = Buffer.byteLength(JSON.stringify(lines.map((l) => [l.name, most, most, most, CODE_ROOM])))
  try {
    mkdirNoLinks(dir)
    sweepTemps(sys, dir)
    const fd = fs.openSync(tmp, 'wx')
    try {
      const out = new Spool(fd, Buffer.byteLength(header) + 1 + room + 1)
      const base = out.at
      const toc: [string, number, number, number, string][] = []
      for (const line of lines) {
        const start = out.at - base
        if ('bytes' in line) {
          out.bytes(line.bytes)
          toc.push([line.name, start, start + line.bytes.indexOf(9) + 1, out.at - base, line.code])
        } else {
          // The line's bytes are signed as they are written (the spool hands each piece to the code).
          out.flush()
          const code = signer.start()
          out.tap = (b) => void code.update(b)
          out.text(`${line.name}\t`)
          const entries = out.at - base
          // Each part as it is: joining a long value to its name and stamp would copy it once more.
          let sep = ''
          for (const [k, e] of line.entries) {
            const [stamp, value] = typeof e === 'string' ? ['', e] : e
            if (value.length < SHORT) out.text(`${sep}${k}\t${stamp}${value}`)
            else {
              out.text(`${sep}${k}\t${stamp}`)
              out.text(value)
            }
            sep = RS
          }
          out.flush()
          out.tap = null
          toc.push([line.name, start, entries, out.at - base, code.digest('base64url')])
        }
        out.text('\n')
      }
      out.flush()
      const table = JSON.stringify(toc)
      const top = new Spool(fd)
      top.text(`${header}\n${table}${' '.repeat(room - Buffer.byteLength(table))}\n`)
      top.flush()
    } finally {
      fs.closeSync(fd)
    }
    fs.renameSync(tmp, file)
  } catch {
    fs.rmSync(tmp, { force: true })
  }
}

/**
 * Where the sections of a cache file lie: name → [start of its line, start of its JSON, end of its line, the line's
 * code under the clone's cache key (cachekey.ts)].
 */
export type Toc = Map<string, TocLine>
/** One section's place in its file: [start of its line, start of its JSON, end of its line, the line's code]. */
export type TocLine = readonly [number, number, number, string]

/** A line's code in a table of contents: an HMAC-SHA256, base64url. */
const CODE = /^[A-Za-z0-9_-]{43}$/

/**
 * The table of contents from a cache file's start (`head`: its first bytes, `size`: the file's length), or null
 * when the file is not one this release wrote (its first line is not `header`) or its table does not describe it; `more` when the table runs past
 * `head`. The table is the second line, a JSON list of [name, line start, JSON start, line end, code], offsets
 * counted from the byte after it; each range must lie inside the file, in order.
 */
export function tocOf(head: Buffer, size: number, header: string): Toc | null | 'more' {
  const first = head.indexOf(10)
  if (first === -1 || head.toString('latin1', 0, first) !== header) return null
  const second = head.indexOf(10, first + 1)
  if (second === -1) return head.length < size ? 'more' : null
  const base = second + 1
  let list: unknown
  try {
    list = JSON.parse(head.toString('utf8', first + 1, second))
  } catch {
    return null
  }
  if (!Array.isArray(list)) return null
  const toc: Toc = new Map()
  let last = base
  for (const e of list) {
    if (!Array.isArray(e) || e.length !== 5 || typeof e[0] !== 'string' || typeof e[4] !== 'string') return null
    const [name, a, b, c, code] = e as [string, unknown, unknown, unknown, string]
    if (![a, b, c].every((n) => Number.isSafeInteger(n)) || !CODE.test(code)) return null
    const [line, json, end] = [base + (a as number), base + (b as number), base + (c as number)]
    if (line < last || json <= line || end < json || end > size) return null
    toc.set(name, [line, json, end, code])
    last = end
  }
  return toc
}
