import { cmd } from '../../base/commands.js'
import { UsageError } from '../../base/errors.js'
import { byText } from '../../base/order.js'
import { VERSION } from '../../base/version.js'
import { defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { allHelp, catalogEntry, commandHelp, families, familyHelp, rootHelp } from '../../clikit/help.js'
import type { CatalogDocT } from './json.js'

export const help = defineCommand({
  path: 'help',
  summary: 'Show help for dacli, a command family or one command',
  args: [{ name: 'topic', description: 'a family (task) or a command path (task claim)', required: false, rest: true }],
  flags: { all: bool('list every command') },
  json: 'catalog/v1',
  mutates: false,
  standalone: true,
  examples: ['dacli help', 'dacli help --all', 'dacli help task', 'dacli help task claim'],
  async run(ctx, input) {
    const topic = input.args.topic
    const table = ctx.table
    let selected = table
    let text: string
    if (topic === undefined) {
      text = input.flags.all === true ? allHelp(table, ctx.width) : rootHelp(table, VERSION, ctx.width)
    } else {
      const exact = table.find((c) => c.path === topic)
      if (exact) {
        selected = [exact]
        text = commandHelp(await exact.load(), ctx.width)
      } else if (families(table).has(topic)) {
        selected = table.filter((c) => c.path.startsWith(`${topic} `))
        text = familyHelp(topic, table, ctx.width)
      } else {
        throw new UsageError(`no command or family "${topic}"`, { next: [cmd('help --all')] })
      }
    }
    const data: CatalogDocT = {
      schema: 'catalog/v1',
      commands: [...selected].sort((a, b) => byText(a.path, b.path)).map(catalogEntry),
    }
    return { data, text: text.replace(/\n$/, '') }
  },
})
