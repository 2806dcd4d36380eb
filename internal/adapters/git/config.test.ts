// The git-config reader against git itself: every expectation below is what the
// `git` program answers for the same files and environment, asked at test time.

import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../testkit/ws.js'
import { gitConfig, parseGitConfig, readConfigFile, remoteUrl, userIdent } from './config.js'

/** What `git config` says (null when unset), for a file or for a repository with an environment. */
function gitSays(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): string | null {
  try {
    return execFileSync('git', ['config', ...args], {
      cwd: opts.cwd ?? '/',
      env: { PATH: process.env.PATH ?? '', ...opts.env },
      encoding: 'utf8',
    }).replace(/\n$/, '')
  } catch (e) {
    if ((e as { status?: number }).status === 1) return null
    throw e
  }
}

const TRICKY: [string, string][] = [
  ['plain', '[user]\n\tname = Ada Lovelace\n'],
  ['case-insensitive section and key', '[USER]\n\tNaMe = Ada\n'],
  ['later wins', '[user]\n\tname = first\n[user]\n\tname = second\n'],
  ['trailing comment', '[user]\n\tname = Ada # the first programmer\n'],
  ['semicolon comment', '[user]\n\tname = Ada ; note\n'],
  ['quoted with comment chars', '[user]\n\tname = "Ada # not ; a comment"\n'],
  ['quoted keeps spaces', '[user]\n\tname = "  Ada  "\n'],
  ['inner whitespace kept', '[user]\n\tname = Ada   King\n'],
  ['escapes', '[user]\n\tname = "A\\"da\\\\x"\n'],
  ['continuation', '[user]\n\tname = Ada \\\nLovelace\n'],
  ['header and key on one line', '[user] name = Ada\n'],
  ['subsection is not the section', '[user "work"]\n\tname = Work Ada\n[user]\n\tname = Ada\n'],
  ['crlf', '[user]\r\n\tname = Ada\r\n'],
  ['empty value', '[user]\n\tname =\n'],
  ['key alone', '[user]\n\tname\n'],
]

describe('parseGitConfig reads files as git does', () => {
  for (const [name, text] of TRICKY) {
    test(name, () => {
      const dir = tempDir()
      const file = path.join(dir, 'config')
      fs.writeFileSync(file, text)
      const ours = parseGitConfig(text)
        .filter((e) => e.section === 'user' && e.key === 'name')
        .at(-1)?.value
      const theirs = gitSays(['--file', file, '--get', 'user.name'])
      // git prints a key written alone as an empty value with --get; we keep it as `true`.
      expect(ours === true ? '' : (ours ?? null)).toBe(theirs)
    })
  }

  test('subsections: quoted ones keep their case, the old dotted spelling is lower-cased', () => {
    const text =
      '[remote "Origin"]\n\turl = a\n[remote.Up]\n\turl = b\n[credential "https://x.example"]\n\thelper = h\n'
    const dir = tempDir()
    const file = path.join(dir, 'config')
    fs.writeFileSync(file, text)
    const entries = parseGitConfig(text)
    for (const key of ['remote.Origin.url', 'remote.up.url', 'credential.https://x.example.helper']) {
      const dot = key.lastIndexOf('.')
      const ours = entries.find((e) => e.section === key.slice(0, dot) && e.key === key.slice(dot + 1))?.value
      expect(ours).toBe(gitSays(['--file', file, '--get', key]))
    }
  })

  test('include.path is followed, relative to the including file', () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, 'sub'))
    fs.writeFileSync(path.join(dir, 'sub', 'extra'), '[user]\n\temail = ada@example.invalid\n')
    fs.writeFileSync(path.join(dir, 'config'), '[user]\n\temail = old@example.invalid\n[include]\n\tpath = sub/extra\n')
    const ours = readConfigFile(path.join(dir, 'config'), {}).filter((e) => e.key === 'email')
    expect(ours.at(-1)?.value).toBe(gitSays(['--file', path.join(dir, 'config'), '--includes', '--get', 'user.email']))
  })
})

describe('precedence across system, global and repository files', () => {
  function setup() {
    const home = tempDir()
    const repo = tempDir()
    execFileSync('git', ['init', '-q', repo])
    return { home, repo, commonDir: path.join(repo, '.git') }
  }

  test('the repository beats ~/.gitconfig, which beats the XDG file', () => {
    const { home, repo, commonDir } = setup()
    fs.mkdirSync(path.join(home, '.config', 'git'), { recursive: true })
    fs.writeFileSync(path.join(home, '.config', 'git', 'config'), '[user]\n\tname = Xdg\n\temail = xdg@e.invalid\n')
    fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Home\n')
    const env = { HOME: home, GIT_CONFIG_NOSYSTEM: '1' }
    expect(userIdent(commonDir, env, 'name')).toBe(gitSays(['--get', 'user.name'], { cwd: repo, env }))
    expect(userIdent(commonDir, env, 'email')).toBe(gitSays(['--get', 'user.email'], { cwd: repo, env }))
    fs.appendFileSync(path.join(commonDir, 'config'), '[user]\n\tname = Repo\n')
    expect(userIdent(commonDir, env, 'name')).toBe('Repo')
    expect(gitSays(['--get', 'user.name'], { cwd: repo, env })).toBe('Repo')
  })

  test('GIT_CONFIG_GLOBAL replaces the global files; GIT_CONFIG_COUNT pairs beat every file', () => {
    const { home, repo, commonDir } = setup()
    fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Home\n')
    const alt = path.join(home, 'alt.gitconfig')
    fs.writeFileSync(alt, '[user]\n\tname = Alt\n')
    const env = { HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: alt }
    expect(userIdent(commonDir, env, 'name')).toBe(gitSays(['--get', 'user.name'], { cwd: repo, env }))
    const over = { ...env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_VALUE_0: 'Env' }
    expect(userIdent(commonDir, over, 'name')).toBe(gitSays(['--get', 'user.name'], { cwd: repo, env: over }))
  })

  test('GIT_CONFIG_SYSTEM names the system file, lowest precedence', () => {
    const { home, repo, commonDir } = setup()
    const sys = path.join(home, 'system.gitconfig')
    fs.writeFileSync(sys, '[user]\n\tname = System\n\temail = sys@e.invalid\n')
    fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Home\n')
    const env = { HOME: home, GIT_CONFIG_SYSTEM: sys }
    expect(userIdent(commonDir, env, 'name')).toBe(gitSays(['--get', 'user.name'], { cwd: repo, env }))
    expect(userIdent(commonDir, env, 'email')).toBe(gitSays(['--get', 'user.email'], { cwd: repo, env }))
  })

  test('a remote URL as git fetch takes it: the first url of [remote "<name>"], with includes and env pairs', () => {
    const { home, repo, commonDir } = setup()
    const env = { HOME: home, GIT_CONFIG_NOSYSTEM: '1' }
    expect(remoteUrl(commonDir, env)).toBeNull()
    fs.writeFileSync(
      path.join(home, 'remotes.gitconfig'),
      '[remote "upstream"]\n\turl = git@github.com:other/thing.git\n',
    )
    fs.appendFileSync(
      path.join(commonDir, 'config'),
      [
        '[include]',
        `\tpath = ${path.join(home, 'remotes.gitconfig')}`,
        '; a comment',
        '[remote "origin"]',
        '\tfetch = +refs/heads/*:refs/remotes/origin/*',
        '\turl = "https://github.com/acme/widgets.git" # trailing comment',
        '\turl = https://github.com/acme/mirror.git',
        '',
      ].join('\n'),
    )
    const first = (name: string) => gitSays(['--get-all', `remote.${name}.url`], { cwd: repo, env })?.split('\n')[0]
    expect(remoteUrl(commonDir, env)).toBe('https://github.com/acme/widgets.git')
    expect(remoteUrl(commonDir, env)).toBe(first('origin'))
    expect(remoteUrl(commonDir, env, 'upstream')).toBe(first('upstream'))
    expect(remoteUrl(commonDir, env, 'nowhere')).toBeNull()
  })

  test('a blank user.name is passed over for the next source (git would refuse to commit with it)', () => {
    const { home, commonDir } = setup()
    fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Home\n')
    fs.appendFileSync(path.join(commonDir, 'config'), '[user]\n\tname = "  "\n')
    expect(userIdent(commonDir, { HOME: home, GIT_CONFIG_NOSYSTEM: '1' }, 'name')).toBe('Home')
  })

  test('outside a repository only the system and global files count', () => {
    const { home } = setup()
    fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Home\n')
    expect(gitConfig(null, { HOME: home, GIT_CONFIG_NOSYSTEM: '1' }).get('user.name')).toBe('Home')
    expect(gitConfig(null, { HOME: home, GIT_CONFIG_NOSYSTEM: '1' }).get('user.email')).toBeNull()
  })
})
