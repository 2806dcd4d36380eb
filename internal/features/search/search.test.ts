// search: ranked, with snippets, over tasks, notes, risks and open questions; filters; refusals.

import { describe, expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { workspace } from '../../testkit/ws.js'

async function setup() {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  await ws.ok('project', 'add', 'Web', '--slug', 'web')
  await ws.ok(
    'task',
    'add',
    'Rounding of refunds in the ledger',
    '--project',
    'ledger',
    '--accept',
    'refunds round half even',
    '--label',
    'billing',
  )
  await ws.ok('task', 'add', 'Refunds', '--project', 'ledger', '--accept', 'listed', '--force')
  await ws.ok(
    'task',
    'add',
    'Export monthly report',
    '--project',
    'ledger',
    '--context',
    'Finance asks for refunds per month in the export.',
    '--accept',
    'csv',
  )
  await ws.ok('task', 'add', 'Login page', '--project', 'web', '--accept', 'works', '--label', 'security')
  await ws.ok(
    'note',
    'add',
    'decision',
    'Store refunds as negative entries',
    '--project',
    'ledger',
    '--chose',
    'negative amounts',
    '--rejected',
    'a separate refunds table',
    '--because',
    'one sum',
  )
  await ws.ok(
    'risk',
    'add',
    'Refunds drift from the bank',
    '--project',
    'ledger',
    '--impact',
    'high',
    '--likelihood',
    'medium',
    '--action',
    'reconcile nightly',
  )
  await ws.ok('ask', 'Should partial refunds keep the original tax rate?', '--about', 'ledger/1')
  return ws
}

describe('search', () => {
  test('an exact title match ranks first; every kind is searched; snippets show the match', async () => {
    const ws = await setup()
    const doc = (await ws.ok('search', 'refunds', '--json')).json
    expectValid(doc)
    expect(doc.results[0]).toMatchObject({
      kind: 'task',
      ref: 'ledger/002-refunds',
      field: 'title',
      snippet: 'Refunds',
    })
    expect(doc.results[0].score).toBeGreaterThan(1000)
    const kinds = doc.results.map((r: { kind: string }) => r.kind)
    expect(new Set(kinds)).toEqual(new Set(['task', 'note', 'risk', 'question']))
    const exportTask = doc.results.find((r: { title: string }) => r.title === 'Export monthly report')
    expect(exportTask).toMatchObject({ field: 'context', snippet: 'Finance asks for refunds per month in the export.' })
    // A title hit outranks a body-only hit.
    const titles = doc.results.map((r: { title: string }) => r.title)
    expect(titles.indexOf('Rounding of refunds in the ledger')).toBeLessThan(titles.indexOf('Export monthly report'))
    expect(doc.total).toBe(doc.results.length)
    const human = (await ws.ok('search', 'refunds')).stdout
    expect(human.split('\n')[0]).toMatch(/^ledger\/2\s+task · open\s+Refunds$/)
  })

  test('every word must match (a prefix counts); filters narrow; --limit announces the rest', async () => {
    const ws = await setup()
    expect(
      (await ws.ok('search', 'refunds', 'ledger', '--json')).json.results.map((r: { title: string }) => r.title),
    ).toEqual(['Rounding of refunds in the ledger'])
    expect((await ws.ok('search', 'logi', '--json')).json.results[0]).toMatchObject({ title: 'Login page' })
    expect((await ws.ok('search', 'refunds', '--kind', 'note', '--json')).json.results).toHaveLength(1)
    const labelled = (await ws.ok('search', 'refunds', '--label', 'billing', '--json')).json
    expect(labelled.filters).toEqual({ project: null, kind: 'task', status: [], label: ['billing'] })
    expect(labelled.results.map((r: { ref: string }) => r.ref)).toEqual([
      'ledger/001-rounding-of-refunds-in-the-ledger',
    ])
    expect((await ws.ok('search', 'refunds', '--status', 'done', '--json')).json.results).toEqual([])
    expect((await ws.ok('search', 'login', '--project', 'ledger', '--json')).json.results).toEqual([])
    const page = (await ws.ok('search', 'refunds', '--limit', '1', '--json')).json
    expect(page).toMatchObject({ limit: 1, truncated: true })
    expect(page.results).toHaveLength(1)
    expect(page.total).toBeGreaterThan(1)
  })

  test('bad input: no word, a kind that cannot take --label, an unknown project', async () => {
    const ws = await setup()
    expect((await ws.dacli('search', '!!!', '--json')).expectExit(2).error.message).toMatch(/no word/)
    ;(await ws.dacli('search', 'x', '--kind', 'note', '--label', 'billing', '--json')).expectExit(2)
    ;(await ws.dacli('search', 'x', '--kind', 'thing', '--json')).expectExit(2)
    ;(await ws.dacli('search', 'x', '--project', 'nope', '--json')).expectExit(4)
    ;(await ws.dacli('search', '--json')).expectExit(2)
  })
})
