// "Did you mean" for data the caller named: a task reference or a
// project slug that matched nothing. The store puts what was typed
// (`details.given`) and the closest few values (`details.closest[].value`) on
// the not-found error; here they become complete command lines — the caller's
// own, with that one token replaced. Never executed. Command paths and flag
// names have their own suggestions (dispatch.ts, flags.ts).

import { MAX_SUGGESTIONS } from '../base/distance.js'

export interface Closest {
  value: string
  title?: string
}

/** The closest values on an error's details, when it carries them. */
export function closestOf(details: Record<string, unknown>): { given: string; closest: Closest[] } | null {
  const given = details.given
  const list = details.closest
  if (typeof given !== 'string' || !Array.isArray(list)) return null
  const closest = list
    .filter((c): c is Closest => typeof c === 'object' && c !== null && typeof (c as Closest).value === 'string')
    .slice(0, MAX_SUGGESTIONS)
  return closest.length === 0 ? null : { given, closest }
}

const quote = (s: string) => (/^[\w./:@=,-]+$/.test(s) ? s : JSON.stringify(s))

/**
 * The caller's command line with `given` replaced by each close value: as a whole token, as a `--flag=given`
 * value, or inside a comma list (`--depends-on 1,ledgr/2`). Empty when the token cannot be found.
 */
export function correctedCommands(
  path: string,
  argv: readonly string[],
  given: string,
  values: readonly string[],
): string[] {
  const at = argv.findIndex((t) => t === given || t.endsWith(`=${given}`) || t.split(',').includes(given))
  if (at === -1) return []
  return values.map((v) => {
    const fixed = argv.map((t, i) => {
      if (i !== at) return t
      if (t === given) return v
      if (t.endsWith(`=${given}`)) return `${t.slice(0, t.length - given.length)}${v}`
      return t
        .split(',')
        .map((x) => (x === given ? v : x))
        .join(',')
    })
    return ['dacli', ...path.split(' '), ...fixed.map(quote)].join(' ')
  })
}
