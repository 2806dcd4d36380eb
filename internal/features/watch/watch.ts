import { cmd } from '../../base/commands.js'
import { parseDuration } from '../../base/duration.js'
import { UsageError } from '../../base/errors.js'
import { stamp } from '../../base/time.js'
import { defineCommand } from '../../clikit/command.js'
import { waitEnders } from '../../clikit/context.js'
import { bool, str } from '../../clikit/flags.js'
import { shortRef } from '../../clikit/text.js'
import { projectFilter } from '../../format/ids.js'
import {
  type Change,
  followChanges,
  formatCursor,
  headCursor,
  parseCursor,
  validateCursor,
} from '../../store/journal.js'
import type { TreeChange } from '../../store/treestate.js'
import { followTree, type TreeFollower } from './follow.js'
import type { WatchEventDocT, WatchEventListDocT } from './json.js'

const eventOf = (c: Change): WatchEventDocT => ({
  schema: 'watch-event/v1',
  cursor: c.cursor,
  at: c.at,
  kind: c.kind,
  ref: c.ref,
  actor: c.actor,
  summary: c.summary,
  id: c.id,
  project: c.project,
  from: c.from ?? null,
  to: c.to ?? null,
  source: 'dacli',
})

/** A change found in the files that no journal line explains: made by hand, by git, or by `record pull`. */
const externalOf = (c: TreeChange, cursor: string, at: string): WatchEventDocT => ({
  schema: 'watch-event/v1',
  cursor,
  at,
  kind: c.kind,
  ref: c.ref,
  actor: null,
  summary: c.summary,
  id: c.id,
  project: c.project,
  from: c.from ?? null,
  to: c.to ?? null,
  source: 'external',
})

/** `--timeout`: a duration, or 0 for "look once". */
function timeoutOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  if (/^0+(?:ms|s|m|h|d|w)?$/.test(text)) return 0
  const ms = parseDuration(text)
  if (ms === null) {
    throw new UsageError(`--timeout must be a duration such as 30s, 10m or 2h, or 0 to look once; got "${text}"`, {
      details: { flag: '--timeout', value: text },
    })
  }
  return ms
}

export const watch = defineCommand({
  path: 'watch',
  summary: 'Follow the workspace: every change, by any process, as it happens',
  description:
    "Prints each change to the workspace as it is written — by any dacli process, any identity — within a second: task created, changed or moved, claims taken and released, notes, events, questions asked and answered. With --jsonl, one watch-event/v1 object per line; each carries a `cursor`, and --since <cursor> resumes right after that change, with nothing lost and nothing repeated (a cursor from another change journal is refused, exit 3). Runs until Ctrl-C or --timeout, then exits 0. With --json it prints one watch-event-list/v1 document when it stops (with --timeout 0: what changed since the cursor, at once). Changes made outside dacli — a hand edit, `mv` or `rm` of a task file, `git checkout` or `git pull`, `record pull` — are seen too, by comparing the task files with their last known state, and carry `source: external` (dacli's own carry `source: dacli` and their author); they are seen only while the watch runs, so --since replays dacli's changes only. DACLI_WATCH_POLL=1 compares by polling instead of watching the folders.",
  args: [],
  flags: {
    jsonl: bool('one watch-event/v1 JSON object per line, as changes happen'),
    since: str('resume right after this change (the `cursor` of the last event you saw)', { valueName: 'CURSOR' }),
    project: str('only changes in this project', { valueName: 'SLUG' }),
    timeout: str('stop after this long, e.g. 30s or 10m (0: read what is there and stop)', {
      valueName: 'DUR',
      defaultText: 'run until Ctrl-C',
    }),
  },
  json: 'watch-event-list/v1',
  streams: 'watch-event/v1',
  mutates: false,
  examples: [
    'dacli watch',
    'dacli watch --jsonl --project ledger',
    'dacli watch --jsonl --since 3f9a1c0b2e4d:18244',
    'dacli watch --json --since 3f9a1c0b2e4d:18244 --timeout 0',
  ],
  async run(ctx, input) {
    const { since } = input.flags
    const timeout = timeoutOf(input.flags.timeout)
    const project = projectFilter(input.flags.project)
    if (ctx.json && timeout === undefined && input.flags.jsonl !== true) {
      // Without an end, --json would print nothing until Ctrl-C; say so rather than hang an automation.
      ctx.notes.note('--json prints its document when the watch stops: give --timeout (0 reads what is there)')
    }
    const store = await ctx.store()
    if (project !== undefined) store.requireProject(project)
    const from = since === undefined ? headCursor(store.dir) : parseCursor(since)
    if (since !== undefined) validateCursor(store.dir, from)
    const interrupt = ctx.interrupt()
    if (interrupt === null && timeout === undefined) {
      throw new UsageError('watch runs until interrupted, and nothing can interrupt it here: give --timeout', {
        next: [cmd(`watch --json --timeout 0${since === undefined ? '' : ` --since ${since}`}`)],
      })
    }
    const enders = waitEnders(ctx)
    const signals = [...enders]
    if (timeout !== undefined) signals.push(AbortSignal.timeout(timeout))
    const stop = AbortSignal.any(signals)
    // The files are compared only while the watch runs (a look once has nothing to compare with).
    const tree: TreeFollower | null =
      timeout === 0
        ? null
        : await followTree(store, { platform: ctx.system.platform, poll: ctx.env.DACLI_WATCH_POLL === '1' })
    if (!ctx.json) ctx.notes.note(`watching ${store.root} from ${formatCursor(from)} (Ctrl-C to stop)`)
    const seen: WatchEventDocT[] = []
    const show = (e: WatchEventDocT) => {
      if (project !== undefined && e.project !== project) return
      if (ctx.json) seen.push(e)
      ctx.emit(e, (out) =>
        out.line(
          `${out.style('dim', e.at.slice(11, 19))}  ${e.kind.padEnd(17)}  ${e.ref === null ? '-' : shortRef(e.ref)}  ${out.style('dim', e.actor ?? (e.source === 'external' ? '(external)' : '-'))}  ${e.summary}`,
        ),
      )
    }
    let at = formatCursor(from)
    let last: ReturnType<typeof parseCursor>
    try {
      last = await followChanges(store.dir, from, {
        signal: stop,
        onChanges(changes) {
          tree?.explained(changes)
          for (const c of changes) show(eventOf(c))
          at = (changes.at(-1) as Change).cursor
        },
        ...(tree === null
          ? {}
          : {
              woken: () => tree.woken(),
              async afterLook() {
                for (const c of await tree.look()) show(externalOf(c, at, stamp(ctx.now())))
              },
            }),
      })
    } finally {
      tree?.close()
    }
    const data: WatchEventListDocT = {
      schema: 'watch-event-list/v1',
      since: formatCursor(from),
      cursor: formatCursor(last),
      project: project ?? null,
      events: seen.map(({ schema: _s, ...e }) => e),
      // Stopped early: Ctrl-C, or the caller gave up on the call (an MCP cancel, the server closing).
      ended: enders.some((s) => s.aborted) ? 'interrupted' : 'timeout',
    }
    return { data }
  },
})
