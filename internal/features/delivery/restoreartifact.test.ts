// `cleanup --restore` reads an artifact that may have been edited by hand or come from another clone: one that is
// not JSON or not an artifact's shape is refused (2) naming the file, never an internal error, and nothing moves.

import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

test('a broken or misshapen restore artifact is a usage error naming the file, and nothing changes', async () => {
  const ws = await workspace()
  ws.write('.dacli/cleanup/broken/restore.json', '{oops\n')
  ws.write('.dacli/cleanup/shapeless/restore.json', '{"schema":"dacli-cleanup-artifact/v1"}\n')
  ws.write(
    '.dacli/cleanup/badkind/restore.json',
    '{"schema":"dacli-cleanup-artifact/v1","id":"badkind","candidates":[{"kind":"rm_rf","subject":"x","sha":null,"remote":null,"branch":null,"reason":""}]}\n',
  )
  const before = ws.snapshot()
  for (const id of ['broken', 'shapeless', 'badkind']) {
    const r = (await ws.dacli('cleanup', '--restore', id, '--json')).expectExit(2)
    expect(r.error.message).toContain(`.dacli/cleanup/${id}/restore.json`)
    expect(r.error.message).not.toContain('internal error')
  }
  expect(ws.snapshot()).toEqual(before)
})
