import { cmd } from '../../base/commands.js'
import { NotFoundError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import type { SchemaListDocT } from './json.js'

/** `task/v1` → `task.v1.schema.json` */
const schemaFile = (id: string) => `${id.replace('/', '.')}.schema.json`

export const schema = defineCommand({
  path: 'schema',
  summary: 'Print a published JSON Schema (draft 2020-12), or list them',
  description:
    'Every --json document has a JSON Schema generated from the same definition the code uses and published under schemas/. `dacli schema <id>` prints one (the schema itself, with or without --json); without an id, the list.',
  args: [{ name: 'id', description: 'a document id such as task/v1', required: false }],
  flags: {},
  json: 'schema-list/v1',
  mutates: false,
  standalone: true,
  examples: ['dacli schema', 'dacli schema task/v1'],
  async run(ctx, input) {
    const all = (await ctx.documents()).jsonSchemas()
    const ids = Object.keys(all).sort()
    const id = input.args.id
    if (id !== undefined) {
      const s = all[id]
      if (s === undefined) {
        throw new NotFoundError(`no published schema "${id}"`, { details: { known: ids }, next: [cmd('schema')] })
      }
      return { data: s, human: (out) => out.line(JSON.stringify(s, null, 2)) }
    }
    const data: SchemaListDocT = {
      schema: 'schema-list/v1',
      schemas: ids.map((i) => ({ id: i, version: Number(i.split('/v')[1]), file: `schemas/${schemaFile(i)}` })),
    }
    return {
      data,
      human: (out) =>
        out.table(
          ['SCHEMA', 'FILE'],
          data.schemas.map((s) => [s.id, s.file]),
        ),
    }
  },
})
