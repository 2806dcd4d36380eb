import { arg, defineCommand } from '../../clikit/command.js'
import { bool, str } from '../../clikit/flags.js'
import { loadPlan, remoteClaims } from '../../domain/task/planview.js'
import { stamp } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import {
  claimPart,
  criteriaPart,
  landingPart,
  questionsPart,
  readinessPart,
  schedulePart,
  statusPart,
} from './gather.js'
import type { ExplainDocT } from './json.js'
import { nextAction } from './nextaction.js'
import { render } from './render.js'

export const explain = defineCommand({
  path: 'explain',
  summary: 'Why a task is where it is: status, readiness, rank, claim, questions, criteria, landing, next action',
  description:
    'One document answering "why is this task where it is?": its status (and what blocks it); whether it is ready and, if not, each dependency holding its start with its type and status; its rank in `dacli next` and its slack in the schedule; the claim (holder, lease left, local or on a remote — another clone’s claim as last fetched, or fetched now with --fetch); open questions; acceptance criteria checked, verified and attested; the landing state of its branch (its worktree’s, --branch, or the one its close logged) against trunk (--into, else the remote’s HEAD, else main, else master), as `task done` would check it; and the one next action, with who is expected to take it. Every part names where it was read (`source`) and when (`observed_at`). Reads only: nothing is written.',
  args: [arg('ref', 'the task')],
  flags: {
    into: str('trunk to check the task’s branch against (default: the remote’s HEAD, else main, else master)', {
      valueName: 'BRANCH',
    }),
    branch: str('the branch holding the task’s work (default: its worktree’s, else the one its close logged)', {
      valueName: 'BRANCH',
    }),
    fetch: bool('first fetch the claims the remote arbitrates (claims.remote in config.yml, else origin)'),
  },
  json: 'progress-explain/v1',
  mutates: false,
  examples: ['dacli explain ledger/4', 'dacli explain ledger/4 --into develop --json'],
  async run(ctx, input) {
    const store = await ctx.store()
    const now = ctx.now()
    const at = stamp(now)
    const fetch =
      input.flags.fetch === true ? { label: 'dacli explain (without --fetch: the claims as last fetched)' } : null
    const elsewhere = await remoteClaims(store, ctx.env, now, fetch)
    const t = await store.readTask(input.args.ref)
    const plan = await loadPlan(store)
    const { into, branch } = input.flags
    if (
      into !== undefined &&
      branch === undefined &&
      t.worktree === null &&
      !t.log.some((l) => l.verb === 'landed' || l.verb === 'unlanded')
    )
      ctx.notes.note(`--into is ignored: ${qualifiedRef(t)} has no branch (give it one with --branch)`)
    const facts = {
      task: {
        id: t.id,
        ref: qualifiedRef(t),
        title: t.title,
        project: t.project,
        priority: t.priority,
        owner: t.owner,
        source: t.path,
        observed_at: at,
      },
      status: statusPart(t, plan, at),
      readiness: readinessPart(t, plan, at),
      schedule: schedulePart(t, plan, elsewhere, at),
      claim: claimPart(store, t, now, at),
      questions: await questionsPart(store, t, at),
      criteria: criteriaPart(t, at),
      landing: await landingPart(
        store,
        t,
        { ...(into === undefined ? {} : { into }), ...(branch === undefined ? {} : { branch }) },
        at,
      ),
    }
    const data: ExplainDocT = {
      schema: 'progress-explain/v1',
      observed_at: at,
      ...facts,
      next_action: {
        ...nextAction(facts, into),
        source: 'derived from the parts above (status, readiness, claim, questions, criteria, landing)',
        observed_at: at,
      },
    }
    return { data, human: (out) => render(out, data) }
  },
})
