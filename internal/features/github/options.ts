// The flags of pull and push, declared once: `github sync` takes their union,
// so the kernel refuses a typo in either half before anything runs (no API
// call, no write), and the combination rules below are checked just as early.

import { flagBool, flagNum, type Input } from '../../clikit/command.js'
import type { Context } from '../../clikit/context.js'
import { bool, duration, int } from '../../clikit/flags.js'
import { UsageError } from '../../store/errors.js'

export const DEFAULT_LIMIT = 100

const dryRun = bool('preview: read GitHub and decide, but write nothing, remote or local')
const limit = int('items per page of the preview (1–200)', { min: 1, max: 200, defaultText: String(DEFAULT_LIMIT) })
const cursor = int('start the preview page at this item (a previous next_cursor)', { min: 0, defaultText: '0' })

export const PULL_FLAGS = {
  'dry-run': dryRun,
  limit,
  cursor,
  'include-acceptance': bool('show the acceptance criteria each created task would get (with --dry-run)'),
}

export const PUSH_FLAGS = {
  since: duration('only tasks with activity (creation or a log line) within this long, plus any REF given'),
  'dry-run': dryRun,
  limit,
  cursor,
}

export interface Options {
  dryRun: boolean
  limit: number
  cursor: number
  includeAcceptance: boolean
  sinceMs: number | null
  refs: string[]
}

/**
 * Combination rules, checked before any API call: paging and acceptance flags shape a
 * preview, so they need --dry-run; `jsonNeedsDryRun` commands (pull, sync) apply an
 * adoption only for people — agents preview.
 */
export function readOptions(ctx: Context, input: Input, path: string, jsonNeedsDryRun: boolean): Options {
  const o: Options = {
    dryRun: flagBool(input, 'dry-run'),
    limit: flagNum(input, 'limit') ?? DEFAULT_LIMIT,
    cursor: flagNum(input, 'cursor') ?? 0,
    includeAcceptance: flagBool(input, 'include-acceptance'),
    sinceMs: flagNum(input, 'since') ?? null,
    refs: (input.args.ref ?? '').split(/\s+/).filter((r) => r !== ''),
  }
  if (!o.dryRun) {
    const preview = ['limit', 'cursor', 'include-acceptance'].filter((f) => input.flags[f] !== undefined)
    if (preview.length > 0) {
      throw new UsageError(`${preview.map((f) => `--${f}`).join(', ')} shape a preview: add --dry-run`, {
        details: { flags: preview.map((f) => `--${f}`) },
        next: [`dacli ${path} ${input.argv.join(' ')} --dry-run`],
      })
    }
    if (jsonNeedsDryRun && ctx.json) {
      throw new UsageError(
        `${path} --json needs --dry-run: applying an adoption is a human-confirmed step; agents preview it`,
        { next: [`dacli ${path} ${input.args.project ?? '<project>'} --dry-run --json`] },
      )
    }
  }
  return o
}
