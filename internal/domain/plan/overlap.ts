// Do two tasks' footprints overlap? A footprint is the globs a task declares it will touch (`touches:`) and the
// paths its branch has already changed. A path against a glob is picomatch's answer (dotfiles included: a claim on
// `src/**` covers `src/.env`); a glob against a glob is decided here, segment by segment, because no matcher
// answers "is there a path both match". The answer is sound — two globs that share a path are always reported —
// and conservative where a glob uses what the segment comparison does not model (extglobs, classes, ranges).
// Pure: no file, no clock.

import picomatch from 'picomatch/posix.js'
import { touchProblem } from '../../format/ids.js'

export interface Footprint {
  /** Globs (or plain paths, meaning that file or everything below that folder), relative to the repository root. */
  patterns: readonly string[]
  /** Files changed so far, relative to the repository root. */
  paths: readonly string[]
}

export interface Overlap {
  /** The entries of the first footprint that meet the second. */
  mine: string[]
  /** The entries of the second footprint they meet. */
  theirs: string[]
}

const OPTIONS = { dot: true } as const
const matchers = new Map<string, (p: string) => boolean>()

/** The glob as written, normalised: no leading `./`, a trailing `/` meaning the folder's contents. */
function normal(glob: string): string {
  let g = glob.trim()
  while (g.startsWith('./')) g = g.slice(2)
  if (g.endsWith('/')) g = `${g}**`
  return g
}

/** What a touches entry stands for: a glob as it is; a plain path, that file or folder and everything below it. */
function variants(entry: string): string[] {
  const g = normal(entry)
  return picomatch.scan(g).isGlob ? [g] : [g, `${g}/**`]
}

function matcher(glob: string): (p: string) => boolean {
  let m = matchers.get(glob)
  if (m === undefined) {
    try {
      m = picomatch(glob, OPTIONS)
    } catch {
      const literal = glob
      m = (p: string) => p === literal
    }
    matchers.set(glob, m)
  }
  return m
}

/** Does a path fall under a touches entry? */
export function covers(entry: string, path: string): boolean {
  return variants(entry).some((g) => matcher(g)(path))
}

/** Is the entry something dacli can match: a relative POSIX path or glob, inside the repository? Null when it is. */
export function globProblem(entry: string): string | null {
  const problem = touchProblem(entry)
  if (problem !== null) return problem
  try {
    picomatch.makeRe(normal(entry), OPTIONS)
  } catch {
    return 'is not a glob picomatch can read'
  }
  return null
}

// ---- glob against glob ----

type Elem = { star: true } | { star: false; ch: string | null }
type Segment = { globstar: true } | { globstar: false; elems: Elem[] }

const MAX_EXPANSIONS = 64

/** `{a,b}` alternatives expanded (nested too); null when there are too many or a range is used. */
function expandBraces(glob: string): string[] | null {
  let out = [glob]
  for (let round = 0; round < 16; round++) {
    const next: string[] = []
    let changed = false
    for (const g of out) {
      const open = findBrace(g)
      if (open === null) {
        next.push(g)
        continue
      }
      changed = true
      const [start, end, parts] = open
      if (parts.length === 1) {
        // `{1..3}` or `{x}`: not a list of alternatives; any text stands in for it (conservative).
        if (parts[0]?.includes('..')) next.push(`${g.slice(0, start)}*${g.slice(end + 1)}`)
        else next.push(`${g.slice(0, start)}${parts[0] ?? ''}${g.slice(end + 1)}`)
        continue
      }
      for (const p of parts) next.push(`${g.slice(0, start)}${p}${g.slice(end + 1)}`)
    }
    out = next
    if (out.length > MAX_EXPANSIONS) return null
    if (!changed) return out
  }
  return null
}

/** The first innermost-balanced `{…}` group: its start, end and top-level alternatives. */
function findBrace(g: string): [number, number, string[]] | null {
  for (let i = 0; i < g.length; i++) {
    if (g[i] === '\\') {
      i++
      continue
    }
    if (g[i] !== '{') continue
    let depth = 0
    const parts: string[] = []
    let from = i + 1
    for (let j = i; j < g.length; j++) {
      const c = g[j]
      if (c === '\\') {
        j++
        continue
      }
      if (c === '{') depth++
      else if (c === '}') {
        depth--
        if (depth === 0) {
          parts.push(g.slice(from, j))
          return [i, j, parts]
        }
      } else if (c === ',' && depth === 1) {
        parts.push(g.slice(from, j))
        from = j + 1
      }
    }
    return null
  }
  return null
}

/** One path segment of a glob as elements: `*`, one character (null: any), or a literal character. */
function segmentOf(text: string): Segment {
  if (text === '**') return { globstar: true }
  // An extglob (`@(…)`, `!(…)`, `+(…)`, `*(…)`, `?(…)`) is taken as any number of segments, none included
  // (conservative): picomatch lets a trailing `!(a)` match an empty segment, so `a/**/!(a)` matches `a` itself.
  if (/[@!+*?]\(/.test(text)) return { globstar: true }
  const elems: Elem[] = []
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string
    if (c === '\\' && i + 1 < text.length) {
      elems.push({ star: false, ch: text[++i] as string })
    } else if (c === '*') {
      if (elems[elems.length - 1]?.star !== true) elems.push({ star: true })
    } else if (c === '?') {
      elems.push({ star: false, ch: null })
    } else if (c === '[') {
      const close = text.indexOf(']', i + 2)
      if (close === -1) elems.push({ star: false, ch: '[' })
      else {
        // A class is one character of some set: taken as any character (conservative).
        elems.push({ star: false, ch: null })
        i = close
      }
    } else {
      elems.push({ star: false, ch: c })
    }
  }
  return { globstar: false, elems }
}

function segmentsOf(glob: string): Segment[] {
  return glob.split('/').map(segmentOf)
}

/**
 * Can two sequences match one common sequence? A wildcard element (`*` in a segment, `**` in a path) stands for
 * any run of elements, none included; two other elements meet when `meet` says so. Memoised over positions.
 */
function sequencesMeet<T>(a: readonly T[], b: readonly T[], wild: (x: T) => boolean, meet: (x: T, y: T) => boolean) {
  const memo = new Map<number, boolean>()
  const go = (i: number, j: number): boolean => {
    const key = i * (b.length + 1) + j
    const hit = memo.get(key)
    if (hit !== undefined) return hit
    let r: boolean
    const x = a[i]
    const y = b[j]
    if (x === undefined && y === undefined) r = true
    else if (x !== undefined && wild(x)) r = go(i + 1, j) || (y !== undefined && go(i, j + 1))
    else if (y !== undefined && wild(y)) r = go(i, j + 1) || (x !== undefined && go(i + 1, j))
    else if (x === undefined || y === undefined) r = false
    else r = meet(x, y) && go(i + 1, j + 1)
    memo.set(key, r)
    return r
  }
  return go(0, 0)
}

/** Can two segments match one common name? */
const segmentsMeet = (a: Elem[], b: Elem[]): boolean =>
  sequencesMeet(
    a,
    b,
    (e) => e.star,
    (x, y) => !x.star && !y.star && (x.ch === null || y.ch === null || x.ch === y.ch),
  )

/** Can two globs (without braces) match one common path? */
const globsMeet = (a: Segment[], b: Segment[]): boolean =>
  sequencesMeet(
    a,
    b,
    (s) => s.globstar,
    (x, y) => !x.globstar && !y.globstar && segmentsMeet(x.elems, y.elems),
  )

/** The static folder a glob starts from (`src/auth` of `src/auth/**`). */
const baseOf = (glob: string) => picomatch.scan(glob).base

const nested = (a: string, b: string) =>
  a === '' || b === '' || a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`)

/** Can two globs match one common path? Sound: never false when they can. */
export function globsOverlap(a: string, b: string): boolean {
  const xs = expandBraces(a)
  const ys = expandBraces(b)
  // Too many alternatives to compare: their folders decide (conservative).
  if (xs === null || ys === null) return nested(baseOf(a), baseOf(b))
  return xs.some((x) => ys.some((y) => globsMeet(segmentsOf(x), segmentsOf(y))))
}

/** Do two touches entries (globs or plain paths) overlap? */
export function entriesOverlap(a: string, b: string): boolean {
  return variants(a).some((x) => variants(b).some((y) => globsOverlap(x, y)))
}

/** Where two footprints meet, or null when they do not. */
export function overlapOf(a: Footprint, b: Footprint): Overlap | null {
  const mine = new Set<string>()
  const theirs = new Set<string>()
  for (const x of a.patterns) {
    for (const y of b.patterns)
      if (entriesOverlap(x, y)) {
        mine.add(x)
        theirs.add(y)
      }
    for (const p of b.paths)
      if (covers(x, p)) {
        mine.add(x)
        theirs.add(p)
      }
  }
  if (a.paths.length > 0) {
    const bPaths = new Set(b.paths)
    for (const p of a.paths) {
      for (const y of b.patterns)
        if (covers(y, p)) {
          mine.add(p)
          theirs.add(y)
        }
      if (bPaths.has(p)) {
        mine.add(p)
        theirs.add(p)
      }
    }
  }
  return mine.size === 0 ? null : { mine: [...mine], theirs: [...theirs] }
}

export const emptyFootprint = (f: Footprint) => f.patterns.length === 0 && f.paths.length === 0
