import { arg, defineCommand } from '../../clikit/command.js'
import type { ShortcutDocT } from './json.js'
import { loadShortcut } from './load.js'

export const show = defineCommand({
  path: 'shortcut show',
  summary: 'One shortcut: its parameters and its steps, checked against the command table',
  description:
    'Reads .dacli/shortcuts/<name>.md (FORMAT.md). A step that names no command, or a flag its command does not declare, is refused (exit 1) naming the file and the line.',
  args: [arg('name', 'the shortcut')],
  flags: {},
  json: 'shortcut/v1',
  mutates: false,
  examples: ['dacli shortcut show start --json'],
  async run(ctx, input) {
    const s = loadShortcut(await ctx.store(), ctx.table, input.args.name)
    const data: ShortcutDocT = {
      schema: 'shortcut/v1',
      name: s.name,
      path: s.path,
      title: s.title,
      description: s.description,
      params: s.params.map((p) => ({
        name: p.name,
        required: p.default === null,
        default: p.default,
        description: p.description,
      })),
      steps: s.steps.map((st) => ({ n: st.n, line: st.line, text: st.text, path: st.path, mutates: st.mutates })),
      mutates: s.steps.some((st) => st.mutates),
    }
    return {
      data,
      human(out) {
        out.line(`${out.style('bold', data.name)}  ${data.title}`)
        if (data.description !== null) out.line(data.description)
        for (const p of data.params)
          out.line(
            `  --${p.name}${p.default === null ? ' (required)' : ` (default: ${p.default})`}${p.description === null ? '' : `  ${p.description}`}`,
          )
        for (const st of data.steps)
          out.line(`${st.n}. ${st.text}${st.mutates ? out.style('dim', '  (writes: needs --confirm)') : ''}`)
      },
    }
  },
})
