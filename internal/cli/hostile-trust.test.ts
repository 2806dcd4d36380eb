// The trust anchor (issue 28, item 1): root keys published in the work tree count only when the clone's
// anchor — outside the work tree — vouches for them; retirement is signed and remembered; a fresh clone
// learns whom to trust only through `dacli trust accept`, which says what it pinned.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { agentSigner } from '../domain/identity/signing.js'
import { type Checkout, cloneTeam, team } from '../testkit/coordination.js'
import { eventFiles, forge, plantRootKey } from '../testkit/hostile.js'
import { session, textJSON } from '../testkit/mcp.js'
import { dacliIn, type Fixture, fixture, snapshotOf, tempDir, testConfigHome, workspace } from '../testkit/ws.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
})

const agentFile = (root: string, id: string) => path.join(root, '.dacli', 'agents', `${id}.md`)
const workspaceId = (root: string) =>
  (
    fs.readFileSync(path.join(root, '.dacli', 'config.yml'), 'utf8').match(/^id: (.*)$/m) as RegExpMatchArray
  )[1] as string

describe('the trust anchor lives outside the work tree', () => {
  test('init pins the root key it creates in the git directory and in the user configuration directory', async () => {
    const root = fx.copy()
    const show = (await dacliIn(root, ['trust', 'show', '--json'])).expectExit(0).json
    expect(show.schema).toBe('trust/v1')
    expect(show.keys).toHaveLength(1)
    const fp = show.keys[0].fingerprint as string
    expect(fp).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(show.keys[0]).toMatchObject({ trusted: true, own: true, problem: null })
    // Bytes on disk: both anchor files pin the full fingerprint.
    expect(fs.readFileSync(path.join(root, '.git', 'dacli', 'trust'), 'utf8')).toContain(`\n${fp}  # `)
    const user = path.join(testConfigHome(), 'dacli', 'trust', workspaceId(root))
    expect(fs.readFileSync(user, 'utf8')).toContain(`\n${fp}  # `)
    expect(show.anchor).toEqual({ clone: path.join(root, '.git', 'dacli', 'trust'), user })
    // The anchor is not in the work tree: nothing under .dacli/ names it.
    expect([...snapshotOf(root).keys()].some((f) => f.includes('trust'))).toBe(false)
  })

  test('a planted root key vouches for nothing: its identity never resolves, its events never apply, doctor names both files', async () => {
    const root = fx.copy()
    const p = plantRootKey(root)
    const r = (await dacliIn(root, ['whoami', '--json'], { as: p.token })).expectExit(3)
    expect(r.error.message).toMatch(/trust anchor does not vouch for/)
    const before = snapshotOf(root)
    expect((await dacliIn(root, ['task', 'add', 'Evil', '--project', 'alpha'], { as: p.token })).code).toBe(3)
    expect(snapshotOf(root)).toEqual(before)
    // An event claiming a-root, signed with the planted key: refused by sync.
    ;(await dacliIn(root, ['task', 'done', 'alpha/1'], { as: fx.ro.token })).expectExit(0)
    const file = eventFiles(root).at(-1) as string
    const planted = agentSigner('the attacker’s root seed')
    await forge(file, (d) => {
      d.created_by = 'a-root'
    })
    const { eventContent } = await import('../store/events.js')
    const { parseObject } = await import('../format/frontmatter.js')
    const parsed = parseObject(fs.readFileSync(file, 'utf8'))
    const data = parsed.doc.toJS() as Parameters<typeof eventContent>[0]
    const sig = planted.sign(eventContent({ ...data, body: parsed.split.body }))
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^signature: .*$/m, `signature: ${sig}`))
    const task = path.join(root, '.dacli/projects/alpha/tasks/open/001-first-thing.md')
    const taskBefore = fs.readFileSync(task, 'utf8')
    const sync = (await dacliIn(root, ['sync', '--json'])).expectExit(0).json
    expect(sync.applied).toEqual([])
    expect(sync.skipped).toEqual([expect.objectContaining({ code: 'forged-event', path: path.relative(root, file) })])
    expect(fs.readFileSync(task, 'utf8')).toBe(taskBefore)
    const doctor = (await dacliIn(root, ['doctor', '--json'])).json
    expect(doctor.findings).toContainEqual(
      expect.objectContaining({ code: 'untrusted-key', subject: p.keyFile, message: expect.stringMatching(/"key"/) }),
    )
    expect(doctor.findings).toContainEqual(
      expect.objectContaining({
        code: 'untrusted-key',
        subject: p.agent,
        message: expect.stringMatching(/field "signature"/),
      }),
    )
  })

  test('a retired identity cannot be revived by an edit, not even by restoring its earlier signed bytes', async () => {
    const root = fx.copy()
    const spawned = (await dacliIn(root, ['agent', 'spawn', '--grant', 'ro', '--json'])).expectExit(0).json
    const f = agentFile(root, spawned.id)
    const original = fs.readFileSync(f, 'utf8')
    expect(original).toMatch(/^retired: false$/m)
    ;(await dacliIn(root, ['agent', 'retire', spawned.id])).expectExit(0)
    const retired = fs.readFileSync(f, 'utf8')
    expect(retired).toMatch(/^retired: true$/m)
    expect(retired).toMatch(/^retired_by: a-root$/m)
    expect(retired).toMatch(/^retired_signature: ed25519:[A-Za-z0-9_-]{86}$/m)
    expect(fs.readFileSync(path.join(root, '.git', 'dacli', 'retired'), 'utf8')).toContain(`\n${spawned.id}\n`)
    for (const revived of [retired.replace('retired: true', 'retired: false'), original]) {
      fs.writeFileSync(f, revived)
      const r = (await dacliIn(root, ['whoami', '--json'], { as: spawned.token })).expectExit(3)
      expect(r.error.message).toMatch(/retired/)
      const doctor = (await dacliIn(root, ['doctor', '--json'])).json
      expect(doctor.findings).toContainEqual(
        expect.objectContaining({
          code: 'tampered-identity',
          subject: `.dacli/agents/${spawned.id}.md`,
          message: expect.stringMatching(/field "retired"/),
        }),
      )
    }
  })

  test('a retirement that arrives by record pull is remembered: restoring the earlier bytes does not revive it', async () => {
    const t = await team(await workspace(), { tasks: 1 })
    const [agent] = await cloneTeam(t, 1, 1)
    const { id, token } = agent as { id: string; token: string }
    const b = t.clones[0] as Checkout
    const rel = `.dacli/agents/${id}.md`
    const original = b.file(rel)
    ;(await b.dacli('whoami', '--json', { as: token })).expectExit(0)
    ;(await t.a.dacli('agent', 'retire', id)).expectExit(0)
    ;(await t.a.dacli('record', 'push')).expectExit(0)
    ;(await b.dacli('record', 'pull')).expectExit(0)
    expect(b.file(rel)).toMatch(/^retired: true$/m)
    expect(fs.readFileSync(path.join(b.root, '.git', 'dacli', 'retired'), 'utf8')).toContain(`\n${id}\n`)
    // A work tree writer puts the file back as it was before the pull: the token stays refused.
    b.write(rel, original)
    expect((await b.dacli('whoami', '--json', { as: token })).expectExit(3).error.message).toMatch(/retired/)
  })

  test('a hand-set retirement keeps the identity retired but frees none of its claims (no valid retirement signature)', async () => {
    const root = fx.copy()
    const f = agentFile(root, fx.rw.id)
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('retired: false', 'retired: true'))
    expect((await dacliIn(root, ['whoami'], { as: fx.rw.token })).code).toBe(3)
    // alpha/3 is held by the worker: a hand-written retirement does not let another identity take it over.
    const other = (await dacliIn(root, ['agent', 'spawn', '--grant', 'rw', '--json'])).expectExit(0).json
    const r = await dacliIn(root, ['task', 'claim', 'alpha/3', '--json'], { as: other.token })
    expect(r.code).toBe(5)
  })
})

describe('a fresh clone learns whom to trust only by an explicit step', () => {
  /** A copy of the workspace as another clone sees it: no root key, no anchor, another user. */
  function freshClone(): { root: string; env: Record<string, string> } {
    const root = fx.copy()
    fs.rmSync(path.join(root, '.git', 'dacli'), { recursive: true, force: true })
    return { root, env: { XDG_CONFIG_HOME: tempDir('dacli-other-user-') } }
  }

  test('agents do not resolve until trust accept pins the published key; a wrong fingerprint pins nothing', async () => {
    const { root, env } = freshClone()
    const r = (await dacliIn(root, ['whoami', '--json'], { as: fx.rw.token, env })).expectExit(3)
    expect(r.error.next_actions.join(' ')).toMatch(/trust show/)
    const show = (await dacliIn(root, ['trust', 'show', '--json'], { env })).expectExit(0).json
    expect(show.keys).toEqual([expect.objectContaining({ trusted: false, own: false })])
    const fp = show.keys[0].fingerprint as string
    const wrong = `sha256:${'0'.repeat(64)}`
    const refused = (await dacliIn(root, ['trust', 'accept', '--fingerprint', wrong, '--json'], { env })).expectExit(3)
    expect(refused.error.message).toMatch(/refusing to pin anything/)
    expect(fs.existsSync(path.join(root, '.git', 'dacli', 'trust'))).toBe(false)
    // An agent may not change the anchor, whatever its grant.
    expect((await dacliIn(root, ['trust', 'accept', '--fingerprint', fp], { as: fx.rw.token, env })).code).toBe(3)
    const ok = (
      await dacliIn(root, ['trust', 'accept', '--fingerprint', fp.slice(7, 27), '--json'], { env })
    ).expectExit(0).json
    expect(ok.accepted).toEqual([fp])
    expect(ok.statement).toMatch(/matches the one you gave/)
    expect(fs.readFileSync(path.join(root, '.git', 'dacli', 'trust'), 'utf8')).toContain(`\n${fp}  # accepted `)
    expect((await dacliIn(root, ['whoami'], { as: fx.rw.token, env })).code).toBe(0)
    // Accepting again changes nothing.
    const again = (await dacliIn(root, ['trust', 'accept', '--fingerprint', fp, '--json'], { env })).expectExit(0).json
    expect(again.accepted).toEqual([])
  })

  test('an MCP server acting as root never runs trust accept (the cli tool refuses it, exit 3)', async () => {
    const { root } = freshClone()
    const mcp = await session(root)
    try {
      const r = await mcp.call('cli', { schema_version: 1, argv: ['trust', 'accept'] })
      // A refusal is an answer (mcp.md): a normal result carrying `refused`, never isError.
      expect(r.isError).toBeFalsy()
      expect(r.structuredContent).toMatchObject({ refused: { policy: 'trust-root-only' } })
      expect(textJSON(r)).toMatchObject({ refused: { policy: 'trust-root-only' } })
      expect(fs.existsSync(path.join(root, '.git', 'dacli', 'trust'))).toBe(false)
    } finally {
      await mcp.close()
    }
  })

  test('without --fingerprint: the one untrusted key on first use, said so; refused once a key is pinned', async () => {
    const { root, env } = freshClone()
    const r = await dacliIn(root, ['trust', 'accept'], { env })
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/on first use/)
    expect((await dacliIn(root, ['whoami'], { as: fx.ro.token, env })).code).toBe(0)
    const p = plantRootKey(root)
    const second = (await dacliIn(root, ['trust', 'accept', '--json'], { env })).expectExit(3)
    expect(second.error.message).toMatch(/already trusts/)
    expect((await dacliIn(root, ['whoami'], { as: p.token, env })).code).toBe(3)
  })

  test('the user’s pin outlives the clone: a new clone of the same workspace by the same user trusts its key', async () => {
    const root = fx.copy()
    fs.rmSync(path.join(root, '.git', 'dacli'), { recursive: true, force: true })
    // The same user configuration directory as the clone that ran init.
    expect((await dacliIn(root, ['whoami'], { as: fx.rw.token })).code).toBe(0)
  })
})

test('a root key file that holds no key (empty, cut short, edited) is exit 1 naming it, never a crash, and never replaced', async () => {
  const ws = await workspace()
  await ws.ok('project', 'add', 'P', '--slug', 'p')
  const keyFile = path.join(ws.root, '.git', 'dacli', 'root-key')
  for (const bad of ['', 'short\n']) {
    fs.writeFileSync(keyFile, bad)
    const r = (await ws.dacli('agent', 'spawn', '--role', 'x', '--json')).expectExit(1)
    expect(r.error.message).toContain(`the root key file ${keyFile} holds no key`)
    expect(r.error.message).not.toContain('internal error')
    expect(fs.readFileSync(keyFile, 'utf8')).toBe(bad)
  }
})

test('in the clone that created the workspace, trust accept with no fingerprint refuses a planted root key (3): its anchor already pins its own', async () => {
  const root = fx.copy()
  const planted = plantRootKey(root)
  const before = snapshotOf(root)
  const r = (await dacliIn(root, ['trust', 'accept', '--json'])).expectExit(3)
  expect(r.error.message).toContain('already trusts a root key of this workspace')
  expect(snapshotOf(root)).toEqual(before)
  ;(await dacliIn(root, ['whoami'], { as: planted.token })).expectExit(3)
})
