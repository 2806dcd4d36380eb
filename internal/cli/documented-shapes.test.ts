// The documented JSON shapes still parse (COMPATIBILITY.md; the seed's
// TestDocumentedJSONShapesStillParse): the examples of `context`, `task list` and
// `metrics` in README.md ("Documented shapes") are valid documents of their
// published schemas, and the built bin, run as each example says on a workspace
// built the same way, emits every documented field with the documented type.
// An extra emitted field is not a failure (additive only); a missing or retyped one is.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { expectValid } from '../testkit/schemas.js'
import { REPO_ROOT, type Workspace, workspace } from '../testkit/ws.js'

/** `<!-- documented-shape: id -->` followed by a json fence, in a markdown text. */
function documentedShapes(markdown: string): Map<string, unknown> {
  const out = new Map<string, unknown>()
  const re = /<!-- documented-shape: ([a-z][a-z0-9-]*\/v\d+) -->\n```json\n([\s\S]*?)\n```/g
  for (const m of markdown.matchAll(re)) out.set(m[1] as string, JSON.parse(m[2] as string))
  return out
}

const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)

/**
 * Where `emitted` departs from the documented example: a documented field it lacks, or one of another JSON type.
 * Array items are compared with the documented item at the same index (the last one past its end).
 */
function shapeMismatches(documented: unknown, emitted: unknown, at = '$'): string[] {
  const d = kind(documented)
  const e = kind(emitted)
  if (d !== e) return [`${at}: documented ${d}, emitted ${e}`]
  if (d === 'array') {
    const doc = documented as unknown[]
    const em = emitted as unknown[]
    if (doc.length === 0) return []
    return em.flatMap((item, i) => shapeMismatches(doc[Math.min(i, doc.length - 1)], item, `${at}[${i}]`))
  }
  if (d === 'object') {
    const doc = documented as Record<string, unknown>
    const em = emitted as Record<string, unknown>
    return Object.keys(doc).flatMap((k) =>
      k in em ? shapeMismatches(doc[k], em[k], `${at}.${k}`) : [`${at}.${k}: documented, not emitted`],
    )
  }
  return []
}

const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8')
const shapes = documentedShapes(readme)

describe('documented JSON shapes still parse', () => {
  let ws: Workspace

  beforeAll(async () => {
    // The README's sequence: a project whose first task is claimed, verified and closed with --tokens 1500, a
    // second that depends on it, a third removed.
    ws = await workspace()
    await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger', '--goal', 'Refunds reconcile at month end')
    await ws.ok(
      'task',
      'add',
      'Round refunds',
      '--project',
      'ledger',
      '--accept',
      'rounded half-even',
      '--estimate',
      '1,2,4',
      '--priority',
      'must',
    )
    await ws.ok('task', 'add', 'Audit paths', '--project', 'ledger', '--accept', 'listed', '--depends-on', '1')
    await ws.ok('task', 'add', 'Drop legacy export', '--project', 'ledger', '--accept', 'gone')
    await ws.ok('task', 'claim', 'ledger/1', '--lease', '2h')
    await ws.ok('task', 'check', 'ledger/1', '--all', '--verify', 'true')
    await ws.ok('task', 'done', 'ledger/1', '--tokens', '1500')
    await ws.ok('task', 'rm', 'ledger/3')
  })

  test('README documents context, task list and metrics, each a valid document of its published schema', () => {
    expect([...shapes.keys()].sort()).toEqual(['context/v1', 'metrics/v1', 'task-list/v1'])
    for (const [id, doc] of shapes) {
      expect((doc as { schema: string }).schema).toBe(id)
      expectValid(doc)
    }
    // The example keeps the promise it documents: the whole markdown fits the budget it names.
    const context = shapes.get('context/v1') as { budget: number; estimated_tokens: number }
    expect(context.estimated_tokens).toBeLessThanOrEqual(context.budget)
  })

  test.each([
    ['context/v1', ['context', 'ledger/2', '--budget', '150']],
    ['task-list/v1', ['task', 'list', '--project', 'ledger']],
    ['metrics/v1', ['metrics', '--project', 'ledger', '--since', '1d']],
  ])('the bin emits every documented field of %s with its type', (id, argv) => {
    const r = ws.spawn([...argv, '--json']).expectExit(0)
    expectValid(r.json)
    expect(shapeMismatches(shapes.get(id), r.json)).toEqual([])
  })

  test('the comparison fails on a missing or retyped field and tolerates an extra one', () => {
    const documented = { schema: 'x/v1', a: 1, b: { c: 'x', d: null }, list: [{ n: 1 }] }
    expect(shapeMismatches(documented, { ...documented, extra: true })).toEqual([])
    expect(shapeMismatches(documented, { schema: 'x/v1', a: '1', b: { d: 0 }, list: [{ n: 1 }, {}] })).toEqual([
      '$.a: documented number, emitted string',
      '$.b.c: documented, not emitted',
      '$.b.d: documented null, emitted number',
      '$.list[1].n: documented, not emitted',
    ])
    // A metrics measure fabricated as 0 where the documented example has null is caught.
    const metrics = shapes.get('metrics/v1') as { tokens: Record<string, unknown> }
    expect(shapeMismatches(metrics, { ...metrics, tokens: { ...metrics.tokens, budget: 0 } })).toEqual([
      '$.tokens.budget: documented null, emitted number',
    ])
  })
})
