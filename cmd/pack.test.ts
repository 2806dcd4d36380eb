// The package as a user gets it: `npm pack`, then a global install of the tarball
// into an empty prefix with the registry out of reach (--offline), so a runtime
// dependency left out of the bundle cannot hide behind this checkout's
// node_modules. The installed bin must answer --version and an MCP handshake.

import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { beforeAll, describe, expect, test } from 'vitest'
import { REPO_ROOT, tempDir } from '../internal/testkit/ws.js'

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string
  dependencies?: Record<string, string>
}

/** The environment of a user's shell: no npm_* variables from the `npm test` that runs us, no agent token. */
function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^npm_/i.test(k) && k !== 'DACLI_AGENT' && !k.startsWith('VITEST')) env[k] = v
  }
  return { ...env, NO_COLOR: '1', ...extra }
}

let prefix = ''
let bin = ''
let installLog = ''

beforeAll(() => {
  const out = tempDir('dacli-pack-')
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
      cwd: REPO_ROOT,
      env: userEnv(),
      encoding: 'utf8',
    }),
  ) as { filename: string; files: { path: string }[] }[]
  const tarball = path.join(out, (packed[0] as { filename: string }).filename)
  prefix = tempDir('dacli-prefix-')
  installLog = execFileSync(
    'npm',
    ['install', '--global', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, tarball],
    { cwd: out, env: userEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  )
  bin = path.join(prefix, 'bin', 'dacli')
}, 120_000)

describe('npm pack + a global install into an empty prefix', () => {
  test('the package declares no runtime dependencies: esbuild bundled them', () => {
    expect(pkg.dependencies ?? {}).toEqual({})
    const installed = path.join(prefix, 'lib', 'node_modules')
    expect(fs.readdirSync(installed)).toEqual(['dacli'])
    expect(fs.existsSync(path.join(installed, 'dacli', 'node_modules'))).toBe(false)
    expect(installLog).not.toMatch(/warn/i)
  })

  test('ships what runs: the bundle with its source maps, schemas and skill, no build metadata', () => {
    const root = path.join(prefix, 'lib', 'node_modules', 'dacli')
    const files = fs.readdirSync(root, { recursive: true }).map(String)
    expect(files).toContain(path.join('build', 'dacli.js'))
    // build/ is CommonJS (the bin requires the entry chunk), each chunk with its source map beside it (DACLI_DEBUG=1
    // turns them on) and no code cache of its own (Node keeps its compile cache elsewhere).
    expect(files).toContain(path.join('build', 'package.json'))
    const chunks = files.filter((f) => f.startsWith(path.join('build', 'chunks', '')) && f.endsWith('.js'))
    expect(chunks.length).toBeGreaterThan(3)
    for (const c of chunks) expect(files).toContain(`${c}.map`)
    expect(files.filter((f) => f.endsWith('.cache'))).toEqual([])
    expect(files).toContain(path.join('skills', 'dacli', 'SKILL.md'))
    expect(files.some((f) => f.startsWith(`schemas${path.sep}`) && f.endsWith('.schema.json'))).toBe(true)
    expect(files.filter((f) => f.endsWith('meta.json') || f.endsWith('.ts'))).toEqual([])
  })

  test('dacli --version answers from the installed bin', () => {
    const out = execFileSync(bin, ['--version'], { cwd: prefix, env: userEnv(), encoding: 'utf8' })
    expect(out).toMatch(new RegExp(`^dacli ${pkg.version.replace(/\./g, '\\.')}\\b`))
  })

  test('dacli mcp serve: an MCP client connects, lists the tools and calls one', async () => {
    const repo = tempDir('dacli-pack-ws-')
    execFileSync('git', ['init', '-q', repo])
    execFileSync(bin, ['init'], { cwd: repo, env: userEnv(), encoding: 'utf8' })
    const transport = new StdioClientTransport({
      command: bin,
      args: ['mcp', 'serve'],
      cwd: repo,
      env: userEnv(),
      stderr: 'pipe',
    })
    const client = new Client({ name: 'dacli-pack-test', version: '0' })
    await client.connect(transport)
    try {
      expect(client.getServerVersion()?.version).toBe(pkg.version)
      const tools = (await client.listTools()).tools.map((t) => t.name)
      expect(tools).toContain('cli')
      const who = await client.callTool({ name: 'cli', arguments: { schema_version: 1, argv: ['whoami'] } })
      expect(who.isError ?? false).toBe(false)
      expect(who.structuredContent).toMatchObject({ schema: 'identity/v1', id: 'a-root' })
    } finally {
      await client.close()
    }
  })
})
