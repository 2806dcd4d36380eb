import { closest } from '../../base/closest.js'
import { cmd } from '../../base/commands.js'
import type { Notes } from '../../base/notes.js'
import { byText } from '../../base/order.js'
import { RawJSON } from '../../base/rawjson.js'
import { defineCommand } from '../../clikit/command.js'
import { oneOf, str } from '../../clikit/flags.js'
import {
  cursorPlace,
  keyCursor,
  nextPageCommand,
  type PageKey,
  pageFlags,
  pageStart,
  skippedOn,
} from '../../clikit/pageflags.js'
import { shortRef } from '../../clikit/text.js'
import { projectFilter } from '../../format/ids.js'
import { PRIORITIES, STATUSES, type TaskSummary } from '../../format/model.js'
import type { Store } from '../../store/store.js'
import { listItems } from '../../store/taskitems.js'
import { folderStatus } from '../../store/tombstones.js'
import { checkMilestoneFlag, labelFilterFlag, withLabels } from '../shared/labels.js'
import { listItem } from '../shared/taskdoc.js'
import type { TaskListDocT, TaskListItemT } from './json.js'

/** A task's list item as --json prints it (kept per file in the index: a function of the summary alone). */
const renderItem = (t: TaskSummary) => JSON.stringify(listItem(t))

/** What a listed task is sorted by: project, number, then slug and path (two files never share a path). */
type Listed = Pick<TaskSummary, 'project' | 'seq' | 'slug' | 'path'>
const listKey = (t: Listed): PageKey => [t.project, t.seq, t.slug, t.path]
/** The listing's order, which listKey's keys compare in (compareKeys): a page cursor holds the last item's key. */
const inListOrder = (a: Listed, b: Listed): number =>
  byText(a.project, b.project) || a.seq - b.seq || byText(a.slug, b.slug) || byText(a.path, b.path)
/**
 * The next page's cursor: the key of this page's last task, so the next page starts after it even when tasks before
 * it were claimed, closed or removed meanwhile (an offset would skip as many as left). Null on the last page.
 */
const nextCursor = (matches: readonly Listed[], end: number): string | null =>
  end < matches.length && end > 0 ? keyCursor(listKey(matches[end - 1] as Listed)) : null

/** `--owner` naming no identity of this workspace: an empty list would look like "nobody holds anything". */
async function warnUnknownOwner(ctx: { notes: Notes }, store: Store, owner: string): Promise<void> {
  const { listAgents } = await import('../../domain/identity/agents.js')
  const agents = await listAgents(store)
  if (agents.some((a) => a.id === owner)) return
  const near = closest(
    owner,
    agents.map((a) => ({ value: a.id, names: [a.id] })),
  ).map((c) => c.value)
  ctx.notes.warn(
    `no identity "${owner}" in this workspace: --owner takes an agent id (${cmd('agent list')})${near.length > 0 ? `; did you mean ${near.join(', ')}?` : ''}`,
  )
}

export const list = defineCommand({
  path: 'task list',
  summary: 'List tasks, filtered by project, status, owner, priority, label or milestone',
  description:
    'Sorted by project, then sequence. Removed tasks (tombstones) are listed only with --status removed. There is no limit unless --limit is given; `total` always counts every match and a partial page says so (`truncated`, `next_cursor`). An unknown --status is a usage error naming the allowed values, never an empty list. Files that cannot be parsed, and folders under projects/ not read as projects (no project.md), are skipped and reported (stderr, and `skipped` under --json).',
  args: [],
  flags: {
    project: str('only this project', { valueName: 'SLUG' }),
    status: oneOf([...STATUSES, 'removed'], 'only this status (removed: tombstones)', { repeatable: true }),
    owner: str('only this owner (`me`: you, `none`: unowned)', { valueName: 'AGENT' }),
    priority: oneOf(PRIORITIES, 'only this priority'),
    label: labelFilterFlag,
    milestone: str('only this milestone', { valueName: 'NAME' }),
    ...pageFlags,
  },
  json: 'task-list/v1',
  mutates: false,
  common: true,
  examples: [
    'dacli task list --project ledger --status open --status active',
    'dacli task list --owner me --json',
    'dacli task list --label backend --label urgent --milestone v2',
  ],
  async run(ctx, input) {
    const project = projectFilter(input.flags.project)
    const cursorText = input.flags.cursor
    const place = cursorPlace(cursorText, 4)
    const labelled = withLabels(input.flags.label)
    const milestone = checkMilestoneFlag(input.flags.milestone)
    const store = await ctx.store()
    const statuses = input.flags.status ?? []
    const priority = input.flags.priority
    let owner = input.flags.owner
    if (owner === 'me') owner = (await ctx.identity()).id
    const limit = input.flags.limit ?? null
    if (
      ctx.json &&
      !store.serving && // a server's answer is also a structured result (MCP): documents of plain values there
      priority === undefined &&
      owner === undefined &&
      (input.flags.label ?? []).length === 0 &&
      milestone === undefined &&
      !statuses.includes('removed')
    ) {
      // The document as --json prints it, from each task's item kept in the index (only changed files are parsed
      // and rendered again): no summary is built for a file that did not change.
      const { rows, broken } = await listItems(store, renderItem, project)
      const matches = rows.filter((r) => statuses.length === 0 || statuses.includes(r.status)).sort(inListOrder)
      const start = pageStart(matches, place, listKey)
      const end = limit === null ? matches.length : Math.min(matches.length, start + limit)
      ctx.notes.skipped(broken)
      const data: TaskListDocT = {
        schema: 'task-list/v1',
        tasks: matches.slice(start, end).map((r) => new RawJSON(r.json) as unknown as TaskListItemT),
        total: matches.length,
        limit,
        cursor: cursorText ?? null,
        next_cursor: nextCursor(matches, end),
        truncated: start > 0 || end < matches.length,
        ...skippedOn(broken, limit),
      }
      return { data }
    }
    const listing = await store.listTasks(project)
    const skipped = [...listing.broken]
    // One pass over the listing (a server's is shared by every call: never copied, never changed).
    const wanted = (t: TaskSummary) =>
      (statuses.length === 0 || statuses.includes(folderStatus(t.path) ?? t.status)) &&
      (priority === undefined || t.priority === priority) &&
      (owner === undefined || (owner === 'none' ? t.owner === null : t.owner === owner)) &&
      labelled(t) &&
      (milestone === undefined || t.milestone === milestone)
    const matches = listing.tasks.filter(wanted)
    if (statuses.includes('removed')) {
      const { listTombstones } = await import('../../store/tombstones.js')
      const removed = await listTombstones(store, project)
      for (const t of removed.tombstones) if (wanted(t.task)) matches.push(t.task)
      skipped.push(...removed.broken)
    }
    matches.sort(inListOrder)
    const start = pageStart(matches, place, listKey)
    const end = limit === null ? matches.length : Math.min(matches.length, start + limit)
    const page = matches.slice(start, end)
    ctx.notes.skipped(skipped)
    if (matches.length === 0 && owner !== undefined && owner !== 'none') await warnUnknownOwner(ctx, store, owner)
    const data: TaskListDocT = {
      schema: 'task-list/v1',
      tasks: page.map(listItem),
      total: matches.length,
      limit,
      cursor: cursorText ?? null,
      next_cursor: nextCursor(matches, end),
      truncated: start > 0 || end < matches.length,
      ...skippedOn(skipped, limit),
    }
    return {
      data,
      human(out) {
        if (data.tasks.length === 0) {
          out.line(matches.length === 0 ? 'no tasks match' : 'no tasks on this page')
          return
        }
        const s = out.style
        out.table(
          ['REF', 'STATUS', 'PRI', 'OWNER', 'ACC', 'TITLE'],
          data.tasks.map((t) => [
            shortRef(t.ref),
            out.status(t.status),
            t.priority ?? '-',
            t.owner ?? '-',
            t.acceptance_total === 0 ? '-' : `${t.acceptance_done}/${t.acceptance_total}`,
            t.title,
          ]),
        )
        if (data.next_cursor !== null) {
          out.line(
            s(
              'dim',
              `showing ${start + 1}–${end} of ${data.total}; next page: ${nextPageCommand('task list', input.argv, data.next_cursor)}`,
            ),
          )
        }
      },
    }
  },
})
