import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { expectValid } from '../../testkit/schemas.js'
import { dacliIn, git, REPO_ROOT, table, tempDir } from '../../testkit/ws.js'

describe('capabilities', () => {
  test('generated from the table: every command and flag with a stable id, sorted, byte-identical run to run', async () => {
    const dir = tempDir()
    const a = (await dacliIn(dir, ['capabilities', '--json'])).expectExit(0)
    const b = (await dacliIn(dir, ['capabilities', '--json'])).expectExit(0)
    expect(a.stdout).toBe(b.stdout)
    const c = a.json
    expectValid(c)
    expect(c.commands.map((x: { path: string }) => x.path).sort()).toEqual(table.map((x) => x.path).sort())
    const ids = c.commands.map((x: { id: string }) => x.id)
    expect(ids).toEqual([...ids].sort())
    const check = c.commands.find((x: { id: string }) => x.id === 'cli.command.task.check')
    expect(check).toMatchObject({ path: 'task check', json: true, json_schema: 'task-change/v1', mutates: true })
    expect(check.flags.find((f: { id: string }) => f.id === 'cli.command.task.check.flag.verify')).toEqual({
      id: 'cli.command.task.check.flag.verify',
      name: '--verify',
      takes_value: true,
      repeatable: false,
    })
    expect(c.json_schemas).toContainEqual({ id: 'task/v1', version: 1 })
    expect(c.state_schemas).toEqual([
      { id: 'state.event', version: 1 },
      { id: 'state.workspace', version: 0 },
    ])
    expect(c.adapter_capabilities.map((x: { id: string }) => x.id)).toContain('verify.shell')
  })

  test('--require: exit 0 when present; 3 listing every missing id with the report on stdout; malformed ids are 2', async () => {
    const dir = tempDir()
    const ok = (
      await dacliIn(dir, [
        'capabilities',
        '--require',
        'cli.command.task.check.flag.verify',
        '--require',
        'task/v1',
        '--json',
      ])
    ).expectExit(0)
    expect(ok.json.missing).toEqual([])
    const miss = await dacliIn(dir, [
      'capabilities',
      '--require',
      'cli.command.task.teleport',
      '--require',
      'task/v9',
      '--require',
      'task/v1',
      '--json',
    ])
    expect(miss.code).toBe(3)
    expect(miss.json.missing).toEqual(['cli.command.task.teleport', 'task/v9'])
    expect(miss.stderr).toBe('')
    const bad = await dacliIn(dir, ['capabilities', '--require', 'Not An Id', '--json'])
    expect(bad.code).toBe(2)
    expect(bad.error.details.malformed).toEqual(['Not An Id'])
  })
})

describe('--version and --help after a leading global switch', () => {
  test('dacli --json --version is version/v1 and --json --help the root help, as with the switch after them', async () => {
    const dir = tempDir()
    const v = (await dacliIn(dir, ['--json', '--version'])).expectExit(0)
    expect(v.json).toMatchObject({ schema: 'version/v1', name: 'dacli' })
    expect(v.stdout).toBe((await dacliIn(dir, ['--version', '--json'])).expectExit(0).stdout)
    const q = (await dacliIn(dir, ['--quiet', '--version'])).expectExit(0)
    expect(q.stdout).toBe((await dacliIn(dir, ['--version'])).stdout)
    const h = (await dacliIn(dir, ['--quiet', '--help'])).expectExit(0)
    expect(h.stdout).toBe((await dacliIn(dir, ['--help'])).stdout)
  })

  test('--help under --json is the catalog/v1 document `help [topic] --json` prints: root, family and command', async () => {
    const dir = tempDir()
    for (const [argv, topic] of [
      [['--json', '--help'], []],
      [['task', '--help', '--json'], ['task']],
      [
        ['task', 'list', '--help', '--json'],
        ['task', 'list'],
      ],
      [
        ['--json', 'task', 'claim', '-h'],
        ['task', 'claim'],
      ],
    ] as const) {
      const r = (await dacliIn(dir, [...argv])).expectExit(0)
      expectValid(r.json)
      expect(r.json.schema).toBe('catalog/v1')
      expect(r.stdout).toBe((await dacliIn(dir, ['help', ...topic, '--json'])).expectExit(0).stdout)
    }
    const one = (await dacliIn(dir, ['task', 'list', '--help', '--json'])).json
    expect(one.commands.map((c: { path: string }) => c.path)).toEqual(['task list'])
  })
})

describe('version --compatibility', () => {
  const req = (o: unknown) => JSON.stringify(o)
  const setup = () => {
    const repo = tempDir()
    git(repo, 'init', '-q')
    const home = tempDir()
    return { repo, home, env: { HOME: home } }
  }

  test('--compatibility=PATH is the same as --compatibility PATH (usage: [--compatibility [PATH]])', async () => {
    const spaced = (
      await dacliIn(REPO_ROOT, ['version', '--compatibility', 'skills/dacli/capabilities.json', '--json'])
    ).expectExit(0)
    const inline = (
      await dacliIn(REPO_ROOT, ['version', '--compatibility=skills/dacli/capabilities.json', '--json'])
    ).expectExit(0)
    expect(inline.stdout).toBe(spaced.stdout)
    expect((await dacliIn(REPO_ROOT, ['version', '--compatibility=false', '--json'])).expectExit(0).json.schema).toBe(
      'version/v1',
    )
    // Two paths, one through = and one positional, are one too many.
    expect((await dacliIn(REPO_ROOT, ['version', '--compatibility=a.json', 'b.json'])).code).toBe(2)
  })

  test('the shipped skill is compatible with the shipped binary', async () => {
    const r = (
      await dacliIn(REPO_ROOT, ['version', '--compatibility', 'skills/dacli/capabilities.json', '--json'])
    ).expectExit(0)
    expectValid(r.json)
    expect(r.json.compatible).toBe(true)
    expect(r.json.incompatible).toEqual([])
    expect(r.json.required.every((x: { present: boolean }) => x.present)).toBe(true)
    const skill = fs.readFileSync(path.join(REPO_ROOT, 'skills/dacli/SKILL.md'), 'utf8')
    for (const phrase of [
      'overview',
      'next',
      'context',
      'claim',
      '--verify',
      'decision',
      'finding',
      'never retry unchanged',
      // The loop: when to ask, what explain says, following changes, landing.
      'When to ask instead of guessing',
      'dacli ask',
      'dacli explain <ref> --json',
      'dacli watch --jsonl --since <cursor>',
      'policy: unlanded',
      'Never add `--allow-unlanded`',
    ])
      expect(skill).toContain(phrase)
    // Every command the skill names exists (`dacli task claim …` → the command path `task claim`).
    const caps = (await dacliIn(REPO_ROOT, ['capabilities', '--json'])).expectExit(0).json
    const paths = new Set(caps.commands.map((c: { path: string }) => c.path))
    // Commands in inline code and at the start of a line in code blocks (prose says "dacli keeps …").
    const blocks = [...skill.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n')
    const word = '([a-z][a-z-]*(?: [a-z][a-z-]*)?)'
    const named = [
      ...[...skill.matchAll(new RegExp(`\`dacli ${word}`, 'g'))],
      ...[...blocks.matchAll(new RegExp(`^dacli ${word}`, 'gm'))],
    ].map((m) => m[1] as string)
    expect(named.length).toBeGreaterThan(20)
    for (const n of named) {
      const [first = '', second] = n.split(' ')
      expect(paths.has(n) || paths.has(first) || (second !== undefined && paths.has(`${first} ${second}`)), n).toBe(
        true,
      )
    }
  })

  test('discovery order: the env variable, then repository skill folders, then the user’s; only the selected one is named', async () => {
    const { repo, home, env } = setup()
    const write = (p: string, body: unknown) => {
      fs.mkdirSync(path.dirname(p), { recursive: true })
      fs.writeFileSync(p, req(body))
    }
    const doc = { schema_version: 1, required: [{ id: 'cli.command.task.list' }], optional: [] }
    write(path.join(home, '.agents/skills/dacli/capabilities.json'), doc)
    let r = (await dacliIn(repo, ['version', '--compatibility', '--json'], { env })).expectExit(0)
    expect(r.json.requirements).toBe(path.join(home, '.agents/skills/dacli/capabilities.json'))
    write(path.join(home, '.codex/skills/dacli/capabilities.json'), doc)
    r = (await dacliIn(repo, ['version', '--compatibility', '--json'], { env })).expectExit(0)
    expect(r.json.requirements).toBe(path.join(home, '.codex/skills/dacli/capabilities.json'))
    write(path.join(repo, '.agents/skills/dacli/capabilities.json'), doc)
    r = (await dacliIn(repo, ['version', '--compatibility', '--json'], { env })).expectExit(0)
    expect(r.json.requirements).toBe('.agents/skills/dacli/capabilities.json')
    write(path.join(repo, 'skills/dacli/capabilities.json'), doc)
    r = (await dacliIn(repo, ['version', '--compatibility', '--json'], { env })).expectExit(0)
    expect(r.json.requirements).toBe('skills/dacli/capabilities.json')
    write(path.join(repo, 'mine.json'), doc)
    r = (
      await dacliIn(repo, ['version', '--compatibility', '--json'], {
        env: { ...env, DACLI_SKILL_REQUIREMENTS: 'mine.json' },
      })
    ).expectExit(0)
    expect(r.json.requirements).toBe('mine.json')
    expect(r.stdout).not.toContain('.agents')
    expect(r.stdout).not.toContain('.codex')
  })

  test('missing → 4, unreadable → 1, not JSON or wrong shape → 2, unknown requirements version → 3', async () => {
    const { repo, env } = setup()
    expect((await dacliIn(repo, ['version', '--compatibility', '--json'], { env })).code).toBe(4)
    expect((await dacliIn(repo, ['version', '--compatibility', 'nope.json', '--json'], { env })).code).toBe(4)
    fs.mkdirSync(path.join(repo, 'dir.json'))
    expect((await dacliIn(repo, ['version', '--compatibility', 'dir.json', '--json'], { env })).code).toBe(1)
    fs.writeFileSync(path.join(repo, 'bad.json'), '{not json')
    const bad = (await dacliIn(repo, ['version', '--compatibility', 'bad.json', '--json'], { env })).expectExit(2)
    expect(bad.error.message).toMatch(/bad\.json is not valid JSON/)
    fs.writeFileSync(path.join(repo, 'shape.json'), req({ schema_version: 1, required: 'x' }))
    expect((await dacliIn(repo, ['version', '--compatibility', 'shape.json', '--json'], { env })).code).toBe(2)
    fs.writeFileSync(path.join(repo, 'v9.json'), req({ schema_version: 9, required: [] }))
    expect((await dacliIn(repo, ['version', '--compatibility', 'v9.json', '--json'], { env })).code).toBe(3)
    expect((await dacliIn(repo, ['version', 'x.json', '--json'], { env })).code).toBe(2)
  })

  test('a path that is no requirements document: its text is never echoed, a huge file or a device is not read', async () => {
    const { repo, env } = setup()
    fs.writeFileSync(path.join(repo, 'secret.txt'), 'GH_TOKEN=ghp_s3cr3t\n')
    const secret = (await dacliIn(repo, ['version', '--compatibility', 'secret.txt', '--json'], { env })).expectExit(2)
    expect(secret.error.message).toMatch(/secret\.txt is not valid JSON/)
    expect(secret.stderr).not.toContain('GH_TOKEN')
    // Valid, but padded past any real document's size: refused unread.
    fs.writeFileSync(path.join(repo, 'huge.json'), `${req({ schema_version: 1, required: [] })}${' '.repeat(2 << 20)}`)
    const huge = (await dacliIn(repo, ['version', '--compatibility', 'huge.json', '--json'], { env })).expectExit(2)
    expect(huge.error.message).toMatch(/larger than/)
    if (fs.existsSync('/dev/zero')) {
      const dev = (await dacliIn(repo, ['version', '--compatibility', '/dev/zero', '--json'], { env })).expectExit(1)
      expect(dev.error.message).toMatch(/not a regular file/)
    }
  })

  test('a missing required capability or schema version → 3 with the report; missing optional ones carry the fallback', async () => {
    const { repo, env } = setup()
    fs.writeFileSync(
      path.join(repo, 'r.json'),
      req({
        schema_version: 1,
        required: [
          { id: 'cli.command.task.check.flag.verify' },
          { id: 'task/v1', schema_version: 2 },
          { id: 'cli.command.task.teleport' },
        ],
        optional: [
          { id: 'mcp.tool.warp', fallback: 'walk instead' },
          { id: 'task/v1', schema_version: 3, fallback: 'read the text' },
        ],
      }),
    )
    const r = await dacliIn(repo, ['version', '--compatibility', 'r.json', '--json'], { env })
    expect(r.code).toBe(3)
    expectValid(r.json)
    expect(r.json.compatible).toBe(false)
    expect(r.json.incompatible).toEqual([
      { id: 'task/v1', reason: 'schema version 1, required 2' },
      { id: 'cli.command.task.teleport', reason: 'not in this binary' },
    ])
    expect(r.json.optional).toEqual([
      { id: 'mcp.tool.warp', present: false, schema_version: null, available_version: null, fallback: 'walk instead' },
      { id: 'task/v1', present: true, schema_version: 3, available_version: 1, fallback: 'read the text' },
    ])
    // A missing capability and one at another schema version are two answers: task/v1 is present, at version 1.
    expect(r.json.required.find((x: { id: string }) => x.id === 'task/v1')).toEqual({
      id: 'task/v1',
      present: true,
      schema_version: 2,
      available_version: 1,
    })
    const human = await dacliIn(repo, ['version', '--compatibility', 'r.json'], { env })
    expect(human.stdout).toContain('optional task/v1 at schema version 1, 3 asked — fallback: read the text')
    expect(human.stdout).toContain('optional mcp.tool.warp missing — fallback: walk instead')
  })
})

describe('catalog and schema', () => {
  test('catalog lists every command from the table', async () => {
    const c = (await dacliIn(tempDir(), ['catalog', '--json'])).expectExit(0).json
    expectValid(c)
    expect(c.commands).toHaveLength(table.length)
  })

  test('schema prints a published schema byte-for-byte as checked in; an unknown id is 4', async () => {
    const dir = tempDir()
    const s = (await dacliIn(dir, ['schema', 'task/v1', '--json'])).expectExit(0)
    expect(JSON.parse(s.stdout)).toEqual(
      JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'schemas/task.v1.schema.json'), 'utf8')),
    )
    expect((await dacliIn(dir, ['schema', 'task/v7', '--json'])).code).toBe(4)
    const list = (await dacliIn(dir, ['schema', '--json'])).json
    expect(list.schemas.length).toBe(fs.readdirSync(path.join(REPO_ROOT, 'schemas')).length)
  })
})
