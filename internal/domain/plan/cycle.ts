// The dependency-cycle search behind `task depend` and an applied dependency proposal (`sync`): would these
// dependencies close a loop through the task? Pure; the whole schedule's order is cpm.ts's `topoOrder`.

import { type Candidate, resolveAmong } from '../../format/refs.js'

/**
 * A dependency cycle through `from` if its dependencies become `deps`, as ids from `from` back to it. A dependency
 * may name its task in any reference form (a person writes `alpha/001`): each is resolved among `all` first.
 */
export function findCycle(
  from: string,
  deps: readonly string[],
  all: readonly (Candidate & { id: string; depends_on: readonly { on: string }[] })[],
): string[] | null {
  const byId = new Map(all.map((t) => [t.id, t]))
  const ids = (ons: readonly string[], project: string | undefined) =>
    ons.map((on) => resolveAmong(all, on, project)?.id ?? on)
  const next = (id: string) => {
    const t = byId.get(id)
    if (id === from) return ids(deps, t?.project)
    if (t === undefined) return []
    return ids(
      t.depends_on.map((d) => d.on),
      t.project,
    )
  }
  const stack: string[] = [from]
  const seen = new Set<string>()
  const dfs = (id: string): string[] | null => {
    for (const n of next(id)) {
      if (n === from) return [...stack, from]
      if (seen.has(n)) continue
      seen.add(n)
      stack.push(n)
      const found = dfs(n)
      if (found) return found
      stack.pop()
    }
    return null
  }
  return dfs(from)
}
