// Progress of a push on stderr, for people: a bar redrawn in place on a
// terminal, plain lines otherwise (every 25 items, and each retry wait), each
// with the pacing and the quota GitHub reports. Nothing under --json or --quiet.

import type { Context } from '../../clikit/context.js'
import type { GitHubClient } from '../../github/client.js'
import { type Session, waitText } from './connect.js'

const LINE_EVERY = 25
const BAR = 24

export interface PushProgress {
  /** An item that had work to do is finished (failed or not). */
  item(failed: boolean): void
  /** Clear the bar (always call: the result and any error print after it). */
  end(): void
}

export function startProgress(ctx: Context, session: Session, repo: string, total: number): PushProgress {
  const quiet = { item() {}, end() {} }
  if (ctx.json || total === 0) return quiet
  const notes = ctx.notes
  const client = session.client
  let done = 0
  let failed = 0
  let waiting: string | null = null
  const failedText = () => (failed === 0 ? '' : `, ${failed} failed`)

  notes.note(`push: ${total} issue${total === 1 ? '' : 's'} to write on ${repo} (${pacing(client)}${quota(client)})…`)
  if (!notes.live) {
    return {
      item(f) {
        done++
        if (f) failed++
        if (done % LINE_EVERY === 0 && done < total) {
          notes.note(`push: ${done}/${total} done${failedText()}${quota(client, '; ')}`)
        }
      },
      end() {},
    }
  }
  const draw = () => {
    const filled = Math.round((done / total) * BAR)
    const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR - filled)}]`
    notes.status(
      `push ${bar} ${done}/${total}${failedText()}${quota(client, ' · ')}${waiting === null ? '' : ` · ${waiting}`}`,
    )
  }
  session.onWait((ms, why) => {
    waiting = `${why}: retrying in ${waitText(ms)}`
    draw()
  })
  draw()
  return {
    item(f) {
      done++
      if (f) failed++
      waiting = null
      draw()
    },
    end() {
      session.onWait(null)
      notes.status('')
    },
  }
}

function pacing(client: GitHubClient): string {
  const { writeMs, createMs } = client.pacing
  if (writeMs === 0) return 'writes unpaced'
  return `writes ${waitText(writeMs)} apart, new issues ${waitText(createMs)}`
}

function quota(client: GitHubClient, sep = '; '): string {
  const q = client.quota()
  return q === null ? '' : `${sep}quota ${q.remaining}/${q.limit}`
}
