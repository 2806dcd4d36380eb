// Ref names and ref reading against the git program: every expectation is git's own answer.

import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { git, tempDir } from '../../testkit/ws.js'
import { checkBranchName, readRef } from './refs.js'

/** Does git accept this as a branch name? */
function gitAccepts(name: string): boolean {
  try {
    execFileSync('git', ['check-ref-format', '--branch', name], { stdio: 'ignore', cwd: tempDir() })
    return true
  } catch {
    return false
  }
}

const ours = (name: string): boolean => {
  try {
    checkBranchName(name)
    return true
  } catch {
    return false
  }
}

describe('checkBranchName agrees with git check-ref-format --branch', () => {
  const names = [
    'dacli/record',
    'feature/x-1',
    'a.b',
    'release/2026.12',
    '',
    '/lead',
    'trail/',
    '-dash',
    'dot.',
    'x.lock',
    'a/b.lock/c',
    'a..b',
    'a//b',
    'at@{x',
    'sp ace',
    'tab\tx',
    'tilde~',
    'caret^',
    'colon:',
    'q?',
    'star*',
    'br[ack',
    'back\\slash',
    '.hidden',
    'a/.hidden',
    'ctl\u0001x',
    'del\u007fx',
  ]
  for (const name of names) {
    test(JSON.stringify(name), () => {
      expect(ours(name)).toBe(gitAccepts(name))
    })
  }

  test('"@" alone is refused although git would make the branch: as a revision it means HEAD', () => {
    expect(gitAccepts('@')).toBe(true)
    expect(ours('@')).toBe(false)
  })
})

describe('readRef reads what git rev-parse reads', () => {
  function repo() {
    const dir = tempDir('dacli-refs-')
    git(dir, 'init', '-q', '-b', 'main')
    fs.writeFileSync(path.join(dir, 'f'), 'x\n')
    git(dir, 'add', 'f')
    git(dir, 'commit', '-q', '-m', 'one')
    return { dir, gitDir: path.join(dir, '.git') }
  }
  const revParse = (dir: string, ref: string) => git(dir, 'rev-parse', '--verify', '-q', ref).trim()

  test('a loose branch, HEAD through its symbolic link, and a missing ref', () => {
    const { dir, gitDir } = repo()
    expect(readRef(gitDir, gitDir, 'refs/heads/main')).toBe(revParse(dir, 'refs/heads/main'))
    expect(readRef(gitDir, gitDir, 'HEAD')).toBe(revParse(dir, 'HEAD'))
    expect(readRef(gitDir, gitDir, 'refs/heads/nope')).toBeNull()
  })

  test('a packed ref, and a loose ref that shadows its packed value', () => {
    const { dir, gitDir } = repo()
    git(dir, 'branch', 'side')
    git(dir, 'pack-refs', '--all')
    expect(fs.existsSync(path.join(gitDir, 'refs', 'heads', 'side'))).toBe(false)
    expect(readRef(gitDir, gitDir, 'refs/heads/side')).toBe(revParse(dir, 'refs/heads/side'))
    fs.writeFileSync(path.join(dir, 'f'), 'y\n')
    git(dir, 'commit', '-q', '-am', 'two')
    git(dir, 'branch', '-f', 'side', 'HEAD')
    expect(readRef(gitDir, gitDir, 'refs/heads/side')).toBe(revParse(dir, 'refs/heads/side'))
  })

  test('a ref file holding garbage is no commit (null), and a HEAD loop ends', () => {
    const { gitDir } = repo()
    fs.writeFileSync(path.join(gitDir, 'refs', 'heads', 'junk'), 'not an object id\n')
    expect(readRef(gitDir, gitDir, 'refs/heads/junk')).toBeNull()
    fs.writeFileSync(path.join(gitDir, 'refs', 'heads', 'loop'), 'ref: refs/heads/loop\n')
    expect(readRef(gitDir, gitDir, 'refs/heads/loop')).toBeNull()
  })
})
