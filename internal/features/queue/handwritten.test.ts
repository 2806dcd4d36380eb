// A queue file is meant to be edited by hand: `queue add` and `queue advance` change only the lines they own (the
// items they add or mark, the log lines, a new title) and keep everything a person wrote around them byte for byte.

import { expect, test } from 'vitest'
import { workspace } from '../../testkit/ws.js'

const FILE = '.dacli/queues/release.md'

const HAND = `---
kind: queue
created: 2026-12-02T13:00:00Z
owner_note: keep me   # a comment
---

# Release 1.2

Why this queue exists, in prose.

## Tasks

- [x] ledger/1
- ledger/2   
* [ ] ledger/3 — spelled by hand

## Notes

Ping ops before ledger/3.

## Log

- 2026-12-02T13:05:00Z a-root done ledger/1
`

test('advance and add keep the frontmatter, prose, other sections and untouched items as written', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger')
  for (const t of ['Schema change', 'Backfill', 'Switch reads', 'Drop old column'])
    await ws.ok('task', 'add', t, '--project', 'ledger', '--accept', 'ok', '--force')
  ws.write(FILE, HAND)
  await ws.ok('queue', 'advance', 'release', '--fail', 'flaky upstream')
  const advanced = ws.file(FILE)
  const logged = /^- \S+ a-root failed ledger\/2: flaky upstream$/m.exec(advanced)?.[0]
  expect(logged).toBeDefined()
  expect(advanced).toBe(
    HAND.replace('- ledger/2   \n', '- [-] ledger/2 — flaky upstream\n').replace(
      'done ledger/1\n',
      `done ledger/1\n${logged}\n`,
    ),
  )
  await ws.ok('queue', 'add', 'release', 'ledger/4')
  const added = ws.file(FILE)
  const line = /^- \S+ a-root added ledger\/004-drop-old-column$/m.exec(added)?.[0]
  expect(line).toBeDefined()
  expect(added).toBe(
    advanced
      .replace('spelled by hand\n', 'spelled by hand\n- [ ] ledger/004-drop-old-column\n')
      .replace(`${logged}\n`, `${logged}\n${line}\n`),
  )
})
