import { byText } from '../../base/order.js'
import { defineCommand } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { projectFilter } from '../../format/ids.js'
import type { MilestoneListDocT } from './json.js'

export const list = defineCommand({
  path: 'milestone list',
  summary: 'Milestones and their progress: tasks by status, done out of total',
  description:
    'Every milestone named by a task (the milestone: key, set with task add|edit --milestone), in name order, with its tasks counted by status, the share done, and the acceptance criteria checked. Removed tasks are not counted. github push maps milestones to GitHub milestones of the same title.',
  args: [],
  flags: { project: str('only this project', { valueName: 'SLUG' }) },
  json: 'milestone-list/v1',
  mutates: false,
  examples: ['dacli milestone list', 'dacli milestone list --project ledger --json'],
  async run(ctx, input) {
    const project = projectFilter(input.flags.project)
    const store = await ctx.store()
    const listing = await store.listTasks(project)
    ctx.notes.skipped(listing.broken)
    const by = new Map<string, MilestoneListDocT['milestones'][number]>()
    let unassigned = 0
    for (const t of listing.tasks) {
      if (t.milestone === null) {
        unassigned++
        continue
      }
      let m = by.get(t.milestone)
      if (m === undefined) {
        m = {
          name: t.milestone,
          total: 0,
          counts: { open: 0, active: 0, blocked: 0, done: 0 },
          progress: 0,
          acceptance_done: 0,
          acceptance_total: 0,
          projects: [],
          command: `dacli task list --milestone ${JSON.stringify(t.milestone)}`,
        }
        by.set(t.milestone, m)
      }
      m.total++
      m.counts[t.status]++
      m.acceptance_done += t.acceptance_done
      m.acceptance_total += t.acceptance_total
      if (!m.projects.includes(t.project)) m.projects.push(t.project)
    }
    const milestones = [...by.values()].sort((a, b) => byText(a.name, b.name))
    for (const m of milestones) {
      m.progress = Math.round((m.counts.done / m.total) * 1000) / 1000
      m.projects.sort(byText)
    }
    const data: MilestoneListDocT = {
      schema: 'milestone-list/v1',
      project: project ?? null,
      milestones,
      unassigned,
      skipped: [...listing.broken],
    }
    return {
      data,
      human(out) {
        if (milestones.length === 0) {
          out.line('no milestones yet (dacli task edit <ref> --milestone NAME)')
          return
        }
        out.table(
          ['MILESTONE', 'DONE', 'OPEN', 'ACTIVE', 'BLOCKED', 'PROGRESS'],
          milestones.map((m) => [
            m.name,
            `${m.counts.done}/${m.total}`,
            String(m.counts.open),
            String(m.counts.active),
            String(m.counts.blocked),
            `${bar(m.progress)} ${Math.round(m.progress * 100)}%`,
          ]),
        )
        if (unassigned > 0)
          out.line(out.style('dim', `${unassigned} task${unassigned === 1 ? '' : 's'} in no milestone`))
      },
    }
  },
})

const bar = (p: number) => {
  const n = Math.round(p * 10)
  return `[${'#'.repeat(n)}${'.'.repeat(10 - n)}]`
}
