// What `github pull`, `push` and `sync` last read of a repository's issues, so the next run asks GitHub only for
// the issues changed since (GitHub's `since`): `.dacli/cache/github/<owner>/<name>.json` (FORMAT.md, "The cache").
// It holds the issues as the client returned them (the token already masked) and the mark to list from next
// time (GitHub's clock when that listing began, less a minute). A run lists from the mark, puts what changed
// over what it held, and writes the result with the new mark; with nothing changed that is one request. Like every
// cache it is never trusted without checking: a file that is not exactly this shape, of another release or of
// another repository is a miss (every issue is listed), and deleting it changes nothing but speed. An issue
// deleted or transferred on GitHub is not reported by `since` (GitHub lists no tombstones): it stays held until a
// full listing (`--full`, or a cache that misses) replaces the held issues whole. Left held, such an issue is at
// worst planned as it last was — adopted again as a task, or its task's issue updated in vain (GitHub then answers
// 404/410, which push reports) — and a person runs `--full` when an issue is known to have gone.

import * as path from 'node:path'
import type { GitHubClient } from '../../adapters/github/api.js'
import type { Issue } from '../../adapters/github/shapes.js'
import type { Proc } from '../../base/system.js'
import { seal, unseal } from '../../store/cachekey.js'
import { cachePath } from '../../store/filecache.js'
import { atomicWrite, linkOnPath, readText } from '../../store/fsio.js'

declare const __DACLI_VERSION__: string

const FORMAT = 2
const RELEASE = typeof __DACLI_VERSION__ === 'string' ? __DACLI_VERSION__ : 'dev'

/** The cache file of `repo` (`owner/name` as GitHub spells them), or null for a name that is not one. */
export function issueCacheFile(dir: string, repo: string): string | null {
  const m = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9_.-]{1,100})$/.exec(repo)
  if (m === null || (m[2] as string).startsWith('.')) return null
  return cachePath(dir, 'github', (m[1] as string).toLowerCase(), `${(m[2] as string).toLowerCase()}.json`)
}

interface Held {
  mark: string
  issues: Issue[]
}

const isIssue = (v: unknown): v is Issue => {
  if (v === null || typeof v !== 'object') return false
  const i = v as Record<string, unknown>
  return (
    Number.isSafeInteger(i.number) &&
    (i.number as number) > 0 &&
    typeof i.title === 'string' &&
    typeof i.body === 'string' &&
    (i.state === 'open' || i.state === 'closed') &&
    Array.isArray(i.labels) &&
    i.labels.every((l) => typeof l === 'string') &&
    (i.author === null || typeof i.author === 'string') &&
    (i.milestone === null || typeof i.milestone === 'string')
  )
}

/** The cache file's name under `cache/`, what its seal is bound to. */
const nameOf = (dir: string, file: string) => path.relative(cachePath(dir), file).split(path.sep).join('/')

/**
 * What the cache holds for `repo`, or null (none, unreadable, not sealed under the clone's cache key, another release
 * or repository, not this shape).
 */
function readHeld(key: Buffer, dir: string, file: string, repo: string): Held | null {
  try {
    if (linkOnPath(file) !== null) return null
    const body = unseal(key, nameOf(dir, file), readText(file))
    if (body === null) return null // not written by this clone's dacli: never taken for what GitHub said
    const v = JSON.parse(body) as Record<string, unknown>
    if (v.format !== FORMAT || v.release !== RELEASE || v.repo !== repo) return null
    if (typeof v.mark !== 'string' || !Number.isFinite(Date.parse(v.mark))) return null
    if (!Array.isArray(v.issues) || !v.issues.every(isIssue)) return null
    return { mark: v.mark, issues: v.issues }
  } catch {
    return null
  }
}

/**
 * Every issue of `repo`: from the cache and what changed since its mark when it holds the repository, else every
 * issue listed; the cache is then written with the new mark (a write that fails only costs the next run's speed).
 */
export async function issuesOf(
  client: Pick<GitHubClient, 'listIssuesSince'>,
  sys: Proc,
  /** The `.dacli` folder, and the clone's cache key (store/cachekey.ts; null: no cache is read or written). */
  where: { dir: string; key: Buffer | null },
  repo: string,
  onPage?: (fetched: number) => void,
  opts: { full?: boolean } = {},
): Promise<Issue[]> {
  const { dir, key } = where
  const file = key === null ? null : issueCacheFile(dir, repo)
  const held = file === null || key === null || opts.full === true ? null : readHeld(key, dir, file, repo)
  const { issues: changed, mark } = await client.listIssuesSince(repo, held?.mark ?? null, onPage)
  let issues = changed
  if (held !== null) {
    const byNumber = new Map(held.issues.map((i) => [i.number, i]))
    for (const i of changed) byNumber.set(i.number, i)
    issues = [...byNumber.values()].sort((a, b) => a.number - b.number)
  }
  if (file !== null && key !== null) {
    try {
      if (linkOnPath(path.dirname(file)) === null) {
        const body = JSON.stringify({ format: FORMAT, release: RELEASE, repo, mark, issues })
        atomicWrite(sys, file, seal(key, nameOf(dir, file), body))
      }
    } catch {
      // an unwritable cache only costs speed
    }
  }
  return issues
}
