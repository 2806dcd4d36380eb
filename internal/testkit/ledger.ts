// A small planned backlog the insight, doctor and lint tests start from: project ledger with four sized tasks —
// 1 "Audit write paths" (must), 2 "Build the shim" (must, after 1), 3 "Chart drift" (could), 4 "Write notes"
// (should, FF after 2) — each with one acceptance criterion.

import type { Workspace } from './ws.js'

export async function seedLedgerPlan(ws: Workspace): Promise<void> {
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger', '--goal', 'No month-end drift')
  await ws.ok(
    'task',
    'add',
    'Audit write paths',
    '--project',
    'ledger',
    '--priority',
    'must',
    '--estimate',
    '1,2,3',
    '--accept',
    'listed',
  )
  await ws.ok(
    'task',
    'add',
    'Build the shim',
    '--project',
    'ledger',
    '--priority',
    'must',
    '--estimate',
    '3,4,5',
    '--accept',
    'batch covered',
    '--depends-on',
    '1',
  )
  await ws.ok(
    'task',
    'add',
    'Chart drift',
    '--project',
    'ledger',
    '--priority',
    'could',
    '--estimate',
    '1,1,1',
    '--accept',
    'charted',
  )
  await ws.ok(
    'task',
    'add',
    'Write notes',
    '--project',
    'ledger',
    '--priority',
    'should',
    '--estimate',
    '1,2,3',
    '--accept',
    'published',
    '--depends-on',
    '2:FF',
  )
}
