// Which identities can be trusted. Agent files are
// ordinary files anyone with write access can edit, so an identity resolves only when its file is
// sound and so is every ancestor's: a-root is the one file with that id and holds no token; every
// other identity was signed by its parent (root's key for a-root's children, the parent's token-derived
// key otherwise) over its id, parent, grant, role, token hash and public key — so a raised grant or a
// swapped token shows — has a grant no higher than its parent's, shares its token hash with no other
// file, and no ancestor is retired (retiring an identity retires its subtree's effect).

import { type EventRecord, eventContent } from '../../store/events.js'
import type { AgentFile } from './identity.js'
import { verifySignature } from './signing.js'

const ROOT = 'a-root'

export interface AgentProblem {
  agent: string
  path: string
  /** `tampered-agent`, `unsigned-agent` or `duplicate-token-hash`. */
  code: string
  message: string
}

/** What the parent's signature covers. */
export function agentContent(a: Omit<AgentFile, 'retired' | 'path' | 'signature'>): Record<string, unknown> {
  return {
    id: a.id,
    kind: 'agent',
    parent: a.parent,
    grant: a.grant,
    role: a.role,
    token_hash: a.token_hash,
    public_key: a.public_key,
    created: a.created,
    created_by: a.created_by,
  }
}

interface Context {
  byId: Map<string, AgentFile>
  byHash: Map<string, AgentFile[]>
  rootKeys: readonly string[]
}

function contextOf(agents: readonly AgentFile[], rootKeys: readonly string[]): Context {
  const byId = new Map<string, AgentFile>()
  const byHash = new Map<string, AgentFile[]>()
  for (const a of agents) {
    byId.set(a.id, a)
    if (a.token_hash !== null) byHash.set(a.token_hash, [...(byHash.get(a.token_hash) ?? []), a])
  }
  return { byId, byHash, rootKeys }
}

/** The public keys that may sign for identity `id` (root's published keys, or the agent's own). */
function keysOf(agents: ReadonlyMap<string, AgentFile>, rootKeys: readonly string[], id: string): string[] {
  if (id === ROOT) return [...rootKeys]
  const k = agents.get(id)?.public_key
  return k ? [k] : []
}

function problemsOf(a: AgentFile, ctx: Context): AgentProblem[] {
  const out: AgentProblem[] = []
  const add = (code: string, message: string) => out.push({ agent: a.id, path: a.path, code, message })
  if (a.id === ROOT) {
    if (a.token_hash !== null) add('tampered-agent', 'has a token hash; the root identity never has a token')
    if (a.parent !== null) add('tampered-agent', 'has a parent; the root identity has none')
    return out
  }
  const twins = ctx.byHash.get(a.token_hash ?? '') ?? []
  if (twins.length > 1) {
    const others = twins.filter((t) => t !== a).map((t) => t.id)
    add('duplicate-token-hash', `shares its token hash with ${others.join(', ')}; one token cannot be two identities`)
  }
  const parent = a.parent === null ? undefined : ctx.byId.get(a.parent)
  if (parent === undefined) {
    add('tampered-agent', a.parent === null ? 'has no parent' : `names a parent, ${a.parent}, that does not exist`)
    return out
  }
  if (a.grant === 'rw' && parent.grant !== 'rw') {
    add(
      'tampered-agent',
      `has grant rw above its parent ${parent.id}'s ro (a child's grant never exceeds its parent's)`,
    )
  }
  if (a.signature === null || a.public_key === null) {
    add('unsigned-agent', 'carries no signature from its parent (spawned by dacli 0.1.0, or the signature was removed)')
  } else if (!verifySignature(agentContent(a), a.signature, keysOf(ctx.byId, ctx.rootKeys, parent.id))) {
    add(
      'tampered-agent',
      `is not signed by its parent ${parent.id} as it stands (its grant, role, token hash, public key or parent was edited)`,
    )
  }
  return out
}

/** Problems of every agent file taken with the others (doctor). */
export function agentProblems(agents: readonly AgentFile[], rootKeys: readonly string[]): AgentProblem[] {
  const ctx = contextOf(agents, rootKeys)
  return agents.flatMap((a) => problemsOf(a, ctx))
}

/**
 * The verdict on identity `id`: the first retired identity on its lineage (itself first), and the first
 * problem on it (its own, an ancestor's, a cycle), each null when there is none. Only the lineage's
 * signatures are checked.
 */
export function trustOf(
  agents: readonly AgentFile[],
  id: string,
  rootKeys: readonly string[],
): { retired: string | null; problem: string | null } {
  const ctx = contextOf(agents, rootKeys)
  const seen = new Set<string>()
  let retired: string | null = null
  let cur: string | null = id
  while (cur !== null) {
    if (seen.has(cur)) return { retired, problem: `its lineage loops back to ${cur}` }
    seen.add(cur)
    const a = ctx.byId.get(cur)
    if (a === undefined) return { retired, problem: `${cur} does not exist` }
    if (a.retired && retired === null) retired = a.id
    const p = problemsOf(a, ctx)[0]
    if (p !== undefined)
      return { retired, problem: a.id === id ? `${a.id} ${p.message}` : `its ancestor ${a.id} ${p.message}` }
    cur = a.parent
  }
  return { retired, problem: null }
}

/**
 * Why an event cannot be trusted as written by its `created_by`, or null when it can: it must carry that
 * identity's signature over its content (root's: one of the clones' root keys), and the author's file must
 * be sound. Retirement does not void what an identity signed while it was live.
 */
export function eventProblem(
  e: Pick<EventRecord, 'created_by' | 'signature'> & Parameters<typeof eventContent>[0],
  agents: readonly AgentFile[],
  rootKeys: readonly string[],
): string | null {
  if (e.signature === null) {
    return 'it is not signed (written by dacli 0.1.0, or by hand), so nothing shows who wrote it'
  }
  const ctx = contextOf(agents, rootKeys)
  const author = ctx.byId.get(e.created_by)
  if (author === undefined) return `its author ${e.created_by} is not an identity of this workspace`
  const p = trustOf(agents, author.id, rootKeys).problem
  if (p !== null) return `its author's identity cannot be trusted: ${p}`
  if (!verifySignature(eventContent(e), e.signature, keysOf(ctx.byId, rootKeys, author.id))) {
    return `its signature is not ${author.id}'s: someone else wrote it, or it was edited`
  }
  return null
}
