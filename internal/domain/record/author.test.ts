// Who a record commit is by: the person for the root (git's own rules for name and email), the agent by its id.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../testkit/ws.js'
import { authorOf, committerAt } from './author.js'

const AT = new Date('2026-03-04T05:06:07Z')
const root = { id: 'a-root', grant: 'rw' as const, role: 'root', parent: null }

/** A home with a ~/.gitconfig, and no system file. */
function home(gitconfig: string | null) {
  const dir = tempDir('dacli-author-')
  if (gitconfig !== null) fs.writeFileSync(path.join(dir, '.gitconfig'), gitconfig)
  return { HOME: dir, GIT_CONFIG_NOSYSTEM: '1' }
}

describe('authorOf', () => {
  test('the root: GIT_AUTHOR_* first, then user.name/user.email from git config, then its id', () => {
    const env = home('[user]\n\tname = Ada Lovelace\n\temail = ada@example.invalid\n')
    expect(authorOf(root, null, env, AT)).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.invalid' })
    expect(
      authorOf(root, null, { ...env, GIT_AUTHOR_NAME: 'Grace', GIT_AUTHOR_EMAIL: 'g@e.invalid' }, AT),
    ).toMatchObject({ name: 'Grace', email: 'g@e.invalid' })
    expect(authorOf(root, null, home(null), AT)).toMatchObject({ name: 'a-root', email: 'a-root@dacli.invalid' })
  })

  test('blank GIT_AUTHOR_* values fall through to the config', () => {
    const env = { ...home('[user]\n\tname = Ada\n'), GIT_AUTHOR_NAME: '   ' }
    expect(authorOf(root, null, env, AT).name).toBe('Ada')
  })

  test('an agent is named by its id and role, never by the person’s config', () => {
    const env = home('[user]\n\tname = Ada\n\temail = ada@example.invalid\n')
    const agent = { id: 'a-impl-x7k2mq', grant: 'rw' as const, role: 'implementer', parent: 'a-root' }
    expect(authorOf(agent, null, env, AT)).toMatchObject({
      name: 'a-impl-x7k2mq (implementer)',
      email: 'a-impl-x7k2mq@dacli.invalid',
    })
    expect(authorOf({ ...agent, role: null }, null, env, AT).name).toBe('a-impl-x7k2mq')
  })

  test('names that would break a commit header are cleaned; the time is whole seconds, UTC', () => {
    const env = { ...home(null), GIT_AUTHOR_NAME: 'Eve <evil@x>\nInjected: yes', GIT_AUTHOR_EMAIL: '<e@x>' }
    const a = authorOf(root, null, env, AT)
    expect(a.name).not.toMatch(/[<>\n]/)
    expect(a.email).not.toMatch(/[<>\n]/)
    expect(a.timestamp).toBe(Date.parse('2026-03-04T05:06:07Z') / 1000)
    expect(a.timezoneOffset).toBe(0)
    expect(committerAt(AT)).toEqual({
      name: 'dacli',
      email: 'dacli@dacli.invalid',
      timestamp: a.timestamp,
      timezoneOffset: 0,
    })
  })
})
