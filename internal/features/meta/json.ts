// Wire shapes of the meta slice's documents (zod; loaded only to publish schemas and in tests).

import { z } from 'zod'

export const InitDoc = z.strictObject({
  schema: z.literal('init/v1'),
  id: z.string().describe('the workspace id (a ULID)'),
  name: z.string(),
  root: z.string().describe('absolute path of the folder holding .dacli/'),
  path: z.string().describe('absolute path of .dacli/'),
  format: z.literal(0),
  record_branch: z.string(),
  in_git: z.boolean().describe('the workspace was created inside a git work tree'),
  identity: z.string().describe('the identity that created it (always a-root)'),
})

const CatalogFlag = z.strictObject({
  name: z.string(),
  type: z.enum(['string', 'int', 'bool', 'duration', 'enum']),
  takes_value: z.boolean(),
  repeatable: z.boolean(),
  required: z.boolean(),
  values: z.array(z.string()).nullable(),
  description: z.string(),
})

export const CatalogDoc = z.strictObject({
  schema: z.literal('catalog/v1'),
  commands: z.array(
    z.strictObject({
      path: z.string(),
      summary: z.string(),
      usage: z.string(),
      json: z.string().nullable(),
      mutates: z.boolean(),
      proposes: z.boolean(),
      args: z.array(z.strictObject({ name: z.string(), required: z.boolean(), description: z.string() })),
      flags: z.array(CatalogFlag),
    }),
  ),
})

export const SchemaListDoc = z.strictObject({
  schema: z.literal('schema-list/v1'),
  schemas: z.array(z.strictObject({ id: z.string(), version: z.number().int(), file: z.string() })),
})

export const VersionDoc = z.strictObject({
  schema: z.literal('version/v1'),
  name: z.literal('dacli'),
  version: z.string(),
  node: z.string(),
  platform: z.string().describe('<os>-<arch>'),
  format: z.number().int().describe('the on-disk format version this binary reads and writes'),
})

export type InitDocT = z.infer<typeof InitDoc>
export type CatalogDocT = z.infer<typeof CatalogDoc>
export type SchemaListDocT = z.infer<typeof SchemaListDoc>
export type VersionDocT = z.infer<typeof VersionDoc>

const IdVersion = z.strictObject({ id: z.string(), version: z.number().int() })

export const CapabilitiesDoc = z.strictObject({
  schema: z.literal('capabilities/v2'),
  binary: z.strictObject({ name: z.literal('dacli'), version: z.string(), node: z.string(), platform: z.string() }),
  state_schemas: z.array(IdVersion).describe('on-disk formats: state.workspace (FORMAT.md), state.event'),
  prompt_schemas: z
    .array(IdVersion)
    .describe('prompts written for agents: prompt.context-brief (the context brief’s markdown layout)'),
  commands: z.array(
    z.strictObject({
      id: z.string().describe('cli.command.<path with dots>'),
      path: z.string(),
      summary: z.string(),
      usage: z.string(),
      json: z.boolean().describe('honours --json (the seed’s json: true)'),
      json_schema: z.string().nullable().describe('the document id --json prints (task/v1), null without --json'),
      mutates: z.boolean(),
      schema_version: z.number().int(),
      aliases: z
        .array(
          z.strictObject({
            id: z.string().describe('the old spelling’s id: cli.command.<old path> or cli.command.<path>.flag.<old>'),
            name: z.string().describe('the old spelling: a command path (events tail) or a flag (--brief-tokens)'),
            replaced_by: z.string().describe('what to write instead: the command path or the flag'),
            removed_in: z.string().describe('the release that drops the old spelling'),
            why: z.string(),
          }),
        )
        .describe('old names that still work, with a warning on stderr, until removed_in'),
      flags: z.array(
        z.strictObject({
          id: z.string().describe('cli.command.<path>.flag.<name>'),
          name: z.string(),
          takes_value: z.boolean(),
          repeatable: z.boolean(),
        }),
      ),
    }),
  ),
  json_schemas: z.array(IdVersion),
  mcp: z.strictObject({
    protocol_version: z.string().nullable(),
    tool_schema_version: z.number().int().nullable(),
    tools: z.array(
      z.strictObject({
        id: z.string().describe('mcp.tool.<name>'),
        name: z.string(),
        schema_version: z.number().int(),
      }),
    ),
  }),
  adapter_capabilities: z
    .array(z.strictObject({ id: z.string() }))
    .describe('what this build can do at run time; never a claim that a provider is authenticated'),
  required: z.array(z.string()).describe('the ids asked for with --require'),
  missing: z.array(z.string()).describe('required ids this binary lacks (exit 3 when not empty)'),
})

export type CapabilitiesDocT = z.infer<typeof CapabilitiesDoc>

export const CompatibilityReportDoc = z.strictObject({
  schema: z.literal('compatibility-report/v1'),
  compatible: z.boolean(),
  requirements: z.string().describe('the requirements document that was checked (the only file named)'),
  binary: z.strictObject({ name: z.literal('dacli'), version: z.string(), path: z.string().nullable() }),
  required: z.array(
    z.strictObject({
      id: z.string(),
      present: z.boolean().describe('the id is in this binary, at any schema version (available_version says which)'),
      schema_version: z.number().int().nullable(),
      available_version: z.number().int().nullable(),
    }),
  ),
  optional: z.array(
    z.strictObject({
      id: z.string(),
      present: z.boolean().describe('the id is in this binary, at any schema version (available_version says which)'),
      schema_version: z.number().int().nullable(),
      available_version: z.number().int().nullable(),
      fallback: z.string().nullable().describe('what the skill does instead when it is missing'),
    }),
  ),
  incompatible: z
    .array(z.strictObject({ id: z.string(), reason: z.string() }))
    .describe('required ids missing or at another schema version'),
})

export type CompatibilityReportDocT = z.infer<typeof CompatibilityReportDoc>

export const documents = {
  'capabilities/v2': CapabilitiesDoc,
  'compatibility-report/v1': CompatibilityReportDoc,
  'init/v1': InitDoc,
  'version/v1': VersionDoc,
  'catalog/v1': CatalogDoc,
  'schema-list/v1': SchemaListDoc,
}
