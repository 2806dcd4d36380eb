// Small versions of the reliability table; `npm run stress` runs the large ones.

import { describe, expect, test } from 'vitest'
import { badInputCorpus, crashTrials } from '../../testkit/stress.js'
import { workspace } from '../../testkit/ws.js'

describe('reliability (small)', () => {
  test('writers killed with SIGKILL while they work leave no partial object; the next writes clean up', async () => {
    const ws = await workspace()
    let seed = 7
    const random = () => {
      seed = (seed * 48271) % 2147483647
      return seed / 2147483647
    }
    const f = await crashTrials(ws, 30, random)
    expect(f.skipped_objects).toBe(0)
    expect(f.unexpected_findings).toBe('none')
    expect(f.left_after_cleanup).toBe('none')
    expect(Number(f.killed_while_working)).toBeGreaterThan(5)
  })

  test('the bad-input corpus: right exit codes, nothing written, nothing read outside the workspace', async () => {
    const f = await badInputCorpus(await workspace())
    expect(f.failures).toBe('none')
    expect(f.read_outside_the_workspace).toBe(false)
    expect(f.huge_title_listed).toBe(true)
  })
})
