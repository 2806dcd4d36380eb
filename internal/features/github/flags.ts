// The flags of pull and push, declared once: `github sync` takes their union,
// so the kernel refuses a typo in either half before anything runs (no API
// call, no write), and the combination rules below are checked just as early.

import { UsageError } from '../../base/errors.js'
import { type ArgSpec, arg } from '../../clikit/command.js'
import type { Context } from '../../clikit/context.js'
import { bool, duration, type FlagValuesOf, int } from '../../clikit/flags.js'
import { type Outbound, openOutbound } from '../../domain/github/preflight.js'

const DEFAULT_LIMIT = 100

const dryRun = bool('preview: read GitHub and decide, but write nothing, remote or local')
const limit = int('items per page of the preview (1–200)', { min: 1, max: 200, defaultText: String(DEFAULT_LIMIT) })
const cursor = int('start the preview page at this item (a previous next_cursor)', { min: 0, defaultText: '0' })
const full = bool(
  'list every issue of the repository again, not only those changed since the last listing (drops issues deleted or transferred since)',
)

export const PULL_FLAGS = {
  'dry-run': dryRun,
  limit,
  cursor,
  'include-acceptance': bool('show the acceptance criteria each created task would get (with --dry-run)'),
  full,
}

/** The arguments of push and sync: the project, then the tasks to push (default: all of it). */
export const PUSH_ARGS = [
  arg('project', 'the project slug (linked with `github link`)'),
  {
    name: 'ref',
    description: 'a task to push, by reference (default: every task of the project)',
    required: false,
    rest: true,
    list: true,
  },
] as const satisfies readonly ArgSpec[]

export const PUSH_FLAGS = {
  since: duration('only tasks with activity (creation or a log line) within this long, plus any REF given'),
  'dry-run': dryRun,
  limit,
  cursor,
  full,
}

/** What readOptions reads: the project, the refs (push and sync), and any of the flags of either half. */
export interface OptionsInput {
  readonly args: { readonly project: string; readonly ref?: string }
  readonly flags: FlagValuesOf<typeof PULL_FLAGS> & FlagValuesOf<typeof PUSH_FLAGS>
  readonly argv: readonly string[]
}

export interface Options {
  dryRun: boolean
  limit: number
  cursor: number
  includeAcceptance: boolean
  sinceMs: number | null
  refs: string[]
  /** List every issue again rather than what changed since the kept mark (issuecache.ts). */
  full: boolean
}

/**
 * Combination rules, checked before any API call: paging and acceptance flags shape a
 * preview, so they need --dry-run; `jsonNeedsDryRun` commands (pull, sync) apply an
 * adoption only for people — agents preview.
 */
export function readOptions(ctx: Context, input: OptionsInput, path: string, jsonNeedsDryRun: boolean): Options {
  const f = input.flags
  const o: Options = {
    dryRun: f['dry-run'] === true,
    limit: f.limit ?? DEFAULT_LIMIT,
    cursor: f.cursor ?? 0,
    includeAcceptance: f['include-acceptance'] === true,
    sinceMs: f.since ?? null,
    refs: (input.args.ref ?? '').split(/\s+/).filter((r) => r !== ''),
    full: f.full === true,
  }
  if (!o.dryRun) {
    const preview = (['limit', 'cursor', 'include-acceptance'] as const).filter((k) => f[k] !== undefined)
    if (preview.length > 0) {
      throw new UsageError(
        `${preview.map((f) => `--${f}`).join(', ')} ${preview.length === 1 ? 'shapes' : 'shape'} a preview: add --dry-run`,
        {
          details: { flags: preview.map((f) => `--${f}`) },
          next: [`dacli ${path} ${input.argv.join(' ')} --dry-run`],
        },
      )
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

/** How push and sync start: their flags checked, then the tasks in the window, a session and the gated repository. */
export async function startOutbound(
  ctx: Context,
  input: OptionsInput,
  command: 'github push' | 'github sync',
): Promise<{ o: Options; opened: Outbound }> {
  const o = readOptions(ctx, input, command, command === 'github sync')
  return { o, opened: await openOutbound(ctx, input.args.project, o, command) }
}
