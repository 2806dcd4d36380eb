import { arg, defineCommand } from '../../clikit/command.js'
import type { Out } from '../../clikit/io.js'
import { shortRef } from '../../clikit/text.js'
import { type AgentFile, lineageOf, listAgents, readAgent } from '../../domain/identity/agents.js'
import { qualifiedRef } from '../../format/refs.js'
import type { Store } from '../../store/store.js'
import type { AgentDocT } from './json.js'

/** An identity as agent list shows it. */
export const agentSummary = (a: AgentFile) => ({
  id: a.id,
  grant: a.grant,
  role: a.role,
  parent: a.parent,
  retired: a.retired,
  created: a.created,
})

export async function agentDoc(
  store: Store,
  a: AgentFile,
  changed: boolean,
  released: AgentDocT['released'] = [],
): Promise<AgentDocT> {
  const agents = await listAgents(store)
  const owned = (await store.listTasks()).tasks.filter((t) => t.owner === a.id)
  return {
    schema: 'agent/v1',
    ...agentSummary(a),
    created_by: a.created_by,
    lineage: lineageOf(agents, a.id),
    children: agents.filter((x) => x.parent === a.id && x.id !== a.id).map((x) => x.id),
    tasks_owned: owned.map((t) => ({ id: t.id, ref: qualifiedRef(t), status: t.status, title: t.title })),
    changed,
    released,
    path: a.path,
  }
}

export function renderAgent(out: Out, d: AgentDocT): void {
  out.line(`${out.style('bold', d.id)}${d.retired ? out.style('yellow', '  (retired)') : ''}`)
  out.fields([
    ['grant', d.grant],
    ['role', d.role],
    ['lineage', d.lineage.length === 0 ? null : d.lineage.join(' ← ')],
    ['children', d.children.length === 0 ? null : d.children.join(', ')],
    ['created', d.created],
    ['file', d.path],
  ])
  if (d.tasks_owned.length > 0) {
    out.line('')
    out.line(out.style('bold', 'Owns'))
    out.table(
      ['REF', 'STATUS', 'TITLE'],
      d.tasks_owned.map((t) => [shortRef(t.ref), out.status(t.status), t.title]),
      { indent: 2 },
    )
  }
}

export const show = defineCommand({
  path: 'agent show',
  summary: 'Show an identity: grant, role, lineage, children and the tasks it owns',
  args: [arg('id', 'the agent id (a-…)')],
  flags: {},
  json: 'agent/v1',
  mutates: false,
  async run(ctx, input) {
    const store = await ctx.store()
    const data = await agentDoc(store, await readAgent(store, input.args.id), false)
    return { data, human: (out) => renderAgent(out, data) }
  },
})
