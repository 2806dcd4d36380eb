// Human output of the push preview and the push result (never parsed: the --json documents are the contract).

import { cmd } from '../../base/commands.js'
import { FailureError } from '../../base/errors.js'
import { count } from '../../base/text.js'
import type { Out } from '../../clikit/io.js'
import type { PushItemT, PushPreviewDocT, PushResultDocT, PushResultItemT } from './json.js'
import { LIST_MAX } from './renderpull.js'

const issueOf = (i: PushItemT) => (i.issue_number === null ? 'a new issue' : `#${i.issue_number}`)
const changesOf = (i: PushItemT) => (i.changes.length > 0 ? ` (${i.changes.join(', ')})` : '')

function warnings(out: Out, d: PushPreviewDocT | PushResultDocT): void {
  for (const dup of d.duplicate_markers) {
    const all = [dup.kept, ...dup.others].map((n) => `#${n}`).join(', ')
    out.line(out.style('yellow', `  issues ${all} carry the marker of ${dup.task_id}; #${dup.kept} is used`))
  }
  for (const s of d.skipped) out.line(out.style('yellow', `  not pushed: ${s.path} (${s.reason}; see dacli doctor)`))
}

/** `more`: the command for the page after `next_cursor` (sync, whose cursor pages both ways, has none). */
export function renderPushPreview(out: Out, d: PushPreviewDocT, more?: (cursor: number) => string): void {
  const busy = d.items.filter((i) => i.action !== 'unchanged' || i.adopted)
  for (const i of busy.slice(0, LIST_MAX)) {
    const what = { create: 'create', update: 'update', close: 'close', unchanged: 'keep' }[i.action]
    const adopt = i.adopted ? ' [adopted by marker]' : ''
    out.line(`  would ${what} ${issueOf(i)}${changesOf(i)}${adopt}  ${i.ref ?? '(new task)'}  ${i.title}`)
  }
  if (busy.length > LIST_MAX) out.line(out.style('dim', `  … and ${busy.length - LIST_MAX} more`))
  warnings(out, d)
  const c = d.counts
  out.line(
    `push preview: ${c.create} create, ${c.update} update, ${c.close} close, ${c.unchanged} unchanged, ${d.adopted} adopted (of ${count(d.total, 'task')}) on ${d.repository}`,
  )
  if (d.next_cursor !== null)
    out.line(`showing a page; continue with ${more === undefined ? `--cursor ${d.next_cursor}` : more(d.next_cursor)}`)
}

function done(i: PushResultItemT): string {
  const adopted = i.outcome === 'adopted' ? ' (found by its marker)' : ''
  return `  ${i.outcome} ${issueOf(i)}${changesOf(i)}${adopted}  ${i.ref ?? '(new task)'}  ${i.title}`
}

export function renderPushResult(out: Out, d: PushResultDocT): void {
  const failed = d.items.filter((i) => i.outcome === 'failed')
  const sent = failed.filter((i) => !i.reason?.startsWith('not sent: '))
  for (const i of sent.slice(0, LIST_MAX)) {
    out.line(`  ${out.style('red', 'failed')}  ${i.ref ?? '(new task)'}  ${i.title}: ${i.reason}`)
  }
  if (sent.length > LIST_MAX) out.line(out.style('dim', `  … and ${sent.length - LIST_MAX} more failed`))
  const moved = d.items.filter((i) => i.outcome !== 'failed' && i.outcome !== 'unchanged')
  for (const i of moved.slice(0, LIST_MAX)) out.line(done(i))
  if (moved.length > LIST_MAX) out.line(out.style('dim', `  … and ${moved.length - LIST_MAX} more`))
  warnings(out, d)
  const o = d.outcomes
  const summary = `${o.created} created, ${o.updated} updated, ${o.closed} closed, ${o.unchanged} unchanged, ${o.adopted} adopted, ${o.failed} failed (of ${count(d.total, 'task')}) on ${d.repository}`
  out.line(`push: ${o.failed > 0 ? out.style('red', summary) : summary}`)
  const r = d.retry
  if (r.retried > 0 || r.exhausted) {
    const budget = `waited ${Math.round(r.waited_ms / 1000)}s of a ${Math.round(r.budget_ms / 1000)}s retry budget`
    out.line(out.style('dim', `  ${count(r.retried, 'request')} sent again; ${budget}`))
  }
  if (d.stopped !== null) {
    out.line(out.style('red', `  stopped sending after a failure that would repeat: ${d.stopped}`))
    const unsent = failed.length - sent.length
    if (unsent > 0) out.line(`  ${count(unsent, 'task')} ${unsent === 1 ? 'was' : 'were'} not sent`)
  }
  if (o.failed > 0) {
    out.line(
      `${count(o.failed, 'task')} not pushed. Run \`dacli github push ${d.project}\` again to finish (once GitHub is back): what was written is found again by the github block or the marker, and nothing is duplicated.`,
    )
  }
}

/**
 * A push (or sync) some of whose items failed. People get the report and exit 1; under --json it is the contract's
 * failure — nothing on stdout, the error/v1 envelope on stderr (exit 1) — with the result document in
 * `details.result`, so a caller still learns each item's outcome.
 */
export function failedItems<D>(
  json: boolean,
  data: D,
  failed: number,
  command: string,
  human: (out: Out) => void,
): { data: D; verdict: 'failure' | null; human: (out: Out) => void } {
  if (failed > 0 && json) {
    throw new FailureError(`${count(failed, 'item')} of the push failed; running it again finishes the job`, {
      details: { result: data },
      next: [cmd(command)],
    })
  }
  return { data, verdict: failed > 0 ? 'failure' : null, human }
}
