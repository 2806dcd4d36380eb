import { UsageError } from '../../base/errors.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { int, oneOf, str } from '../../clikit/flags.js'
import { editTask } from '../../domain/task/edit.js'
import { checkText, checkTitle } from '../../format/ids.js'
import { PRIORITIES } from '../../format/model.js'
import { parseEstimate } from '../../format/taskfile.js'
import { changeResult } from '../shared/taskdoc.js'

export const edit = defineCommand({
  path: 'task edit',
  summary: 'Change a task’s title, priority, estimate, criteria or sections',
  description:
    'Owner only. --accept appends criteria (a done task with new criteria returns to open). With --if-version V the edit is refused (exit 5) unless the task is still at version V — read, decide, then write without losing someone else’s change. The file name (and so the slug) never changes.',
  args: [arg('ref', 'the task')],
  flags: {
    title: str('a new title'),
    priority: oneOf(PRIORITIES, 'a new priority'),
    estimate: str('a new estimate optimistic,probable,pessimistic', { valueName: 'O,M,P' }),
    accept: str('add an acceptance criterion', { repeatable: true, valueName: 'CRITERION' }),
    'so-that': str('replace the ## So that section'),
    context: str('replace the ## Context section'),
    'if-version': int('refuse (exit 5) unless the task is at this version', { min: 0, valueName: 'V' }),
  },
  json: 'task-change/v1',
  mutates: true,
  idempotent: true,
  examples: ['dacli task edit ledger/2 --accept "Runbook updated" --if-version 4'],
  async run(ctx, input) {
    const title = input.flags.title
    const priority = input.flags.priority
    const est = input.flags.estimate
    const accept = (input.flags.accept ?? []).map((a) => checkTitle(a, 'acceptance criterion'))
    const soThat = input.flags['so-that']
    const context = input.flags.context
    const ifVersion = input.flags['if-version']
    if ([title, priority, est, soThat, context].every((x) => x === undefined) && accept.length === 0) {
      throw new UsageError('nothing to edit: give --title, --priority, --estimate, --accept, --so-that or --context')
    }
    if (soThat !== undefined) checkText(soThat, '--so-that')
    if (context !== undefined) checkText(context, '--context')
    const store = await ctx.store()
    const c = await editTask(store, input.args.ref, await ctx.identity(), {
      ...(title === undefined ? {} : { title: checkTitle(title) }),
      ...(priority === undefined ? {} : { priority }),
      ...(est === undefined ? {} : { estimate: parseEstimate(est) }),
      accept,
      ...(soThat === undefined ? {} : { soThat }),
      ...(context === undefined ? {} : { context }),
      ...(ifVersion === undefined ? {} : { ifVersion }),
    })
    return changeResult(store, c)
  },
})
