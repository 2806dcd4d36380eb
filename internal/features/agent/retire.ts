import { arg, defineCommand } from '../../clikit/command.js'
import { retireAgent } from '../../store/index.js'
import { agentDoc, renderAgent } from './show.js'

export const retire = defineCommand({
  path: 'agent retire',
  summary: 'Retire an identity: its token stops resolving; history and attribution stay',
  description:
    'An identity may retire itself or its descendants; a-root may retire any identity but itself. Retiring an already retired identity changes nothing (changed: false). Tasks it owns stay owned (doctor reports them as orphaned-task) until released or taken over.',
  args: [arg('id', 'the agent id (a-…)')],
  flags: {},
  json: 'agent/v1',
  mutates: true,
  idempotent: true,
  async run(ctx, input) {
    const store = await ctx.store()
    const r = await retireAgent(store, await ctx.identity(), input.args.id)
    const data = await agentDoc(store, r.agent, r.changed)
    return {
      data,
      human(out) {
        out.line(r.changed ? `retired ${data.id}` : `${data.id} was already retired (unchanged)`)
        renderAgent(out, data)
      },
    }
  },
})
