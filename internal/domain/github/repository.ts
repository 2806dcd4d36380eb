// Which repository a project projects to (its link, else the `origin` remote), the disclosure gate, and the
// lock that serializes writes through one repository.

import { remoteUrl } from '../../adapters/git/config.js'
import type { RepoInfo } from '../../adapters/github/client.js'
import { hostsFor, parseRemoteUrl } from '../../adapters/github/remote.js'
import { cmd } from '../../base/commands.js'
import { RefusedError, UsageError } from '../../base/errors.js'
import { REPO_NAME } from '../../format/project.js'
import type { Store } from '../../store/store.js'
import { sameRepo } from './adoptplan.js'

/** `owner/name` as GitHub allows it (checked where a project file is read: format/project.ts). */
export { REPO_NAME, sameRepo }

export interface Linked {
  project: string
  repo: string
  /** The repository the project's owner consented to make public, or null. */
  publicConfirmed: string | null
}

/** The project's linked repository; a project that is not linked is a usage error naming `github link`. */
export async function linkedRepo(store: Store, project: string): Promise<Linked> {
  const p = await store.readProject(project)
  const repo = p.github?.repo ?? null
  if (repo === null || !REPO_NAME.test(repo)) {
    throw new UsageError(`project "${project}" is not linked to a GitHub repository`, {
      details: { project },
      next: [cmd(`github link ${project}`), cmd(`github link ${project} --repo OWNER/NAME`)],
    })
  }
  return { project, repo, publicConfirmed: p.github?.public_confirmed ?? null }
}

export type Origin = { repo: string } | { problem: string }

/** The repository the `origin` remote points at (GitHub hosts only). */
export function originRepo(store: Store, apiUrl: string): Origin {
  if (store.git === null) return { problem: 'the workspace is not in a git repository' }
  const url = remoteUrl(store.git.commonDir, store.env)
  if (url === null) return { problem: 'the git repository has no `origin` remote' }
  const o = parseRemoteUrl(url)
  if (o === null) return { problem: 'the `origin` remote does not name a hosted repository' }
  if (!hostsFor(apiUrl).includes(o.host)) {
    return { problem: `the \`origin\` remote points at ${o.host}, which is not a GitHub host for ${apiUrl}` }
  }
  return { repo: `${o.owner}/${o.name}` }
}

/**
 * The disclosure gate: a public repository makes every mirrored artifact public, so a push
 * needs the consent recorded for exactly this repository. Checked live, every time.
 */
export function disclosureGate(linked: Linked, live: RepoInfo, command: string): void {
  if (live.visibility !== 'public' || sameRepo(linked.publicConfirmed, live.full_name)) return
  throw new RefusedError(
    'disclosure',
    `${live.full_name} is public and project "${linked.project}" has not recorded consent to publish to it`,
    {
      details: {
        repository: live.full_name,
        visibility: live.visibility,
        public_confirmed: linked.publicConfirmed,
        command,
      },
      next: [
        cmd(
          `github link ${linked.project} --repo ${live.full_name} --allow-public   (records the consent in the project file)`,
        ),
        'or link the project to a private repository',
      ],
    },
  )
}

/** The lock that serializes writes through one repository (`.dacli/locks/github-<owner>--<name>.lock`). */
export function lockScope(repo: string): string {
  const [owner, name] = repo.toLowerCase().split('/') as [string, string]
  const safe = (s: string) => s.replace(/[^a-z0-9._-]/g, '_').replace(/^\.+/, '_')
  return `github-${safe(owner)}--${safe(name)}`
}
