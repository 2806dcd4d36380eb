import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../testkit/ws.js'
import { resolveToken } from './token.js'

/** A folder holding a fake `gh` that prints `token` for `gh auth token` (and records its arguments). */
function fakeGh(token: string | null): { dir: string; argsFile: string } {
  const dir = tempDir('dacli-gh-')
  const argsFile = path.join(dir, 'args')
  const script = `#!/bin/sh\necho "$@" > "${argsFile}"\n${token === null ? 'echo "not logged in" >&2; exit 1' : `echo "${token}"`}\n`
  fs.writeFileSync(path.join(dir, 'gh'), script, { mode: 0o755 })
  return { dir, argsFile }
}

describe('token resolution', () => {
  test('GH_TOKEN wins over GITHUB_TOKEN, which wins over gh', async () => {
    const gh = fakeGh('gho_fromGhCli')
    const PATH = `${gh.dir}:/usr/bin:/bin`
    expect(await resolveToken({ GH_TOKEN: 'a', GITHUB_TOKEN: 'b', PATH }, null)).toEqual({
      value: 'a',
      source: 'GH_TOKEN',
    })
    expect(await resolveToken({ GH_TOKEN: ' ', GITHUB_TOKEN: 'b', PATH }, null)).toEqual({
      value: 'b',
      source: 'GITHUB_TOKEN',
    })
    expect(await resolveToken({ PATH }, null)).toEqual({ value: 'gho_fromGhCli', source: 'gh auth token' })
    expect(fs.readFileSync(gh.argsFile, 'utf8').trim()).toBe('auth token')
    await resolveToken({ PATH }, 'ghe.example.com')
    expect(fs.readFileSync(gh.argsFile, 'utf8').trim()).toBe('auth token --hostname ghe.example.com')
  })

  test('no token: gh missing, or gh not logged in', async () => {
    expect(await resolveToken({ PATH: tempDir('dacli-empty-') }, null)).toBeNull()
    expect(await resolveToken({ PATH: `${fakeGh(null).dir}:/usr/bin:/bin` }, null)).toBeNull()
  })
})
