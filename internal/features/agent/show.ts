import { byText } from '../../base/order.js'
import { arg, defineCommand } from '../../clikit/command.js'
import type { Out } from '../../clikit/io.js'
import { shortRef } from '../../clikit/text.js'
import { type AgentFile, lineageOf, listAgents, readAgent } from '../../domain/identity/agents.js'
import { rootKeysOf, scanAgents } from '../../domain/identity/identity.js'
import { signedRetirements, trustOf } from '../../domain/identity/trust.js'
import { vouchedEvents } from '../../domain/identity/vouched.js'
import { qualifiedRef } from '../../format/refs.js'
import type { EventRecord } from '../../store/events.js'
import type { Store } from '../../store/store.js'
import type { AgentDocT } from './json.js'
import { AGENT_EVENTS_SHOWN } from './limits.js'

/** An identity as agent list shows it, with why its token is refused (`verdicts`: every identity's, verdictsOf). */
export const agentSummary = (a: AgentFile, verdicts: ReadonlyMap<string, string | null>) => ({
  id: a.id,
  grant: a.grant,
  role: a.role,
  parent: a.parent,
  retired: a.retired,
  created: a.created,
  refused: a.retired ? null : (verdicts.get(a.id) ?? null),
})

/**
 * Why each identity's token does not resolve, by id (null: it resolves, or its own file says retired) — the verdict
 * a token gets (trust.ts), so a list never shows as live an identity whose every call is refused.
 */
export async function verdictsOf(store: Store): Promise<Map<string, string | null>> {
  return (await verdictsAndRetirements(store)).verdicts
}

/** Every identity's verdict, and the ids whose retirement is signed by one who may retire them. */
async function verdictsAndRetirements(
  store: Store,
): Promise<{ verdicts: Map<string, string | null>; signed: ReadonlySet<string> }> {
  const { agents } = await scanAgents(store.dir, store.root)
  const keys = rootKeysOf(store, agents)
  const out = new Map<string, string | null>()
  for (const a of agents) {
    const v = trustOf(agents, a.id, keys)
    out.set(
      a.id,
      v.problem ??
        (v.retired === null
          ? null
          : v.retired === a.id
            ? 'this clone saw it retired'
            : `its ancestor ${v.retired} is retired`),
    )
  }
  return { verdicts: out, signed: signedRetirements(agents, keys) }
}

/** Who retired it and when, as its file reads now (after `agent retire` wrote it), and whether that is signed. */
const retirementOf = (a: AgentFile, signed: ReadonlySet<string>): AgentDocT['retirement'] =>
  a.retired ? { by: a.retired_by, at: a.retired_at, signed: signed.has(a.id) } : null

export async function agentDoc(
  store: Store,
  a: AgentFile,
  changed: boolean,
  released: AgentDocT['released'] = [],
): Promise<AgentDocT> {
  const agents = await listAgents(store)
  const tasks = (await store.listTasks()).tasks
  const owned = tasks.filter((t) => t.owner === a.id)
  const { verdicts, signed } = await verdictsAndRetirements(store)
  // Its events as they stand vouched for (a forged one is not its): newest first.
  const mine = (e: EventRecord) => e.created_by === a.id
  const events = (await vouchedEvents(store, mine)).events
    .filter(mine)
    .sort((x, y) => byText(y.created, x.created) || byText(y.id, x.id))
  const refOf = (id: string) => {
    const t = tasks.find((x) => x.id === id)
    return t === undefined ? id : qualifiedRef(t)
  }
  return {
    schema: 'agent/v1',
    ...agentSummary(a, verdicts),
    created_by: a.created_by,
    lineage: lineageOf(agents, a.id),
    retirement: retirementOf(agents.find((x) => x.id === a.id) ?? a, signed),
    children: agents.filter((x) => x.parent === a.id && x.id !== a.id).map((x) => x.id),
    tasks_owned: owned.map((t) => ({ id: t.id, ref: qualifiedRef(t), status: t.status, title: t.title })),
    changed,
    released,
    events: events.slice(0, AGENT_EVENTS_SHOWN).map((e) => ({
      id: e.id,
      kind: e.event_kind,
      state: e.state,
      created: e.created,
      about: e.about === null ? null : refOf(e.about),
      path: e.path,
    })),
    events_total: events.length,
    path: a.path,
  }
}

export function renderAgent(out: Out, d: AgentDocT): void {
  out.line(
    `${out.style('bold', d.id)}${d.retired ? out.style('yellow', '  (retired)') : d.refused !== null ? out.style('red', `  (refused: ${d.refused})`) : ''}`,
  )
  out.fields([
    ['grant', d.grant],
    ['role', d.role],
    ['lineage', d.lineage.length === 0 ? null : d.lineage.join(' ← ')],
    ['children', d.children.length === 0 ? null : d.children.join(', ')],
    ['created', d.created],
    [
      'retired',
      d.retirement === null
        ? null
        : `${d.retirement.at ?? 'at an unknown time'} by ${d.retirement.by ?? 'an unknown identity'}${d.retirement.signed ? '' : out.style('red', ' (not signed: a hand edit; see dacli doctor)')}`,
    ],
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
  if (d.events.length > 0) {
    out.line('')
    out.line(out.style('bold', `Events (${d.events_total})`))
    out.table(
      ['ID', 'KIND', 'STATE', 'ABOUT', 'CREATED'],
      d.events.map((e) => [e.id, e.kind, e.state, e.about === null ? '-' : shortRef(e.about), e.created]),
      { indent: 2 },
    )
    if (d.events_total > d.events.length)
      out.line(out.style('dim', `  ${d.events_total - d.events.length} more: dacli events list --json`))
  }
}

export const show = defineCommand({
  path: 'agent show',
  summary: 'Show an identity: grant, role, lineage, children, the tasks it owns and its events',
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
