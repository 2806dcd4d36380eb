import { arg, defineCommand } from '../../clikit/command.js'
import { bool, duration, int, str } from '../../clikit/flags.js'
import { checkTask } from '../../domain/task/acceptance.js'
import { changeResult } from '../shared/taskdoc.js'
import { verifyRequest } from '../shared/verify.js'

export const check = defineCommand({
  path: 'task check',
  summary: 'Tick acceptance criteria, optionally proving them with a command',
  description:
    'Say which criteria with exactly one of --n (repeatable), --all or --match. With --verify the command runs in a shell from the root of the worktree you run it in (a linked worktree’s own checkout) (killed after --timeout); the boxes are checked only if it exits 0, and the evidence (command, exit code, duration, sha256 of the output) is written to the task’s ## Verification section. A failing command is exit 1 with nothing checked. Without --verify the boxes are checked on your word and logged as attested (`details.attested`), never as verified. Checking an already checked box is `unchanged`. Owner only: another identity’s task is refused (exit 3).',
  usage: '<ref> (--n N… | --all | --match TEXT) [--verify CMD] [--timeout DUR]',
  args: [arg('ref', 'the task')],
  flags: {
    n: int('a criterion’s number', { repeatable: true, min: 1 }),
    all: bool('every criterion'),
    match: str('criteria containing this text'),
    verify: str('a shell command that must exit 0 first', {
      valueName: 'CMD',
      executes: true,
    }),
    timeout: duration('kill --verify after this long', { defaultText: '10m' }),
  },
  json: 'task-change/v1',
  mutates: true,
  idempotent: true,
  common: true,
  examples: [
    'dacli task check ledger/2 --n 1 --verify "npm test -- shim"',
    'dacli task check ledger/2 --match "nightly batch"',
  ],
  async run(ctx, input) {
    const store = await ctx.store()
    const verify = verifyRequest(ctx, input.flags.verify, input.flags.timeout)
    const match = input.flags.match
    const c = await checkTask(
      store,
      input.args.ref,
      await ctx.identity(),
      { ns: input.flags.n ?? [], all: input.flags.all === true, ...(match === undefined ? {} : { match }) },
      verify,
    )
    return changeResult(store, c)
  },
})
