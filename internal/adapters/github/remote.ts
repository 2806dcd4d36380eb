// The repository a git remote points at, read from the repository's config
// file (no git binary needed; parsed by gitx's one config reader). Both URL families are understood: https/http/
// git/ssh URLs and the scp-like `git@host:owner/name.git`. Only owner/name and
// the host come out: a remote URL may embed credentials, so callers never
// print the URL itself.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { parseGitConfig } from '../git/config.js'

export interface RemoteRepo {
  host: string
  owner: string
  name: string
}

/** The `url` of `[remote "<remote>"]` in a git config text (the first, as `git fetch` uses), or null. */
export function remoteUrl(configText: string, remote = 'origin'): string | null {
  const url = parseGitConfig(configText).find((e) => e.section === `remote.${remote}` && e.key === 'url')?.value
  return typeof url === 'string' && url !== '' ? url : null
}

const SEGMENT = /^[A-Za-z0-9_.-]+$/

/** owner/name and host from a remote URL, or null when it does not look like a hosted repository. */
export function parseRemoteUrl(url: string): RemoteRepo | null {
  let host: string
  let repoPath: string
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/.exec(url)
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    let u: URL
    try {
      u = new URL(url)
    } catch {
      return null
    }
    if (!['https:', 'http:', 'ssh:', 'git:', 'git+ssh:', 'ssh+git:'].includes(u.protocol)) return null
    host = u.hostname
    repoPath = decodeURIComponent(u.pathname)
  } else if (scp) {
    host = scp[1] as string
    repoPath = scp[2] as string
  } else {
    return null
  }
  const parts = repoPath
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
    .split('/')
    .filter((p) => p !== '')
  if (parts.length < 2) return null
  const owner = parts[parts.length - 2] as string
  const name = parts[parts.length - 1] as string
  if (!SEGMENT.test(owner) || !SEGMENT.test(name) || name === '.' || name === '..') return null
  return { host: host.toLowerCase(), owner, name }
}

/** The `origin` remote of the repository whose common git directory is `commonDir`. */
export function readOrigin(commonDir: string): RemoteRepo | 'not-a-repository-url' | null {
  let text: string
  try {
    text = fs.readFileSync(path.join(commonDir, 'config'), 'utf8')
  } catch {
    return null
  }
  const url = remoteUrl(text)
  if (url === null) return null
  return parseRemoteUrl(url) ?? 'not-a-repository-url'
}

/** Hosts whose remotes name repositories of the API at `apiUrl`: github.com, and a GitHub Enterprise host. */
export function hostsFor(apiUrl: string): string[] {
  const hosts = new Set(['github.com'])
  try {
    const h = new URL(apiUrl).hostname.toLowerCase()
    if (h !== 'api.github.com') hosts.add(h.startsWith('api.') ? h.slice(4) : h)
  } catch {
    // An invalid API URL is reported where it is used.
  }
  return [...hosts]
}
