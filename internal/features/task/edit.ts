import { UsageError } from '../../base/errors.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { bool, int, oneOf, str } from '../../clikit/flags.js'
import { editTask } from '../../domain/task/edit.js'
import { checkTitle } from '../../format/ids.js'
import { checkSectionText } from '../../format/markdown.js'
import { PRIORITIES } from '../../format/model.js'
import { parseEstimate } from '../../format/taskfile.js'
import { checkLabels, checkMilestoneFlag, labelFlag, milestoneFlag } from '../shared/labels.js'
import { changeResult } from '../shared/taskdoc.js'
import { checkTouches, touchFlag } from './fields.js'

export const edit = defineCommand({
  path: 'task edit',
  summary: 'Change a task’s title, priority, estimate, criteria or sections',
  description:
    'Owner only. --accept appends criteria (a done task with new criteria returns to open). With --if-version V the edit is refused (exit 5) unless the task is still at version V — read, decide, then write without losing someone else’s change. The file name (and so the slug) never changes. --touches and --label add to the task’s touches: and labels: (--remove-touches, --remove-label take entries away); --milestone sets milestone: (--clear-milestone removes it).',
  args: [arg('ref', 'the task')],
  flags: {
    title: str('a new title'),
    priority: oneOf(PRIORITIES, 'a new priority'),
    estimate: str('a new estimate optimistic,probable,pessimistic', { valueName: 'O,M,P' }),
    accept: str('add an acceptance criterion', { repeatable: true, valueName: 'CRITERION' }),
    'so-that': str('replace the ## So that section'),
    context: str('replace the ## Context section'),
    touches: touchFlag,
    'remove-touches': str('take a path or glob out of touches:', { repeatable: true, valueName: 'GLOB' }),
    label: labelFlag,
    'remove-label': str('take a label away', { repeatable: true, valueName: 'LABEL' }),
    milestone: milestoneFlag,
    'clear-milestone': bool('remove the task from its milestone'),
    'if-version': int('refuse (exit 5) unless the task is at this version', { min: 0, valueName: 'V' }),
  },
  json: 'task-change/v1',
  mutates: true,
  idempotent: true,
  examples: [
    'dacli task edit ledger/2 --accept "Runbook updated" --if-version 4',
    'dacli task edit ledger/2 --touches "src/ledger/**" --label backend --milestone "v1.2"',
  ],
  async run(ctx, input) {
    const title = input.flags.title
    const priority = input.flags.priority
    const est = input.flags.estimate
    const accept = (input.flags.accept ?? []).map((a) => checkTitle(a, 'acceptance criterion'))
    const soThat = input.flags['so-that']
    const context = input.flags.context
    const ifVersion = input.flags['if-version']
    const f = input.flags
    const touches = {
      add: await checkTouches(f.touches),
      remove: await checkTouches(f['remove-touches'], '--remove-touches'),
    }
    const labels = { add: checkLabels(f.label), remove: checkLabels(f['remove-label'], '--remove-label') }
    const milestone = checkMilestoneFlag(f.milestone)
    if (milestone !== undefined && f['clear-milestone'] === true)
      throw new UsageError('--milestone and --clear-milestone contradict each other: give one')
    const lists = [touches.add, touches.remove, labels.add, labels.remove]
    if (
      [title, priority, est, soThat, context, milestone].every((x) => x === undefined) &&
      accept.length === 0 &&
      lists.every((l) => l.length === 0) &&
      f['clear-milestone'] !== true
    ) {
      throw new UsageError(
        'nothing to edit: give --title, --priority, --estimate, --accept, --so-that, --context, --touches, --remove-touches, --label, --remove-label, --milestone or --clear-milestone',
      )
    }
    if (soThat !== undefined) checkSectionText(soThat, '--so-that')
    if (context !== undefined) checkSectionText(context, '--context')
    const store = await ctx.store()
    const c = await editTask(store, input.args.ref, await ctx.identity(), {
      ...(title === undefined ? {} : { title: checkTitle(title) }),
      ...(priority === undefined ? {} : { priority }),
      ...(est === undefined ? {} : { estimate: parseEstimate(est) }),
      accept,
      ...(soThat === undefined ? {} : { soThat }),
      ...(context === undefined ? {} : { context }),
      ...(ifVersion === undefined ? {} : { ifVersion }),
      touches,
      labels,
      ...(milestone !== undefined ? { milestone } : f['clear-milestone'] === true ? { milestone: null } : {}),
    })
    return changeResult(store, c)
  },
})
