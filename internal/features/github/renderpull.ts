// Human output of the adoption plan and the pull result (never parsed: the --json documents are the contract).

import { count } from '../../base/text.js'
import type { Out } from '../../clikit/io.js'
import { CATEGORIES } from '../../domain/github/adoptplan.js'
import type { AdoptionPlanDocT, PlanItemT, PullResultDocT } from './json.js'

export const LIST_MAX = 20

/** `more`: the command for the page after `next_cursor` (sync, whose cursor pages both ways, has none). */
export function renderPlan(
  out: Out,
  d: AdoptionPlanDocT,
  refs: ReadonlyMap<string, string>,
  more?: (cursor: number) => string,
): void {
  const c = d.counts
  out.line(
    `${out.style('bold', 'adoption plan')} ${d.repository} → project ${d.project}: ${count(d.total, 'issue')} — ${c.create} create, ${c.link} link, ${c.already_mapped} already mapped, ${c.refused} refused, ${c.skipped} skipped`,
  )
  const items: PlanItemT[] = CATEGORIES.flatMap((k) => d[k]).sort((a, b) => a.issue_number - b.issue_number)
  const who = (id: string | null) => (id === null ? '' : ` → ${refs.get(id) ?? id}`)
  out.table(
    ['ISSUE', 'OUTCOME', 'TITLE'],
    items.map((i) => [
      `#${i.issue_number}`,
      i.outcome === 'refused' ? out.style('red', i.outcome) : i.outcome,
      `${i.title}${who(i.task_id)}${i.reason === null ? '' : out.style('dim', ` (${i.reason}${i.score === null ? '' : `, ${i.score}`})`)}`,
    ]),
    { indent: 2 },
  )
  for (const i of items) {
    if (i.acceptance === undefined) continue
    for (const a of i.acceptance) out.line(`    #${i.issue_number} accept: ${a}`)
    for (const a of i.acceptance_ambiguities ?? [])
      out.line(out.style('yellow', `    #${i.issue_number} not imported: ${a}`))
  }
  if (d.truncated) {
    const end = d.cursor + items.length
    out.line(
      `showing ${items.length === 0 ? 0 : d.cursor + 1}–${end} of ${d.total}${d.next_cursor === null ? '' : `; continue with ${more === undefined ? `--cursor ${d.next_cursor}` : more(d.next_cursor)}`}`,
    )
  }
  if (c.refused > 0)
    out.line(out.style('red', `${count(c.refused, 'blocking item')}: an applying pull refuses until they are resolved`))
}

export function renderPullResult(out: Out, d: PullResultDocT): void {
  const c = d.counts
  out.line(
    `pull: ${c.created} created, ${c.linked} linked, ${c.already_mapped} already mapped, ${c.skipped} skipped (of ${count(d.total, 'issue')}) from ${d.repository}`,
  )
  const lines = [
    ...d.created.map((a) => `  created ${a.ref} from #${a.issue_number}`),
    ...d.linked.map((a) => `  linked  ${a.ref} to #${a.issue_number}`),
  ]
  for (const l of lines.slice(0, LIST_MAX)) out.line(l)
  if (lines.length > LIST_MAX) out.line(out.style('dim', `  … and ${lines.length - LIST_MAX} more (dacli task list)`))
}
