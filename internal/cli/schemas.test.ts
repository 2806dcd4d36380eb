// Published schemas are generated from the zod definitions the code uses and
// checked in under schemas/. This test fails when they drift; regenerate
// deliberately with UPDATE_GOLDEN=1 and review the diff (COMPATIBILITY.md).

import * as path from 'node:path'
import { expect, test } from 'vitest'
import { expectGolden, expectOnlyGoldens } from '../testkit/golden.js'
import { REPO_ROOT } from '../testkit/ws.js'
import { registry } from './documents.js'

const dir = path.join(REPO_ROOT, 'schemas')

test('schemas/ holds exactly the generated schema of every document', () => {
  const generated = registry.jsonSchemas()
  const files = new Map(
    Object.entries(generated).map(([id, s]) => [
      `${id.replace('/', '.')}.schema.json`,
      `${JSON.stringify(s, null, 2)}\n`,
    ]),
  )
  expectOnlyGoldens(dir, new Set(files.keys()))
  for (const [f, text] of files) expectGolden(path.join(dir, f), text)
})

test('every document id is name/vN and every schema pins its id with a const', () => {
  for (const [id, s] of Object.entries(registry.jsonSchemas())) {
    expect(id).toMatch(/^[a-z][a-z0-9-]*\/v[1-9][0-9]*$/)
    const props = (s as { properties?: Record<string, { const?: unknown }> }).properties
    expect(props?.schema?.const).toBe(id)
    expect(s.$schema).toBe('https://json-schema.org/draft/2020-12/schema')
  }
})
