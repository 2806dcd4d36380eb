import { UsageError } from '../../base/errors.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { dependTask } from '../../domain/task/edit.js'
import { parseDepFlag } from '../../format/taskfile.js'
import { changeResult } from '../shared/taskdoc.js'

export const depend = defineCommand({
  path: 'task depend',
  summary: 'Add or remove dependencies (FS, SS, FF or SF links)',
  description:
    'REF[:TYPE] names the task depended on; TYPE is FS (finish-to-start, the default), SS, FF or SF. FS holds whatever the other types hold, so --add REF:FS replaces every link to REF and --add of another type replaces an FS link (this is how a link changes type); SS, FF and SF stand beside each other (SS and FF: start together, finish together). --remove REF removes every link to REF; --remove REF:TYPE only the link of that type. A link that would close a cycle is refused (exit 3) naming the cycle; an unknown task is exit 4.',
  usage: '<ref> (--add REF[:TYPE] | --remove REF[:TYPE])…',
  args: [arg('ref', 'the task that depends')],
  flags: {
    add: str('a dependency to add', { repeatable: true, valueName: 'REF[:FS|SS|FF|SF]' }),
    remove: str('a dependency to remove (every type, unless one is given)', {
      repeatable: true,
      valueName: 'REF[:FS|SS|FF|SF]',
    }),
  },
  json: 'task-change/v1',
  mutates: true,
  // --remove takes a dependency away.
  destructive: true,
  idempotent: true,
  examples: [
    'dacli task depend ledger/3 --add ledger/2',
    'dacli task depend ledger/3 --add ledger/1:SS --remove ledger/2',
  ],
  async run(ctx, input) {
    const add = (input.flags.add ?? []).map((s) => parseDepFlag(s, '--add'))
    // A removal without a type is of every link to the task (type null).
    const remove = (input.flags.remove ?? []).map((s) => ({
      ...parseDepFlag(s, '--remove'),
      ...(/:(?:FS|SS|FF|SF)$/i.test(s) ? {} : { type: null }),
    }))
    if (add.length + remove.length === 0) throw new UsageError('give at least one --add or --remove')
    const store = await ctx.store()
    return changeResult(store, await dependTask(store, input.args.ref, await ctx.identity(), add, remove))
  },
})
