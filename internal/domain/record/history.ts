// Which commits touched one object, found by its identity rather than by path: a
// move or a rename is still the same object. The caller says which files to
// follow and how to read an object's identity from a file's bytes (dacli's task
// layout and frontmatter are the store's business, not git's). What each commit
// changed is an immutable fact about that commit, so it is cached under
// `.dacli/cache/history.json` (keyed by commit id; safe to delete) and a repeated
// `task log` reads only the commits recorded since. The cache is bounded: it keeps
// the commits and blobs used most recently, up to a size (what falls out is only
// recomputed from git when asked again).

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { CommitInfo, Git } from '../../adapters/git/index.js'
import { seal, unseal } from '../../store/cachekey.js'
import { linkOnPath, mkdirNoLinks, readText } from '../../store/fsio.js'

/** A changed task file: [path, blob after (null: deleted), blob before (null: added)]. */
type Change = [string, string | null, string | null]

interface CachedCommit {
  /** Parents. */
  p: string[]
  /** Per parent (one list for a root commit): the task files that differ. */
  d: Change[][]
  /** Parents whose tree holds no workspace: the walk stops there (the workspace began in this commit). */
  z?: string[]
  /** Author time, author "name <email>", agent and command trailers, subject — only when `d` has changes. */
  t?: number
  a?: string
  g?: string | null
  c?: string | null
  m?: string
}

interface HistoryCache {
  v: number
  scope: string
  commits: Record<string, CachedCommit>
  /** Blob id → the task id in its frontmatter ('' when none). */
  ids: Record<string, string>
}

const VERSION = 2
/** The cache file's name under `cache/`, what its seal is bound to. */
export const HISTORY_CACHE = 'history.json'

/** How many commits' facts and blobs' identities the cache keeps (the least recently used go first). */
export interface HistoryBounds {
  commits: number
  blobs: number
}

const BOUNDS: HistoryBounds = { commits: 20_000, blobs: 50_000 }

export interface Touch {
  commit: string
  at: number
  author: string
  agent: string | null
  command: string | null
  message: string
  path: string
  change: 'added' | 'modified' | 'moved' | 'deleted'
}

/** What History follows: which files, and the identity in a file's text (null: none). */
export interface Followed {
  isFollowed(path: string): boolean
  identityOf(text: string): string | null
}

/**
 * The touches in history order: each after every walked commit it descends from (so commits of the same second,
 * and the two sides of a merge, come out as they were made), first parents before the merged side.
 */
function ancestorsFirst(touches: Touch[], parents: ReadonlyMap<string, readonly string[]>, tip: string): Touch[] {
  const rank = new Map<string, number>()
  const entered = new Set<string>([tip])
  const stack: { oid: string; next: number }[] = [{ oid: tip, next: 0 }]
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { oid: string; next: number }
    const ps = parents.get(top.oid) ?? []
    const p = ps[top.next++]
    if (p !== undefined) {
      if (parents.has(p) && !entered.has(p)) {
        entered.add(p)
        stack.push({ oid: p, next: 0 })
      }
      continue
    }
    stack.pop()
    rank.set(top.oid, rank.size)
  }
  return touches.sort((a, b) => (rank.get(a.commit) ?? 0) - (rank.get(b.commit) ?? 0))
}

export class History {
  private cache: HistoryCache
  private dirty = false
  /** Entries used by this process, in the order of their first use (they become the most recent). */
  private readonly usedCommits = new Set<string>()
  private readonly usedBlobs = new Set<string>()

  constructor(
    private readonly git: Git,
    /** The tree path holding the projects (`.dacli/projects`). */
    private readonly scope: string,
    /** The cache file (`.dacli/cache/history.json`) and the clone's cache key it is sealed under; null: none. */
    private readonly kept: { file: string; key: Buffer } | null,
    private readonly followed: Followed,
    private readonly bounds: HistoryBounds = BOUNDS,
  ) {
    this.cache = { v: VERSION, scope, commits: {}, ids: {} }
    if (kept === null) return
    try {
      if (linkOnPath(kept.file) !== null) return // never read a cache through a link under .dacli/
      // A FIFO here is refused, never waited on; a file this clone's dacli did not seal is no cache (a planted
      // entry would show a commit as touching what it did not).
      const body = unseal(kept.key, HISTORY_CACHE, readText(kept.file))
      const c = (body === null ? null : JSON.parse(body)) as HistoryCache | null
      if (c !== null && c.v === VERSION && c.scope === scope && c.commits && c.ids) this.cache = c
    } catch {
      // no cache yet, or unreadable: facts are recomputed from git
    }
  }

  private async facts(oid: string): Promise<CachedCommit> {
    this.usedCommits.add(oid)
    const hit = this.cache.commits[oid]
    if (hit !== undefined) return hit
    const c: CommitInfo = await this.git.readCommit(oid)
    const d: Change[][] = []
    const z: string[] = []
    for (const parent of c.parents.length === 0 ? [null] : c.parents) {
      const from = parent === null ? null : (await this.git.readCommit(parent)).tree
      if (parent !== null && (await this.git.subtree(from, this.scope)) === null) z.push(parent)
      const changes = await this.git.diff(from, c.tree, this.scope)
      d.push(changes.filter((x) => this.followed.isFollowed(x.path)).map((x) => [x.path, x.oid, x.old_oid]))
    }
    const f: CachedCommit = { p: c.parents, d }
    if (z.length > 0) f.z = z
    if (d.some((x) => x.length > 0)) {
      f.t = c.author.timestamp
      f.a = `${c.author.name} <${c.author.email}>`
      f.g = c.agent
      f.c = c.command
      f.m = c.message.split('\n', 1)[0]?.trim() ?? ''
    }
    this.cache.commits[oid] = f
    this.dirty = true
    return f
  }

  private async idOf(blob: string | null): Promise<string> {
    if (blob === null) return ''
    this.usedBlobs.add(blob)
    const hit = this.cache.ids[blob]
    if (hit !== undefined) return hit
    const text = (await this.git.readBlob(blob)).subarray(0, 4096).toString('utf8')
    const id = this.followed.identityOf(text) ?? ''
    this.cache.ids[blob] = id
    this.dirty = true
    return id
  }

  /** How one parent→commit difference touched the task, or null. */
  private async touchOf(changes: Change[], id: string): Promise<Pick<Touch, 'path' | 'change'> | null> {
    let after: string | null = null
    let before: string | null = null
    for (const [p, now, was] of changes) {
      if (after === null && (await this.idOf(now)) === id) after = p
      if (before === null && (await this.idOf(was)) === id) before = p
    }
    if (after === null && before === null) return null
    if (after !== null && before !== null) return { path: after, change: after === before ? 'modified' : 'moved' }
    return after !== null ? { path: after, change: 'added' } : { path: before as string, change: 'deleted' }
  }

  /**
   * Commits reachable from `tip` that changed the task `id` (a merge counts only
   * when it differs from every parent, as in `git log -- <path>`). At most
   * `max` commits are examined.
   */
  async touches(tip: string, id: string, max = Number.POSITIVE_INFINITY) {
    const out: Touch[] = []
    const seen = new Set<string>([tip])
    const stack = [tip]
    const parents = new Map<string, readonly string[]>()
    let scanned = 0
    while (stack.length > 0) {
      if (scanned >= max) return { touches: ancestorsFirst(out, parents, tip), scanned, truncated: true }
      const oid = stack.pop() as string
      scanned++
      const f = await this.facts(oid)
      parents.set(oid, f.p)
      for (const p of f.p) {
        // Below the commit that created the workspace there is nothing of it to find.
        if (!seen.has(p) && !f.z?.includes(p)) {
          seen.add(p)
          stack.push(p)
        }
      }
      if (!f.d.some((x) => x.length > 0)) continue
      const each = []
      for (const changes of f.d) each.push(await this.touchOf(changes, id))
      const first = each[0]
      if (first === null || first === undefined || each.some((t) => t === null)) continue
      out.push({
        commit: oid,
        at: f.t ?? 0,
        author: f.a ?? '',
        agent: f.g ?? null,
        command: f.c ?? null,
        message: f.m ?? '',
        ...first,
      })
    }
    return { touches: ancestorsFirst(out, parents, tip), scanned, truncated: false }
  }

  /**
   * Persist what was learnt, within the bounds (temp file and rename; a lost cache costs only speed). An
   * oversized cache (written before the bounds, or with larger ones) is trimmed at the next save.
   */
  save(): void {
    if (this.kept === null) return
    const { file, key } = this.kept
    const commits = Object.keys(this.cache.commits).length
    const blobs = Object.keys(this.cache.ids).length
    if (!this.dirty && commits <= this.bounds.commits && blobs <= this.bounds.blobs) return
    try {
      mkdirNoLinks(path.dirname(file))
      const tmp = `${file}.${this.git.system.pid}.tmp`
      const kept: HistoryCache = {
        v: VERSION,
        scope: this.cache.scope,
        commits: recent(this.cache.commits, this.usedCommits, this.bounds.commits),
        ids: recent(this.cache.ids, this.usedBlobs, this.bounds.blobs),
      }
      fs.writeFileSync(tmp, seal(key, HISTORY_CACHE, JSON.stringify(kept)))
      fs.renameSync(tmp, file)
    } catch {
      // read-only checkout or full disk: the next run recomputes
    }
  }
}

/** The `max` most recently used entries: those used now count as newest; the rest keep their stored order. */
function recent<T>(all: Record<string, T>, used: ReadonlySet<string>, max: number): Record<string, T> {
  const order = Object.keys(all).filter((k) => !used.has(k))
  for (const k of used) if (Object.hasOwn(all, k)) order.push(k)
  const out: Record<string, T> = {}
  for (const k of order.slice(Math.max(0, order.length - max))) out[k] = all[k] as T
  return out
}
