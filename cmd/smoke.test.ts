// Smoke tests of the built bin (npm test builds first): the same contract through a real process.

import * as fs from 'node:fs'
import { describe, expect, test } from 'vitest'
import { BIN, workspace } from '../internal/testkit/ws.js'

describe('the built bin', () => {
  test('exists, is a node script, runs --version and help fast', async () => {
    expect(fs.readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node')).toBe(true)
    const ws = await workspace()
    const v = ws.spawn(['--version'])
    expect(v.code).toBe(0)
    expect(v.stdout).toMatch(/^dacli \d+\.\d+\.\d+/)
    expect(ws.spawn(['help']).code).toBe(0)
  })

  test('a whole loop through a real process: exit codes and JSON on the right streams', async () => {
    const ws = await workspace()
    expect(ws.spawn(['project', 'add', 'Demo', '--slug', 'demo']).code).toBe(0)
    const add = ws.spawn(['task', 'add', 'Do the thing', '--project', 'demo', '--accept', 'done right', '--json'])
    expect(add.code).toBe(0)
    expect(add.json.schema).toBe('task/v1')
    const list = ws.spawn(['task', 'list', '--json'])
    expect(list.json.total).toBe(1)
    const miss = ws.spawn(['task', 'show', 'demo/9', '--json'])
    expect(miss.code).toBe(4)
    expect(miss.stdout).toBe('')
    expect(miss.error.schema).toBe('error/v1')
    const typo = ws.spawn(['task', 'list', '--projct', 'demo'])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toMatch(/unknown flag: --projct/)
    expect(typo.stderr).toMatch(/usage: dacli task list/)
  })
})
