// Which identities can be trusted (quality.md, hostile agent files; revocation). Agent files are
// ordinary files anyone with write access can edit, so an identity resolves only when its file is
// sound and so is every ancestor's: a-root is the one file with that id and holds no token; every
// other identity has a parent that exists and a grant no higher than that parent's; no two files share
// a token hash; and no ancestor is retired (retiring an identity retires its subtree's effect).

import type { AgentFile } from './identity.js'

export const ROOT = 'a-root'

export interface AgentProblem {
  agent: string
  path: string
  /** `tampered-agent` or `duplicate-token-hash`. */
  code: string
  message: string
}

/** Problems of each agent file taken with the others (not yet its ancestors'). */
export function agentProblems(agents: readonly AgentFile[]): AgentProblem[] {
  const out: AgentProblem[] = []
  const byId = new Map<string, AgentFile>()
  for (const a of agents) byId.set(a.id, a)
  const byHash = new Map<string, AgentFile[]>()
  for (const a of agents) {
    if (a.token_hash === null) continue
    byHash.set(a.token_hash, [...(byHash.get(a.token_hash) ?? []), a])
  }
  const add = (a: AgentFile, code: string, message: string) => out.push({ agent: a.id, path: a.path, code, message })
  for (const a of agents) {
    if (a.id === ROOT) {
      if (a.token_hash !== null)
        add(a, 'tampered-agent', 'a-root has a token hash; the root identity never has a token')
      if (a.parent !== null) add(a, 'tampered-agent', 'a-root has a parent')
      continue
    }
    const twins = byHash.get(a.token_hash ?? '') ?? []
    if (twins.length > 1) {
      add(
        a,
        'duplicate-token-hash',
        `shares its token hash with ${twins
          .filter((t) => t !== a)
          .map((t) => t.id)
          .join(', ')}; one token cannot be two identities`,
      )
    }
    const parent = a.parent === null ? undefined : byId.get(a.parent)
    if (parent === undefined) {
      add(a, 'tampered-agent', a.parent === null ? 'has no parent' : `its parent ${a.parent} does not exist`)
    } else if (a.grant === 'rw' && parent.grant !== 'rw') {
      add(
        a,
        'tampered-agent',
        `has grant rw above its parent ${parent.id}'s ro (a child's grant never exceeds its parent's)`,
      )
    }
  }
  return out
}

/**
 * The verdict on identity `id`: the first retired identity on its lineage (itself first), and the first
 * problem on it (its own, an ancestor's, a cycle), each null when there is none.
 */
export function trustOf(
  agents: readonly AgentFile[],
  id: string,
  problems: readonly AgentProblem[] = agentProblems(agents),
): { retired: string | null; problem: string | null } {
  const byId = new Map(agents.map((a) => [a.id, a]))
  const seen = new Set<string>()
  let retired: string | null = null
  let cur: string | null = id
  while (cur !== null) {
    if (seen.has(cur)) return { retired, problem: `its lineage loops back to ${cur}` }
    seen.add(cur)
    const a = byId.get(cur)
    if (a === undefined) return { retired, problem: `${cur} does not exist` }
    if (a.retired && retired === null) retired = a.id
    const p = problems.find((x) => x.agent === a.id)
    if (p !== undefined) return { retired, problem: a.id === id ? p.message : `its ancestor ${a.id} ${p.message}` }
    cur = a.parent
  }
  return { retired, problem: null }
}
