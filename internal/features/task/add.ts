import { cmd } from '../../base/commands.js'
import { RefusedError } from '../../base/errors.js'
import { newUlid } from '../../base/ids.js'
import { nearestDuplicate } from '../../base/similarity.js'
import { count } from '../../base/text.js'
import { defineCommand } from '../../clikit/command.js'
import { bool, oneOf, str } from '../../clikit/flags.js'
import { oneDecimal, shortRef } from '../../clikit/text.js'
import { withLink } from '../../domain/task/edit.js'
import { checkTitle, safeSegment, slugify } from '../../format/ids.js'
import { checkSectionText } from '../../format/markdown.js'
import { PRIORITIES, stamp } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { newTaskBody, parseDepFlag, parseEstimate, renderTaskFile } from '../../format/taskfile.js'
import { checkLabels, checkMilestoneFlag, labelFlag, milestoneFlag } from '../shared/labels.js'
import { taskDoc } from '../shared/taskdoc.js'
import { checkTouches, touchFlag } from './fields.js'

export const add = defineCommand({
  path: 'task add',
  summary: 'Create a task in a project (unowned until someone claims it)',
  description:
    'Creates projects/<project>/tasks/open/NNN-<slug>.md with the next sequence number of the project (allocated under a lock, never reused). A near-duplicate of an open or active task in the project is refused with exit 3 naming the twin, unless --force: the same words (case, punctuation, order and plurals aside), possibly with a few words more (at least half of the words shared); titles that each name something the other does not ("Add modulo function", "Add power function") are different tasks unless nearly every word is shared. Give acceptance criteria with --accept: `task done` verifies against them. --touches names the paths the task will touch (globs relative to the repository root): dacli next never offers two agents tasks whose paths overlap.',
  args: [{ name: 'title', description: 'the task title', required: true, rest: true }],
  flags: {
    project: str('the project slug', { required: true, valueName: 'SLUG' }),
    priority: oneOf(PRIORITIES, 'MoSCoW priority'),
    estimate: str('three-point estimate o,m,p', { valueName: 'O,M,P' }),
    accept: str('an acceptance criterion', { repeatable: true, valueName: 'CRITERION' }),
    'so-that': str('why it matters'),
    context: str('background for the worker'),
    parent: str('the parent task', { valueName: 'REF' }),
    'depends-on': str('a task it depends on (default link FS)', {
      repeatable: true,
      valueName: 'REF[:FS|SS|FF|SF]',
    }),
    touches: touchFlag,
    label: labelFlag,
    milestone: milestoneFlag,
    force: bool('create it even if it looks like a duplicate'),
  },
  json: 'task/v1',
  mutates: true,
  common: true,
  examples: [
    'dacli task add "Add the ledger write shim" --project ledger --priority must --estimate 2,5,14 --accept "Shim covers the nightly batch path"',
    'dacli task add "Reconcile month end" --project ledger --depends-on ledger/2 --depends-on ledger/3:SS',
    'dacli task add "Harden the login" --project api --touches "src/auth/**" --label security --milestone v2',
  ],
  async run(ctx, input) {
    const { flags } = input
    const title = checkTitle(input.args.title)
    const project = safeSegment(flags.project, 'project slug')
    const estimate = flags.estimate === undefined ? null : parseEstimate(flags.estimate)
    const accept = (flags.accept ?? []).map((a) => checkTitle(a, 'acceptance criterion'))
    const soThat = flags['so-that']
    const context = flags.context
    if (soThat !== undefined) checkSectionText(soThat, '--so-that')
    if (context !== undefined) checkSectionText(context, '--context')
    const depSpecs = (flags['depends-on'] ?? []).map((spec) => parseDepFlag(spec, '--depends-on'))
    const touches = await checkTouches(flags.touches)
    const labels = checkLabels(flags.label)
    const milestone = checkMilestoneFlag(flags.milestone)
    const store = await ctx.store()
    store.requireProject(project)
    const who = await ctx.identity()

    let deps: { on: string; type: string }[] = []
    // As task depend --add adds them: SS and FF to one task stand side by side, FS replaces the others.
    for (const d of depSpecs) deps = withLink(deps, (await store.readTask(d.on, { prefer: project })).id, d.type)
    const parent = flags.parent === undefined ? null : (await store.readTask(flags.parent, { prefer: project })).id
    const id = `t-${newUlid()}`
    const created = stamp(ctx.now())

    const record = await store.createTask(project, (existing) => {
      if (flags.force !== true) {
        const live = existing.filter((t) => t.status === 'open' || t.status === 'active')
        const twin = nearestDuplicate(title, live)
        if (twin !== null) {
          throw new RefusedError('near-duplicate', `"${title}" looks like ${qualifiedRef(twin)} "${twin.title}"`, {
            details: {
              twin: { id: twin.id, ref: qualifiedRef(twin), title: twin.title, status: twin.status },
              similarity: Math.round(twin.jaccard * 1000) / 1000,
              shared_tokens: twin.shared,
            },
            next: [cmd(`task show ${qualifiedRef(twin)}`), 'add --force to create it anyway'],
          })
        }
      }
      const body = newTaskBody({
        title,
        so_that: soThat ?? null,
        context: context ?? null,
        accept,
        log: `- ${created} ${who.id} created`,
      })
      const file = renderTaskFile(
        {
          id,
          created,
          created_by: who.id,
          priority: flags.priority ?? null,
          estimate,
          depends_on: deps,
          parent,
          extra: {
            ...(touches.length > 0 ? { touches } : {}),
            ...(labels.length > 0 ? { labels } : {}),
            ...(milestone !== undefined ? { milestone } : {}),
          },
        },
        body,
      )
      return { slug: slugify(title), body, ...file }
    })
    if (accept.length === 0) {
      ctx.notes.warn(
        `${qualifiedRef(record)} has no acceptance criteria; add them (dacli task edit ${qualifiedRef(record)} --accept "…") so done can be verified`,
      )
    }
    const data = await taskDoc(store, record)
    return {
      data,
      text(style) {
        const facts = [
          data.priority,
          data.estimate === null ? null : `Te ${oneDecimal(data.estimate.te)}`,
          count(data.acceptance_total, 'acceptance criterion', 'acceptance criteria'),
          data.depends_on.length > 0
            ? `depends on ${data.depends_on.map((d) => `${d.ref === null ? d.on : shortRef(d.ref)} (${d.type})`).join(', ')}`
            : null,
        ].filter((x) => x !== null)
        return `created ${style('bold', data.ref)}  ${style('dim', data.id)}\n  ${data.title} — ${facts.join(' · ')}`
      },
    }
  },
})
