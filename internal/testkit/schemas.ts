// Validating real output against the published JSON Schemas (ajv, draft 2020-12).

import * as fs from 'node:fs'
import * as path from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { REPO_ROOT, type Run, type RunOpts, type Workspace } from './ws.js'

let ajv: Ajv2020 | undefined

/** The checked-in schema for a document id (`task/v1` → schemas/task.v1.schema.json). */
function publishedSchema(id: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'schemas', `${id.replace('/', '.')}.schema.json`), 'utf8'))
}

/** Throws with ajv's errors when `doc` does not match its schema (picked by its `schema` field unless given). */
export function expectValid(doc: unknown, id?: string): void {
  ajv ??= (() => {
    const a = new Ajv2020({ strict: true, allErrors: true })
    ;(addFormats as unknown as (a: Ajv2020) => void)(a)
    return a
  })()
  const sid = id ?? (doc as { schema?: string }).schema
  if (typeof sid !== 'string') throw new Error(`document has no schema id: ${JSON.stringify(doc).slice(0, 200)}`)
  const schema = publishedSchema(sid)
  const validate = ajv.getSchema(schema.$id as string) ?? ajv.compile(schema)
  if (!validate(doc)) {
    throw new Error(
      `${sid} document does not match its published schema:\n${JSON.stringify(validate.errors, null, 2)}\n${JSON.stringify(doc).slice(0, 2000)}`,
    )
  }
}

/**
 * `ws.dacli(...args, '--json')` (a trailing options object stays last), the document on stdout checked against its
 * published schema whenever there is one: a success, or a verdict such as `doctor --strict`'s exit 1.
 */
export async function dacliJson(ws: Workspace, ...args: (string | RunOpts)[]): Promise<Run> {
  const last = args[args.length - 1]
  const r =
    typeof last === 'object' ? await ws.dacli(...args.slice(0, -1), '--json', last) : await ws.dacli(...args, '--json')
  if (r.stdout.trim() !== '') expectValid(r.json)
  return r
}
