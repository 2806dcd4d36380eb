import { expect, test } from 'vitest'
import { projectDocument, statusCounts } from './projectdoc.js'

test('project document: counts by status, the total is their sum, removed is carried', () => {
  const counts = statusCounts([{ status: 'open' }, { status: 'done' }, { status: 'open' }, { status: 'blocked' }])
  expect(counts).toEqual({ open: 2, active: 0, blocked: 1, done: 1 })
  const p = {
    id: 'p-1',
    slug: 'ledger',
    title: 'Ledger',
    status: 'active',
    stage: 'definition',
    sections: { goal: 'No drift' },
    github: null,
    created: null,
    created_by: null,
    path: '.dacli/projects/ledger/project.md',
  } as unknown as Parameters<typeof projectDocument>[0]
  const d = projectDocument(p, counts, true)
  expect(d).toMatchObject({ schema: 'project/v1', slug: 'ledger', total: 4, goal: 'No drift', removed: true })
})
