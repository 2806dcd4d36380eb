// Edit distance between two names, and how many "did you mean" suggestions any
// answer offers. Plain string arithmetic: the kernel (flags, dispatch) and the
// engines' closeness rule (base/closest.ts) both use it.

/** Levenshtein distance. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] as number
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] as number
      prev[j] = Math.min(up + 1, (prev[j - 1] as number) + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = up
    }
  }
  return prev[b.length] as number
}

/** The most suggestions any answer offers. */
export const MAX_SUGGESTIONS = 3
