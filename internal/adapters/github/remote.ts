// The GitHub repository a git remote's URL names (the URL itself comes from the git adapter's config
// reader). Both URL families are understood: https/http/git/ssh URLs and the scp-like `git@host:owner/name.git`. Only owner/name and
// the host come out: a remote URL may embed credentials, so callers never
// print the URL itself.

export interface RemoteRepo {
  host: string
  owner: string
  name: string
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
