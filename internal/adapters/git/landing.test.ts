// The landing rule's squash case, in real repositories: a branch counts as landed when trunk carries its change
// whole (git's merge of it into trunk is trunk's own tree) — but only a branch that changes something. An empty
// commit, or work and its revert, carries nothing and proves nothing: its commits must be on trunk themselves.

import * as fs from 'node:fs'
import { expect, test } from 'vitest'
import { git, tempDir } from '../../testkit/ws.js'
import { gitInfoAt } from './discover.js'
import { commitsNotOn } from './landing.js'

const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@x',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@x',
}

function repo() {
  const dir = tempDir('dacli-landing-')
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'config', 'user.name', 't')
  git(dir, 'config', 'user.email', 't@x')
  const write = (file: string, text: string, msg: string) => {
    fs.writeFileSync(`${dir}/${file}`, text)
    git(dir, 'add', file)
    git(dir, 'commit', '-q', '-m', msg)
  }
  write('a.txt', 'one\n', 'init')
  const info = gitInfoAt(dir)
  if (info === null) throw new Error('no repository')
  const missing = async (head: string) => (await commitsNotOn(info, env, 'main', head)).map((c) => c.subject)
  return { dir, write, missing }
}

test('a change squash-merged into trunk has landed; the same change not merged has not', async () => {
  const r = repo()
  git(r.dir, 'checkout', '-q', '-b', 'work')
  r.write('b.txt', 'work\n', 'Add b')
  r.write('b.txt', 'work, better\n', 'Improve b')
  git(r.dir, 'checkout', '-q', 'main')
  expect(await r.missing('work')).toEqual(['Add b', 'Improve b'])
  git(r.dir, 'merge', '-q', '--squash', 'work')
  git(r.dir, 'commit', '-q', '-m', 'Work (#1)')
  r.write('c.txt', 'later\n', 'Trunk moves on')
  expect(await r.missing('work')).toEqual([])
})

test('a branch that changes nothing (an empty commit; work and its revert) has not landed by the squash rule', async () => {
  const r = repo()
  git(r.dir, 'checkout', '-q', '-b', 'empty')
  git(r.dir, 'commit', '-q', '--allow-empty', '-m', 'Nothing at all')
  git(r.dir, 'checkout', '-q', '-b', 'undone', 'main')
  r.write('d.txt', 'tried\n', 'Try d')
  git(r.dir, 'revert', '--no-edit', 'HEAD')
  git(r.dir, 'checkout', '-q', 'main')
  r.write('e.txt', 'trunk\n', 'Trunk moves on')
  // git's merge of either into trunk is trunk's own tree: without the rule both would count as landed.
  expect(await r.missing('empty')).toEqual(['Nothing at all'])
  expect((await r.missing('undone')).length).toBe(2)
})

test('a change trunk holds differently (a conflict) has not landed', async () => {
  const r = repo()
  git(r.dir, 'checkout', '-q', '-b', 'clash')
  r.write('a.txt', 'theirs\n', 'Change a one way')
  git(r.dir, 'checkout', '-q', 'main')
  r.write('a.txt', 'ours\n', 'Change a another way')
  expect(await r.missing('clash')).toEqual(['Change a one way'])
})
