import { arg, defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { arbitrationOf } from '../../domain/claims/arbiter.js'
import { retireAgent } from '../../domain/identity/agents.js'
import { agentDoc, renderAgent } from './show.js'

export const retire = defineCommand({
  path: 'agent retire',
  summary: 'Retire an identity: its token stops resolving; history and attribution stay',
  description:
    'An identity may retire itself or its descendants; a-root may retire any identity but itself. An identity that owns unfinished tasks (open, active or blocked), or under which an identity owns one (its token stops resolving too), is refused (exit 3, listing them) unless --release, which hands each back to the pool first (owner and claim cleared — a claim on a remote is deleted there —, active → open, logged as released). Retiring an already retired identity changes nothing (changed: false); with --release it still releases what it holds.',
  args: [arg('id', 'the agent id (a-…)')],
  flags: {
    release: bool('release the unfinished tasks it and the identities under it own (logged) instead of refusing'),
  },
  json: 'agent/v1',
  mutates: true,
  idempotent: true,
  async run(ctx, input) {
    const store = await ctx.store()
    const r = await retireAgent(store, await ctx.identity(), input.args.id, {
      release: input.flags.release === true,
      arbitration: arbitrationOf(store, ctx.env, {}),
    })
    const data = await agentDoc(store, r.agent, r.changed, r.released)
    return {
      data,
      human(out) {
        if (r.released.length > 0)
          out.line(`released ${r.released.map((t) => t.ref).join(', ')} (back to the pool; logged)`)
        out.line(
          r.retiredNow
            ? `retired ${data.id}`
            : `${data.id} was already retired${r.released.length > 0 ? '' : ' (unchanged)'}`,
        )
        renderAgent(out, data)
      },
    }
  },
})
