// The dependency-cycle search behind `task depend` and an applied dependency proposal (`sync`): would these
// dependencies close a loop through the task? Pure; the whole schedule's order is cpm.ts's `topoOrder`.

/** A dependency cycle through `from` if its dependencies become `deps`, as ids from `from` back to it. */
export function findCycle(
  from: string,
  deps: readonly string[],
  all: readonly { id: string; depends_on: readonly { on: string }[] }[],
): string[] | null {
  const byId = new Map(all.map((t) => [t.id, t]))
  const next = (id: string) => (id === from ? deps : (byId.get(id)?.depends_on.map((d) => d.on) ?? []))
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
