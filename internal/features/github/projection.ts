import { defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { nextPageCommand, pageFlags, pageOf } from '../../clikit/pageflags.js'
import { fetchIssues, prepare } from '../../domain/github/preflight.js'
import { planPush, windowTasks } from '../../domain/github/pushwindow.js'
import { PUSH_ARGS, PUSH_FLAGS } from './flags.js'
import type { ProjectionDocT } from './json.js'
import { projectionItems } from './projectiondoc.js'

export const projection = defineCommand({
  path: 'github projection',
  summary: 'What GitHub shows of a project: each task’s issue and pull request, and where they drift from the task',
  description:
    'Reads the linked repository’s issues and pull requests (never writes, remote or local: the issue cache aside) and sets them beside the tasks, as github push would project them: per task its issue (by its github block, else by its marker), what a push would change there (create, update, close or nothing: in_sync), and its pull request (by the task’s branch, a pull request URL in the task, or its marker). Issues carrying this workspace’s marker for a task that no longer exists are listed as orphans. Done tasks whose issue is already closed and in step are counted, not listed, unless --terminal; --include-internal adds what dacli would write (the marker, the title, labels, state and milestone the issue would end with).',
  args: [PUSH_ARGS[0]],
  flags: {
    'include-internal': bool('add each issue’s marker and the title, labels, state and milestone a push would give it'),
    terminal: bool('list done tasks whose issue is closed and in step too'),
    full: PUSH_FLAGS.full,
    ...pageFlags,
  },
  json: 'github-projection/v1',
  mutates: false,
  examples: ['dacli github projection ledger', 'dacli github projection ledger --terminal --json'],
  async run(ctx, input) {
    const project = input.args.project
    let tasks: Awaited<ReturnType<typeof windowTasks>> = { tasks: [], skipped: [] }
    const p = await prepare(
      ctx,
      project,
      async (store) => {
        tasks = await windowTasks(store, project, [], null, ctx.now())
      },
      { full: input.flags.full === true },
    )
    const repo = p.linked.repo
    const issues = await fetchIssues(p, repo)
    const pulls = await p.session.client.listPulls(repo, { state: 'all' })
    const all = (await p.store.listRecords()).records
    const known = new Set(all.map((t) => t.id))
    const plan = planPush(tasks, issues, repo, p.store.config.id)
    const records = new Map(all.filter((t) => t.project === project).map((t) => [t.id, t]))
    const built = projectionItems(plan, pulls, issues, records, known, repo, p.store.config.id, {
      internal: input.flags['include-internal'] === true,
      terminal: input.flags.terminal === true,
    })
    const { items, page } = pageOf(built.items, input.flags)
    const data: ProjectionDocT = {
      schema: 'github-projection/v1',
      version: 1,
      project,
      repository: repo,
      include_internal: input.flags['include-internal'] === true,
      terminal: input.flags.terminal === true,
      counts: built.counts,
      ...page,
      items,
      orphans: built.orphans,
      duplicate_markers: plan.duplicates,
      skipped: plan.skipped,
    }
    return {
      data,
      human(out) {
        const c = data.counts
        out.line(
          `${out.style('bold', data.project)} → ${data.repository}: ${c.tasks} tasks, ${c.in_sync} in step, ${c.drift} drifted, ${c.create} without an issue, ${c.with_pr} with a pull request${c.terminal_hidden > 0 ? ` (${c.terminal_hidden} done and closed not shown: --terminal)` : ''}`,
        )
        for (const i of data.items) {
          const issue = i.issue === null ? out.style('dim', 'no issue') : `#${i.issue.number} ${i.issue.state}`
          const pr = i.pr === null ? '' : `  PR #${i.pr.number} ${i.pr.state}`
          const drift =
            i.sync === 'in_sync' ? '' : `  ${i.sync}${i.changes.length > 0 ? `: ${i.changes.join(', ')}` : ''}`
          out.line(`${i.ref}  ${issue}${pr}${out.style('dim', drift)}`)
        }
        for (const o of data.orphans)
          out.line(
            out.style(
              'dim',
              `orphan: #${o.issue_number} ${o.state} carries the marker of ${o.task_id}, which is no task here`,
            ),
          )
        if (data.truncated && data.next_cursor !== null)
          out.line(out.style('dim', `more: ${nextPageCommand('github projection', input.argv, data.next_cursor)}`))
      },
    }
  },
})
