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

export const documents = {
  'init/v1': InitDoc,
  'version/v1': VersionDoc,
  'catalog/v1': CatalogDoc,
  'schema-list/v1': SchemaListDoc,
}

export type InitDocT = z.infer<typeof InitDoc>
export type CatalogDocT = z.infer<typeof CatalogDoc>
export type SchemaListDocT = z.infer<typeof SchemaListDoc>
export type VersionDocT = z.infer<typeof VersionDoc>
