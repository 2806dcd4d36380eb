// autorecord (`autorecord: true` in config.yml): after every successful mutating
// command, record the workspace on the record branch — one commit per command,
// `dacli: <command path> <ref>`. The bin and the test kit both install this one
// function as `Runtime.afterMutation` (through services.ts, lazily).

import type { CommandEntry, Input } from '../internal/clikit/command.js'
import type { Context } from '../internal/clikit/context.js'

/** The reference a command's document is about: `ref`, `task.ref`, `slug` or `id`. */
function refOfDocument(data: unknown): string | null {
  if (data === null || typeof data !== 'object') return null
  const d = data as Record<string, unknown>
  const task = d.task !== null && typeof d.task === 'object' ? (d.task as Record<string, unknown>) : null
  for (const v of [d.ref, task?.ref, d.slug, d.id]) if (typeof v === 'string' && v !== '') return v
  return null
}

/** Record after `command` succeeded (services.ts has checked that the workspace wants it: `wantsRecord`). */
export async function autorecord(ctx: Context, command: CommandEntry, _input: Input, data: unknown): Promise<void> {
  try {
    const store = await ctx.store()
    const { recordWorkspace, oneLine } = await import('../internal/domain/record/record.js')
    const ref = refOfDocument(data)
    const what = oneLine(ref === null ? command.path : `${command.path} ${ref}`)
    await recordWorkspace(store, await ctx.git(), await ctx.identity(), {
      message: `dacli: ${what}`,
      command: what,
      now: ctx.now(),
    })
  } catch (e) {
    // The command itself succeeded; failing it now would misreport a change that was made.
    ctx.notes.warn(
      `${command.path} succeeded but was not recorded on the record branch (${(e as Error).message}); run \`dacli record\``,
    )
  }
}
