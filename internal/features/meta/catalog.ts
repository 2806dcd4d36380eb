import { byText } from '../../base/order.js'
import { defineCommand } from '../../clikit/command.js'
import { catalogEntry } from '../../clikit/help.js'
import type { CatalogDocT } from './json.js'

export const catalog = defineCommand({
  path: 'catalog',
  summary: 'List every command with its usage, flags, JSON schema and grant',
  args: [],
  flags: {},
  json: 'catalog/v1',
  mutates: false,
  standalone: true,
  async run(ctx) {
    const cmds = [...ctx.table].sort((a, b) => byText(a.path, b.path)).map(catalogEntry)
    const data: CatalogDocT = { schema: 'catalog/v1', commands: cmds }
    return {
      data,
      human(out) {
        out.table(
          ['COMMAND', 'GRANT', 'JSON', 'SUMMARY'],
          cmds.map((c) => [c.path, c.mutates ? (c.proposes ? 'rw*' : 'rw') : 'ro', c.json ?? '-', c.summary]),
        )
        out.line('')
        out.line(
          out.style('dim', 'rw = needs a read-write grant; rw* = a read-only identity’s call becomes a proposal'),
        )
      },
    }
  },
})
