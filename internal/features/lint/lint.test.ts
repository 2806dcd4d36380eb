import { beforeEach, describe, expect, test } from 'vitest'
import { ledgerPlan } from '../../testkit/ledger.js'
import { dacliJson } from '../../testkit/schemas.js'
import type { RunOpts, Workspace } from '../../testkit/ws.js'

let ws: Workspace
const j = (...args: (string | RunOpts)[]) => dacliJson(ws, ...args)

beforeEach(async () => {
  ws = await ledgerPlan()
})

describe('lint', () => {
  test('lint finds missing criteria and vague wording; decisions and risks too; exit 0', async () => {
    ;(await ws.dacli('task', 'add', 'Make export fast', '--project', 'ledger')).expectExit(0)
    ;(await ws.dacli('task', 'edit', '1', '--accept', 'works properly etc.')).expectExit(0)
    ;(
      await ws.dacli('risk', 'add', 'Outage', '--project', 'ledger', '--impact', 'high', '--likelihood', 'high')
    ).expectExit(0)
    const l = (await j('lint')).expectExit(0).json
    const pairs = l.findings.map((f: { code: string; subject: string }) => `${f.code} ${f.subject}`)
    expect(pairs).toContain('no-acceptance-criteria ledger/005-make-export-fast')
    expect(pairs).toContain('ambiguous-title ledger/005-make-export-fast')
    expect(pairs).toContain('ambiguous-criterion ledger/001-audit-write-paths')
    expect(pairs).toContain('unmanaged-risk ledger/outage')
    expect((await j('lint', 'ledger/2')).json.findings).toEqual([])
    // The table names a task by its short reference; a note or risk by its own.
    const table = (await ws.dacli('lint')).expectExit(0).stdout
    expect(table).toMatch(/^\S+\s+no-acceptance-criteria\s+ledger\/5\s/m)
    expect(table).not.toContain('ledger/005-make-export-fast')
    expect(table).toMatch(/unmanaged-risk\s+ledger\/outage\s/)
  })

  test('an unknown --project is not found (4), with a task reference too', async () => {
    expect((await j('lint', '--project', 'nope')).code).toBe(4)
    expect((await j('lint', 'ledger/2', '--project', 'nope')).code).toBe(4)
    expect((await j('lint', '2', '--project', 'ledger')).code).toBe(0)
  })
})
