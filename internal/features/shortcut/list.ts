import { classifiedError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import type { ShortcutListDocT } from './json.js'
import { loadShortcut, shortcutNames } from './load.js'

export const list = defineCommand({
  path: 'shortcut list',
  summary: 'Every shortcut with its parameters; files that cannot be read are listed with why',
  description:
    'One line per .dacli/shortcuts/<name>.md; a file refused at load (a step naming no command, an unknown flag) is listed under skipped with the file and the line.',
  args: [],
  flags: {},
  json: 'shortcut-list/v1',
  mutates: false,
  examples: ['dacli shortcut list'],
  async run(ctx) {
    const store = await ctx.store()
    const data: ShortcutListDocT = { schema: 'shortcut-list/v1', shortcuts: [], skipped: [] }
    for (const name of shortcutNames(store)) {
      try {
        const s = loadShortcut(store, ctx.table, name)
        data.shortcuts.push({
          name,
          title: s.title,
          params: s.params.map((p) => p.name),
          steps: s.steps.length,
          mutates: s.steps.some((st) => st.mutates),
        })
      } catch (e) {
        if (classifiedError(e) === null) throw e
        const reason = e instanceof Error ? e.message : String(e)
        data.skipped.push({ name, reason })
        ctx.notes.warn(`skipped shortcut ${name}: ${reason}`)
      }
    }
    return {
      data,
      human(out) {
        if (data.shortcuts.length === 0)
          out.line('no shortcuts yet (FORMAT.md, "Shortcut": .dacli/shortcuts/<name>.md)')
        for (const s of data.shortcuts)
          out.line(
            `${out.style('bold', s.name)}  ${s.title}  ${out.style('dim', `${s.steps} step${s.steps === 1 ? '' : 's'}${s.params.length > 0 ? `, --${s.params.join(' --')}` : ''}${s.mutates ? ', writes' : ''}`)}`,
          )
      },
    }
  },
})
