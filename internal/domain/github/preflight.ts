// Everything pull, push and sync do before they touch anything, in order: the
// local checks (project, link, refs; the command has checked its flags), then the
// token and a session, then the live repository through the disclosure gate; and
// the repository lock their real runs hold.

import type { Issue, RepoInfo } from '../../adapters/github/client.js'
import { FailureError } from '../../base/errors.js'
import type { Store } from '../../store/store.js'
import { WORKSPACE_ID } from '../../store/workspace.js'
import { connect, progress, type Session } from './connect.js'
import type { GithubContext } from './context.js'
import { issuesOf } from './issuecache.js'
import { type Window, windowTasks } from './pushwindow.js'
import {
  disclosureGate,
  type Linked,
  linkedRepo,
  lockScope,
  refuseContestedIssues,
  tasksMapping,
} from './repository.js'

export interface Prepared {
  store: Store
  linked: Linked
  session: Session
  say: (m: string) => void
  warn: (m: string) => void
  /** List every issue again (`--full`), not only what changed since the kept mark. */
  full: boolean
}

/** Local preconditions, then a session. `local` runs after the link is known and before any API call. */
export async function prepare(
  ctx: GithubContext,
  project: string,
  local?: (store: Store, linked: Linked) => Promise<void>,
  opts: { full?: boolean } = {},
): Promise<Prepared> {
  const store = await ctx.store()
  const linked = await linkedRepo(store, project)
  await local?.(store, linked)
  const session = await connect(ctx, { requireToken: true })
  // Under --json stderr stays clean for the error envelope; what a warning says is in the document too.
  return {
    store,
    linked,
    session,
    say: progress(ctx),
    warn: ctx.json ? () => {} : (m) => ctx.notes.warn(m),
    full: opts.full === true,
  }
}

export interface Outbound {
  project: string
  /** The tasks in the window when the command started; `reload` reads them again (under the repository lock). */
  tasks: Window
  reload: () => Promise<Window>
  p: Prepared
  repo: string
  wsId: string
}

/** What push and sync start from: the tasks in the window (`o`: named refs, --since), a session, and the gated live repository. */
export async function openOutbound(
  ctx: GithubContext,
  project: string,
  o: { refs: readonly string[]; sinceMs: number | null; full?: boolean },
  command: 'github push' | 'github sync',
): Promise<Outbound> {
  const load = (store: Store) => windowTasks(store, project, o.refs, o.sinceMs, ctx.now(), { removed: true })
  let tasks: Window = { tasks: [], skipped: [] }
  const p = await prepare(
    ctx,
    project,
    async (store, linked) => {
      tasks = await load(store)
      refuseContestedIssues(await tasksMapping(store, project, linked.repo), linked.repo)
    },
    { full: o.full === true },
  )
  const live = await gate(p, command)
  return { project, tasks, reload: () => load(p.store), p, repo: live.full_name, wsId: workspaceId(p.store) }
}

/** The live repository, checked against the recorded consent (refused, exit 3, when public without it). */
async function gate(p: Prepared, command: string): Promise<RepoInfo> {
  const live = await p.session.client.repository(p.linked.repo)
  disclosureGate(p.linked, live, command)
  return live
}

/**
 * Every issue of the repository: what the cache held and what changed on GitHub since (issuecache.ts); with
 * `full`, every issue listed again (what was deleted or transferred since drops out of the cache).
 */
export async function fetchIssues(p: Prepared, repo: string): Promise<Issue[]> {
  return issuesOf(
    p.session.client,
    p.store.system,
    { dir: p.store.dir, key: p.store.cacheTrust().key() },
    repo,
    (n) => {
      if (n > 100) p.say(`fetched ${n} issues and pull requests from ${repo}…`)
    },
    { full: p.full },
  )
}

/** Run `fn` holding the repository's lock (real runs only; a dry run takes none). */
export function withRepoLock<T>(p: Prepared, repo: string, fn: () => Promise<T>): Promise<T> {
  return p.store.withLock(lockScope(repo), fn)
}

/** The workspace id that goes into issue markers (never empty: an empty id would make every marker unreadable). */
function workspaceId(store: Store): string {
  const id = store.config.id
  if (!WORKSPACE_ID.test(id)) {
    throw new FailureError(
      'the workspace has no usable id in .dacli/config.yml, so pushed issues could not be found again',
      {
        details: { id },
        next: ['restore the `id:` line of .dacli/config.yml from git history'],
      },
    )
  }
  return id
}
