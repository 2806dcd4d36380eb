// Progress of a push on stderr, for people, through the kernel's progress (a bar
// redrawn in place on a terminal, a line at every tenth otherwise; nothing under
// --json or --quiet): a first line with the write pacing and the quota, each
// item with the failures so far and the quota left, and a line per retry wait.

import type { GitHubClient } from '../../adapters/github/api.js'
import { count } from '../../base/text.js'
import { type Session, waitText } from './connect.js'
import type { GithubContext } from './context.js'

export interface PushProgress {
  /** An item that had work to do is finished (failed or not). */
  item(failed: boolean): void
  /** Clear the bar (always call: the result and any error print after it). */
  end(): void
}

export function startProgress(ctx: GithubContext, session: Session, repo: string, total: number): PushProgress {
  if (total === 0) return { item() {}, end() {} }
  const client = session.client
  const bar = ctx.notes.progress(`push ${repo}`, total)
  bar.say(`push: ${count(total, 'issue')} to write on ${repo} (${pacing(client)}${quota(client, '; ')})…`)
  session.onWait((ms, why) => bar.say(`${why}: retrying in ${waitText(ms)}…`))
  let failed = 0
  return {
    item(f) {
      if (f) failed++
      bar.tick([failed === 0 ? '' : `${failed} failed`, quota(client, '')].filter((s) => s !== '').join(', '))
    },
    end() {
      session.onWait(null)
      bar.end()
    },
  }
}

function pacing(client: GitHubClient): string {
  const { writeMs, createMs } = client.pacing
  if (writeMs === 0) return 'writes unpaced'
  return `writes ${waitText(writeMs)} apart, new issues ${waitText(createMs)}`
}

function quota(client: GitHubClient, sep: string): string {
  const q = client.quota()
  return q === null ? '' : `${sep}quota ${q.remaining}/${q.limit}`
}
