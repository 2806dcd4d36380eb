// A test workspace wired to a fake GitHub: project `alpha`, repository
// acme/widgets on the fake, and a `dacli` that passes the fake's env.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { main } from '../cli/main.js'
import { bufferIO } from '../clikit/io.js'
import { services } from '../runtime/services.js'
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
