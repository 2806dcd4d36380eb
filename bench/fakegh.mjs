// The test kit's fake GitHub (internal/testkit/fakegithub.ts, a real HTTP server on 127.0.0.1) for the
// benchmark's `github push --dry-run` scenarios. The harness measures with spawnSync, which would block a
// server living in its own process, so the fake runs in a child: bundled from the TypeScript source with
// esbuild, started with one private repository, and stopped with the harness.
//
//   const gh = await startFakeGitHub(workDir, 'bench/repo', { issues: 50_000 })
//   // { env, stop(), requests(): Promise<number> (calls answered since the last ask), touch(n): Promise<void> }
// `issues` adds that many issues last changed an hour ago; `requests()` counts the calls the fake answered since
// the previous count (the fake counts every request); `touch(n)` changes n issues now, as a person on GitHub would.

import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

export async function startFakeGitHub(work, repo, opts = {}) {
  const { build } = await import('esbuild')
  const dir = join(work, 'fakegh')
  mkdirSync(dir, { recursive: true })
  const out = join(dir, 'fakegithub.mjs')
  await build({
    entryPoints: [join(root, 'internal', 'testkit', 'fakegithub.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: out,
    logLevel: 'warning',
  })
  const script = `
    const { FakeGitHub } = await import(${JSON.stringify(out)})
    const f = await FakeGitHub.start()
    f.addRepo(${JSON.stringify(repo)}, 'private')
    const hourAgo = new Date(Date.now() - 3600000).toISOString()
    for (let n = 1; n <= ${Number(opts.issues ?? 0)}; n++) {
      f.addIssue(${JSON.stringify(repo)}, { title: 'Issue ' + n + ' from the tracker', body: 'Reported by a user.', created_at: hourAgo, updated_at: hourAgo })
    }
    process.on('message', (m) => {
      if (m === 'requests') {
        process.send(f.calls.length)
        f.resetCalls()
      } else if (m && typeof m.touch === 'number') {
        const issues = f.repo(${JSON.stringify(repo)}).issues
        for (let i = 0; i < m.touch; i++) Object.assign(issues[i], { title: issues[i].title + ' (edited)', updated_at: new Date().toISOString() })
        process.send('touched')
      }
    })
    process.stdout.write(JSON.stringify(f.env()) + '\\n')
    process.stdin.resume()
    process.stdin.on('end', () => f.close().then(() => process.exit(0)))
  `
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['pipe', 'pipe', 'inherit', 'ipc'],
  })
  const ask = (m) =>
    new Promise((resolve) => {
      child.once('message', resolve)
      child.send(m)
    })
  const env = await new Promise((resolve, reject) => {
    let buf = ''
    child.stdout.on('data', (d) => {
      buf += d
      const nl = buf.indexOf('\n')
      if (nl !== -1) resolve(JSON.parse(buf.slice(0, nl)))
    })
    child.on('exit', (code) => reject(new Error(`the fake GitHub exited (${code})`)))
  })
  return {
    env,
    requests: () => ask('requests'),
    touch: (n) => ask({ touch: n }),
    stop: () => {
      child.stdin.end()
      child.disconnect()
    },
  }
}
