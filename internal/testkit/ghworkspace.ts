// A test workspace wired to a fake GitHub: project `alpha`, repository
// acme/widgets on the fake, and a `dacli` that passes the fake's env.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { ulid } from 'ulid'
import { services } from '../../cmd/services.js'
import { main } from '../cli/main.js'
import { bufferIO } from '../clikit/io.js'
import { newTaskBody, renderTaskFile } from '../format/taskfile.js'
import { FakeGitHub, type Visibility } from './fakegithub.js'
import { type Run, type RunOpts, table, type Workspace, workspace } from './ws.js'

export interface GitHubWorkspace {
  ws: Workspace
  gh: FakeGitHub
  /** dacli with the fake's env (GITHUB_API_URL, GH_TOKEN, no write spacing). */
  run(...args: (string | RunOpts)[]): Promise<Run>
  /**
   * The document a command produced, even where --json is refused (an applying pull or sync):
   * what the MCP server would receive.
   */
  data(...argv: string[]): Promise<{ exitCode: number; data: unknown }>
  close(): Promise<void>
}

export async function githubWorkspace(
  opts: { visibility?: Visibility; link?: boolean; allowPublic?: boolean } = {},
): Promise<GitHubWorkspace> {
  const gh = await FakeGitHub.start()
  gh.addRepo('acme/widgets', opts.visibility ?? 'private')
  const ws = await workspace()
  const run = (...args: (string | RunOpts)[]) => {
    const last = args[args.length - 1]
    const o = typeof last === 'object' ? (last as RunOpts) : {}
    const argv = args.filter((a): a is string => typeof a === 'string')
    return ws.dacli(...argv, { ...o, env: { ...gh.env(), ...(o.env ?? {}) } })
  }
  ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
  if (opts.link !== false) {
    ;(
      await run('github', 'link', 'alpha', '--repo', 'acme/widgets', ...(opts.allowPublic ? ['--allow-public'] : []))
    ).expectExit(0)
  }
  gh.resetCalls()
  const data = async (...argv: string[]) => {
    const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...gh.env() }
    delete env.DACLI_AGENT
    const out = await main(argv, { io: bufferIO(), env, cwd: ws.root, now: () => new Date(), services, table })
    return { exitCode: out.exitCode, data: out.data }
  }
  return { ws, gh, run, data, close: () => gh.close() }
}

/** Every file of the work tree (git internals aside), for "the token is nowhere" checks. */
export function allFiles(root: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else out.set(path.relative(root, p), fs.readFileSync(p, 'latin1'))
    }
  }
  walk(root)
  return out
}

/**
 * Write `n` task files of `project` straight from the format (fast: no command per task), numbered from `from`.
 * Every third task is `must`; `done(seq)` puts a task in the done folder.
 */
export function seedTasks(
  ws: Workspace,
  project: string,
  n: number,
  opts: { from?: number; done?: (seq: number) => boolean } = {},
): void {
  const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')
  for (let i = 0; i < n; i++) {
    const seq = (opts.from ?? 1) + i
    const title = `Seeded task ${seq}`
    const body = newTaskBody({ title, accept: [`criterion ${seq}`], log: `- ${at} a-root created` })
    const { text } = renderTaskFile(
      {
        id: `t-${ulid()}`,
        created: at,
        created_by: 'a-root',
        priority: seq % 3 === 0 ? 'must' : null,
        estimate: null,
        depends_on: [],
        parent: null,
      },
      body,
    )
    const folder = opts.done?.(seq) ? 'done' : 'open'
    ws.write(`.dacli/projects/${project}/tasks/${folder}/${String(seq).padStart(3, '0')}-seeded-task-${seq}.md`, text)
  }
}

/** Task id → the numbers of the issues carrying its marker (more than one is a duplicate). */
function markersOf(gh: FakeGitHub, repo: string): Map<string, number[]> {
  const out = new Map<string, number[]>()
  for (const i of gh.repo(repo).issues) {
    for (const m of (i.body ?? '').matchAll(/<!-- dacli:(t-[0-9A-Za-z]+) ws:[0-9A-Za-z]+ -->/g)) {
      out.set(m[1] as string, [...(out.get(m[1] as string) ?? []), i.number])
    }
  }
  return out
}

/** Every task file of `project` on disk: its id → the issue its github block maps (null when none). */
export function mappingsOnDisk(root: string, project: string): Map<string, number | null> {
  const out = new Map<string, number | null>()
  const dir = path.join(root, '.dacli', 'projects', project, 'tasks')
  for (const folder of fs.readdirSync(dir)) {
    for (const f of fs.readdirSync(path.join(dir, folder))) {
      const text = fs.readFileSync(path.join(dir, folder, f), 'utf8')
      const id = /^id: (t-\w+)$/m.exec(text)?.[1] as string
      // The block is written in flow style by pull and in block style by push's write-back.
      const m = /^github:(?: \{issue: (\d+),|\n {2}issue: (\d+)$)/m.exec(text)
      const issue = m?.[1] ?? m?.[2]
      out.set(id, issue === undefined ? null : Number(issue))
    }
  }
  return out
}

/**
 * What stands between a pushed project and convergence, read from GitHub and from the bytes on disk: markers on
 * more than one issue, and tasks whose github block does not name the one issue carrying their marker.
 */
export function divergence(w: GitHubWorkspace, repo: string, project: string) {
  const markers = markersOf(w.gh, repo)
  const disk = mappingsOnDisk(w.ws.root, project)
  return {
    tasks: disk.size,
    duplicates: [...markers].filter(([, n]) => n.length > 1),
    mismatched: [...disk].filter(([id, issue]) => issue === null || markers.get(id)?.join() !== String(issue)),
  }
}

/** With GitHub healthy again, push once more: what it did and how many writes it sent (0 when converged). */
export async function settle(w: GitHubWorkspace, project: string) {
  w.gh.clearFaults()
  w.gh.resetCalls()
  const r = (await w.run('github', 'push', project, '--json')).expectExit(0)
  return { outcomes: r.json.outcomes as Record<string, number>, writes: w.gh.writes().length }
}
