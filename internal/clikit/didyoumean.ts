// "Did you mean" for data the caller named: a task reference or a
// project slug that matched nothing. The store puts what was typed
// (`details.given`) and the closest few values (`details.closest[].value`) on
// the not-found error; here they become complete command lines — the caller's
// own, with that one token replaced. Never executed. Command paths and flag
// names have their own suggestions (dispatch.ts, flags.ts).

import { MAX_SUGGESTIONS } from '../base/distance.js'
import type { FlagSpecs } from './flags.js'

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

/**
 * The command line a person would type for a command run on their behalf (the board's API, an MCP tool): its
 * positionals first, each valued flag as `--name value`, `--json` last — so what the command says back about its
 * command line (a did-you-mean above) is what the CLI says. `flags` are `--name=value` or `--switch` tokens; a value
 * or positional that starts with `-` stays where it cannot be read as a flag (`--name=value`, positionals after
 * `--`), and a switch's `--name=false` stays whole, as does a name `specs` does not declare.
 */
export function typedArgv(specs: FlagSpecs, flags: readonly string[], positionals: readonly string[]): string[] {
  const out: string[] = []
  for (const f of flags) {
    const eq = f.indexOf('=')
    const value = eq === -1 ? '' : f.slice(eq + 1)
    const spec = eq === -1 ? undefined : specs[f.slice(2, eq)]
    const valued = spec !== undefined && spec.type !== 'bool' // an undeclared name (free parameters) stays whole
    if (valued && value !== '' && !value.startsWith('-')) out.push(f.slice(0, eq), value)
    else out.push(f)
  }
  if (positionals.every((w) => !w.startsWith('-'))) return [...positionals, ...out, '--json']
  return [...out, '--json', '--', ...positionals]
}
