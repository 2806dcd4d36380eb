// Test workspaces: a real temporary git repository with `dacli init`, and a
// `dacli(...)` that drives the same main()/invoke() the bin uses, in process.

import { execFileSync, spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterMutation, services } from '../../cmd/services.js'
import { main } from '../cli/main.js'
import type { CommandEntry } from '../clikit/command.js'
import { entriesOf } from '../clikit/command.js'
import { bufferIO } from '../clikit/io.js'
import { commands } from './commands.js'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const BIN = path.join(REPO_ROOT, 'build', 'dacli.js')
export const table: readonly CommandEntry[] = entriesOf(commands)

export interface RunOpts {
  /** DACLI_AGENT token (or '' for set-but-empty). */
  as?: string
  env?: Record<string, string | undefined>
  cwd?: string
  now?: Date
  tty?: boolean
  /** Receives the stop function of a long-running server (`board`), as the bin wires Ctrl-C. */
  onInterrupt?: (stop: () => void) => void
}

export class Run {
  constructor(
    readonly argv: readonly string[],
    readonly code: number,
    readonly stdout: string,
    readonly stderr: string,
  ) {}

  /** The stdout JSON document (throws when stdout is not exactly one JSON document). */
  get json(): any {
    return JSON.parse(this.stdout)
  }

  /** The error/v1 envelope from stderr. */
  get error(): any {
    return JSON.parse(this.stderr)
  }

  expectExit(code: number): this {
    if (this.code !== code) {
      throw new Error(
        `dacli ${this.argv.join(' ')}: expected exit ${code}, got ${this.code}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`,
      )
    }
    return this
  }
}

const gitEnv = {
  GIT_AUTHOR_NAME: 'Test Person',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test Person',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...gitEnv } })
}

const created: string[] = []

/** A fresh temporary folder, removed after the test file (the vitest setup calls `cleanupTempDirs`). */
export function tempDir(prefix = 'dacli-test-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  created.push(dir)
  return dir
}

/** Remove every folder `tempDir` made in this process so far. */
export function cleanupTempDirs(): void {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}

let configHome: string | null = null

/**
 * The user configuration directory runs get (XDG_CONFIG_HOME): one per test file, so the trust anchors
 * `init` pins there never reach the real ~/.config.
 */
export function testConfigHome(): string {
  if (configHome === null || !fs.existsSync(configHome)) configHome = tempDir('dacli-config-')
  return configHome
}

/** Base environment for a run: no DACLI_AGENT leaking from the outer shell, no color. */
export function baseEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: '1',
    ...gitEnv,
    XDG_CONFIG_HOME: testConfigHome(),
  }
  delete env.DACLI_AGENT
  delete env.DACLI_SKILL_REQUIREMENTS
  return env
}

export async function dacliIn(cwd: string, argv: readonly string[], opts: RunOpts = {}): Promise<Run> {
  const io = bufferIO({ tty: opts.tty ?? false })
  const env = { ...baseEnv(), ...(opts.env ?? {}) }
  if (opts.as !== undefined) env.DACLI_AGENT = opts.as
  const fixed = opts.now
  const out = await main(argv, {
    io,
    env,
    cwd: opts.cwd ?? cwd,
    now: fixed ? () => fixed : () => new Date(),
    services,
    table,
    afterMutation,
    ...(opts.onInterrupt ? { onInterrupt: opts.onInterrupt } : {}),
  })
  return new Run(argv, out.exitCode, io.out(), io.err())
}

export interface Workspace {
  root: string
  /** Run dacli in process: strings are argv; a trailing object is options. */
  dacli(...args: (string | RunOpts)[]): Promise<Run>
  /** The same, for a setup step: it must exit 0. */
  ok(...args: (string | RunOpts)[]): Promise<Run>
  /** Spawn the built bin. */
  spawn(args: readonly string[], opts?: RunOpts): Run
  /** Mint a child identity and return its token. */
  agent(grant?: 'rw' | 'ro', role?: string): Promise<{ id: string; token: string }>
  file(rel: string): string
  write(rel: string, text: string): void
  /** Every file under .dacli with its bytes (for "nothing changed" assertions). */
  snapshot(): Map<string, string>
}

export async function workspace(opts: { git?: boolean } = {}): Promise<Workspace> {
  const root = tempDir()
  if (opts.git !== false) git(root, 'init', '-q', '-b', 'main')
  const ws: Workspace = {
    root,
    async dacli(...args) {
      const last = args[args.length - 1]
      const o = typeof last === 'object' ? (last as RunOpts) : {}
      const argv = args.filter((a): a is string => typeof a === 'string')
      return dacliIn(root, argv, o)
    },
    ok: async (...args) => (await ws.dacli(...args)).expectExit(0),
    spawn(args, o = {}) {
      const env = { ...baseEnv(), ...(o.env ?? {}) }
      if (o.as !== undefined) env.DACLI_AGENT = o.as
      const r = spawnSync(process.execPath, [BIN, ...args], { cwd: o.cwd ?? root, env, encoding: 'utf8' })
      return new Run(args, r.status ?? -1, r.stdout, r.stderr)
    },
    async agent(grant = 'rw', role) {
      const r = await ws.ok('agent', 'spawn', '--grant', grant, ...(role ? ['--role', role] : []), '--json')
      return { id: r.json.id as string, token: r.json.token as string }
    },
    file: (rel) => fs.readFileSync(path.join(root, rel), 'utf8'),
    write(rel, text) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
      fs.writeFileSync(path.join(root, rel), text)
    },
    snapshot: () => snapshotOf(root),
  }
  await ws.ok('init')
  return ws
}

/** Turn autorecord on in the workspace's config.yml (a new workspace has it off). */
export function setAutorecord(ws: { root: string }): void {
  const cfg = path.join(ws.root, '.dacli', 'config.yml')
  fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace('autorecord: false', 'autorecord: true'))
}

/** Every file under `.dacli` (cache and locks aside) with its bytes: "nothing was written" assertions. */
export function snapshotOf(root: string): Map<string, string> {
  const m = new Map<string, string>()
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      const rel = path.relative(root, p)
      if (rel.startsWith(path.join('.dacli', 'cache')) || rel.startsWith(path.join('.dacli', 'locks'))) continue
      if (e.isDirectory()) walk(p)
      else m.set(rel, fs.readFileSync(p, 'latin1'))
    }
  }
  if (fs.existsSync(path.join(root, '.dacli'))) walk(path.join(root, '.dacli'))
  return m
}

export interface Fixture {
  readonly ws: Workspace
  /** Tokens of a read-write (`worker`) and a read-only (`reader`) agent. */
  readonly rw: { id: string; token: string }
  readonly ro: { id: string; token: string }
  /** A fresh copy of the workspace, for a test that writes. */
  copy(): string
}

/**
 * Project `alpha`: 1 open (one criterion, estimated), 2 depends on 1, 3 claimed by the rw agent, 4 open with its
 * criterion checked, 5 done; a decision note.
 */
export async function fixture(): Promise<Fixture> {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'First thing', '--project', 'alpha', '--accept', 'it works', '--estimate', '1,2,3')
  await ws.ok('task', 'add', 'Second thing', '--project', 'alpha', '--depends-on', '1', '--accept', 'also')
  await ws.ok('task', 'add', 'Third owned job', '--project', 'alpha', '--accept', 'c')
  await ws.ok('task', 'add', 'Fourth ready job', '--project', 'alpha', '--accept', 'd')
  await ws.ok('task', 'add', 'Fifth finished job', '--project', 'alpha', '--accept', 'e')
  await ws.ok('task', 'check', 'alpha/4', '--all')
  await ws.ok('accept', 'alpha/5')
  await ws.ok('note', 'add', 'decision', 'Use X', '--project', 'alpha', '--rejected', 'Y')
  const rw = await ws.agent('rw', 'worker')
  const ro = await ws.agent('ro', 'reader')
  await ws.ok('task', 'claim', 'alpha/3', { as: rw.token })
  return {
    ws,
    rw,
    ro,
    copy() {
      const dir = tempDir('dacli-mcp-')
      fs.cpSync(ws.root, dir, { recursive: true })
      return dir
    },
  }
}

/** Spawn the built bin without waiting (concurrency tests). */
export function spawnBin(
  args: readonly string[],
  opts: { cwd: string; env?: Record<string, string | undefined>; as?: string },
) {
  const env = { ...baseEnv(), ...(opts.env ?? {}) }
  if (opts.as !== undefined) env.DACLI_AGENT = opts.as
  const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd, env })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => {
    stdout += d
  })
  child.stderr.on('data', (d) => {
    stderr += d
  })
  return new Promise<Run>((resolve) => child.on('close', (code) => resolve(new Run(args, code ?? -1, stdout, stderr))))
}
