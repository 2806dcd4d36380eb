// Which repository a project projects to (its link, else the `origin` remote), the disclosure gate, and the
// lock that serializes writes through one repository.

import { remoteUrl } from '../../adapters/git/config.js'
import type { RepoInfo } from '../../adapters/github/client.js'
import { hostsFor, parseRemoteUrl } from '../../adapters/github/remote.js'
import { cmd } from '../../base/commands.js'
import { RefusedError, UsageError } from '../../base/errors.js'
import { count } from '../../base/text.js'
import { REPO_NAME } from '../../format/project.js'
import { qualifiedRef } from '../../format/refs.js'
import type { Store } from '../../store/store.js'
import { listTombstones } from '../../store/tombstones.js'
import { sameRepo, type TaskFacts } from './adoptplan.js'

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

/** A task (or tombstone) whose `github:` block maps an issue of a repository, with its project and reference. */
export interface MappingTask extends TaskFacts {
  project: string
  ref: string
}

/**
 * Every task and tombstone of the projects linked to `repo` (`project`, linked to it, and any other) whose
 * `github:` block maps one of its issues (a block without a repository counts as its project's link). Another
 * project's tasks are read only when that project is linked to the same repository.
 */
export async function tasksMapping(store: Store, project: string, repo: string): Promise<MappingTask[]> {
  const out: MappingTask[] = []
  for (const slug of store.projectSlugs()) {
    if (slug !== project) {
      const link = await store.readProject(slug).then(
        (p) => p.github?.repo ?? null,
        () => null, // an unreadable project file is reported where it is read; it links nothing here
      )
      if (!sameRepo(link, repo)) continue
    }
    const live = (await store.listTasks(slug)).tasks
    const gone = (await listTombstones(store, slug)).tombstones.map((t) => ({ ...t.task, status: 'removed' }))
    for (const t of [...live, ...gone]) {
      const g = t.github
      if (g === null || g.issue === null || (g.repo !== null && !sameRepo(g.repo, repo))) continue
      out.push({
        id: t.id,
        seq: t.seq,
        title: t.title,
        status: t.status,
        github: g,
        project: slug,
        ref: qualifiedRef(t),
      })
    }
  }
  return out
}

/**
 * An issue one `github:` block after another maps (a block copied by hand into another task, two projects
 * linked to one repository): a push would update it for one task and create a duplicate for the other, dropping
 * the right mapping. Refused (3) before anything is read from or written to GitHub, naming every such issue.
 */
export function refuseContestedIssues(tasks: readonly MappingTask[], repo: string): void {
  const byIssue = new Map<number, MappingTask[]>()
  for (const t of tasks) {
    const n = t.github?.issue as number
    const list = byIssue.get(n) ?? []
    if (!list.some((x) => x.id === t.id)) list.push(t)
    byIssue.set(n, list)
  }
  const contested = [...byIssue].filter(([, list]) => list.length > 1).sort((a, b) => a[0] - b[0])
  if (contested.length === 0) return
  const [first, firstTasks] = contested[0] as [number, MappingTask[]]
  throw new RefusedError(
    'contested-issue',
    `${count(contested.length, 'issue')} of ${repo} mapped by more than one task: ${contested
      .slice(0, 3)
      .map(([n, list]) => `#${n} by ${list.map((t) => t.ref).join(' and ')}`)
      .join('; ')} — a push would update it for one and create a duplicate for the other`,
    {
      details: {
        repository: repo,
        contested: contested.map(([n, list]) => ({ issue: n, tasks: list.map((t) => t.ref) })),
      },
      next: [
        `keep #${first} in one task's github: block (edit ${firstTasks.map((t) => t.ref).join(' or ')} by hand), then push again`,
        cmd(`task show ${(firstTasks[0] as MappingTask).ref}`),
      ],
    },
  )
}
