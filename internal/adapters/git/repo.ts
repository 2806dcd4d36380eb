// The `Git` interface implemented over isomorphic-git (objects, history) plus
// git's own ref protocol (refs.ts) and, for remotes, the system `git` binary
// (remote.ts). Every call passes the *common* git directory as `gitdir`: inside
// a linked worktree isomorphic-git would otherwise put objects and refs under
// `.git/worktrees/<name>/`, where git never looks for them.

import { readFileSync } from 'node:fs'
import { deflateSync } from 'node:zlib'
import { FailureError } from '../../base/errors.js'
import type { Proc } from '../../base/system.js'
import type { GitInfo } from './discover.js'
import type { CommitInfo, FileChange, Git, TreeFile } from './index.js'
import { isoFsFor } from './isofs.js'
import { diffTreeBodies, parseCommit, parseTree, readLoose } from './loose.js'
import type { LocalDir } from './objects.js'
import {
  type CommitFields,
  commitBody,
  isTreeMode,
  type ObjectType,
  objectId,
  TREE_MODE,
  type TreeItem,
  trailersOf,
  treeBody,
} from './objects.js'
import { compareAndSwapRef, readRef, trackingRefs } from './refs.js'
import { type Deadline, fetchRef, pushRef } from './remote.js'

/**
 * isomorphic-git, imported on first use: reads of loose objects (nearly all a
 * record and a history walk need) never load it; writes and packed reads do.
 */
let isoModule: Promise<typeof import('isomorphic-git')> | undefined
const isogit = () => {
  // A CommonJS module: bundled, its functions hang off the default export.
  isoModule ??= import('isomorphic-git').then((m) => (m.default ?? m) as typeof import('isomorphic-git'))
  return isoModule
}

const EMPTY = Buffer.alloc(0)

const join = (base: string, name: string) => (base === '' ? name : `${base}/${name}`)

export class Repo implements Git {
  /** isomorphic-git's cache (pack indexes), shared by every read of this instance. */
  private readonly cache = {}
  private readonly trees = new Map<string, TreeItem[]>()
  private readonly commits = new Map<string, CommitInfo>()
  private readonly bodies = new Map<string, Buffer>()
  private readonly gitdir: string

  /** The file system isomorphic-git writes through (temp file, then rename; named for this process). */
  private readonly isoFs: ReturnType<typeof isoFsFor>

  constructor(
    readonly repo: GitInfo,
    private readonly env: Readonly<Record<string, string | undefined>>,
    /** The running process, as the bin handed it down. */
    readonly system: Proc,
  ) {
    this.gitdir = repo.commonDir
    this.isoFs = isoFsFor(system)
  }

  async resolve(ref: string): Promise<string | null> {
    return readRef(this.repo.gitDir, this.repo.commonDir, ref)
  }

  async remoteTips(branch: string): Promise<{ ref: string; oid: string }[]> {
    return trackingRefs(this.repo.commonDir, branch)
  }

  async mainHead(): Promise<string | null> {
    // The main worktree's HEAD: the workspace belongs to the main worktree.
    return readRef(this.repo.commonDir, this.repo.commonDir, 'HEAD')
  }

  async readCommit(oid: string): Promise<CommitInfo> {
    const hit = this.commits.get(oid)
    if (hit !== undefined) return hit
    const loose = readLoose(this.gitdir, oid)
    const commit =
      loose?.type === 'commit'
        ? { ...parseCommit(loose.body) }
        : await (await isogit())
            .readCommit({ fs: this.isoFs, gitdir: this.gitdir, oid, cache: this.cache })
            .then(({ commit: c }) => ({ ...c, parents: c.parent }))
    const t = trailersOf(commit.message)
    const info: CommitInfo = {
      id: oid,
      parents: commit.parents,
      tree: commit.tree,
      author: commit.author,
      committer: commit.committer,
      message: commit.message,
      agent: t['Dacli-Agent'] ?? null,
      command: t['Dacli-Command'] ?? null,
    }
    this.commits.set(oid, info)
    return info
  }

  async readTree(oid: string): Promise<TreeItem[]> {
    const hit = this.trees.get(oid)
    if (hit !== undefined) return hit
    const loose = readLoose(this.gitdir, oid)
    const items =
      loose?.type === 'tree'
        ? parseTree(loose.body).map((e) => (isTreeMode(e.mode) ? { ...e, mode: TREE_MODE } : e))
        : (await (await isogit()).readTree({ fs: this.isoFs, gitdir: this.gitdir, oid, cache: this.cache })).tree.map(
            (e) => ({
              name: e.path,
              mode: isTreeMode(e.mode) ? TREE_MODE : e.mode,
              oid: e.oid,
            }),
          )
    this.trees.set(oid, items)
    return items
  }

  /** A tree's raw body (loose: as stored; packed: re-encoded, which is byte-identical for a valid tree). */
  private async treeBody(oid: string): Promise<Buffer> {
    let body = this.bodies.get(oid)
    if (body === undefined) {
      const loose = readLoose(this.gitdir, oid)
      body = loose?.type === 'tree' ? loose.body : treeBody(await this.readTree(oid))
      this.bodies.set(oid, body)
    }
    return body
  }

  async readBlob(oid: string): Promise<Buffer> {
    const loose = readLoose(this.gitdir, oid)
    if (loose?.type === 'blob') return loose.body
    const { blob } = await (await isogit()).readBlob({ fs: this.isoFs, gitdir: this.gitdir, oid, cache: this.cache })
    return Buffer.from(blob)
  }

  /** The tree at `under` (a `/`-separated path) inside `tree`, or null. */
  async subtree(tree: string | null, under: string): Promise<string | null> {
    let cur = tree
    for (const seg of under.split('/').filter((s) => s !== '')) {
      if (cur === null) return null
      const e = (await this.readTree(cur)).find((i) => i.name === seg)
      cur = e !== undefined && isTreeMode(e.mode) ? e.oid : null
    }
    return cur
  }

  async listFiles(tree: string | null, under = ''): Promise<Map<string, TreeFile>> {
    const out = new Map<string, TreeFile>()
    const start = await this.subtree(tree, under)
    const walk = async (oid: string, base: string) => {
      for (const e of await this.readTree(oid)) {
        const p = join(base, e.name)
        if (isTreeMode(e.mode)) await walk(e.oid, p)
        else out.set(p, { oid: e.oid, mode: e.mode })
      }
    }
    if (start !== null) await walk(start, under.replace(/\/+$/, ''))
    return out
  }

  async diff(from: string | null, to: string | null, under = ''): Promise<FileChange[]> {
    const out: FileChange[] = []
    const a = await this.subtree(from, under)
    const b = await this.subtree(to, under)
    const rec = async (x: string | null, y: string | null, base: string) => {
      if (x === y) return
      const deltas = diffTreeBodies(
        x === null ? EMPTY : await this.treeBody(x),
        y === null ? EMPTY : await this.treeBody(y),
      )
      for (const { name, before: ex, after: ey } of deltas) {
        const p = join(base, name)
        const xt = ex !== null && isTreeMode(ex.mode)
        const yt = ey !== null && isTreeMode(ey.mode)
        if (xt || yt) await rec(xt ? (ex?.oid ?? null) : null, yt ? (ey?.oid ?? null) : null, p)
        const xb = ex !== null && !xt ? ex : null
        const yb = ey !== null && !yt ? ey : null
        if (xb === null && yb === null) continue
        out.push({
          path: p,
          change: xb === null ? 'added' : yb === null ? 'deleted' : 'modified',
          oid: yb?.oid ?? null,
          old_oid: xb?.oid ?? null,
        })
      }
    }
    await rec(a, b, under.replace(/\/+$/, ''))
    return out.sort((p, q) => (p.path < q.path ? -1 : p.path > q.path ? 1 : 0))
  }

  private async writeObject(type: ObjectType, body: Buffer, expected?: string): Promise<string> {
    const oid = objectId(type, body)
    if (expected !== undefined && oid !== expected) {
      throw new FailureError(`internal error: ${type} hashed to ${oid}, expected ${expected}`)
    }
    const wrapped = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body])
    await (await isogit()).writeObject({
      fs: this.isoFs,
      gitdir: this.gitdir,
      type,
      object: deflateSync(wrapped),
      format: 'deflated',
      oid,
    })
    return oid
  }

  writeBlob(content: Buffer): Promise<string> {
    return this.writeObject('blob', content)
  }

  writeTree(items: readonly TreeItem[]): Promise<string> {
    return this.writeObject('tree', treeBody(items))
  }

  writeCommit(c: CommitFields): Promise<string> {
    return this.writeObject('commit', commitBody(c))
  }

  async writeFiles(files: ReadonlyMap<string, TreeFile>): Promise<string> {
    interface Node {
      files: TreeItem[]
      dirs: Map<string, Node>
    }
    const root: Node = { files: [], dirs: new Map() }
    for (const [p, f] of files) {
      const segs = p.split('/')
      let cur = root
      for (const s of segs.slice(0, -1)) {
        let n = cur.dirs.get(s)
        if (n === undefined) {
          n = { files: [], dirs: new Map() }
          cur.dirs.set(s, n)
        }
        cur = n
      }
      cur.files.push({ name: segs[segs.length - 1] as string, mode: f.mode, oid: f.oid })
    }
    const write = async (n: Node): Promise<string> => {
      const items = [...n.files]
      for (const [name, d] of n.dirs) items.push({ name, mode: TREE_MODE, oid: await write(d) })
      return this.writeTree(items)
    }
    return write(root)
  }

  async writeSnapshot(local: LocalDir, parentTree: string | null): Promise<FileChange[]> {
    const changes: FileChange[] = []
    const deletedUnder = async (oid: string, base: string) => {
      for (const f of (await this.listFiles(oid)).entries()) {
        changes.push({ path: join(base, f[0]), change: 'deleted', oid: null, old_oid: f[1].oid })
      }
    }
    const rec = async (node: LocalDir, old: string | null, base: string): Promise<void> => {
      if (node.oid === old) return // the same tree: every object below it exists already
      const olds = new Map((old === null ? [] : await this.readTree(old)).map((e) => [e.name, e]))
      for (const [name, f] of node.files) {
        const prev = olds.get(name)
        olds.delete(name)
        if (prev !== undefined && prev.oid === f.oid && prev.mode === f.mode) continue
        if (prev?.oid !== f.oid) {
          const content = f.content ?? readFileSync(f.abs)
          if (objectId('blob', content) !== f.oid) {
            throw new FailureError(`${f.abs} changed while it was being recorded; run the command again`)
          }
          await this.writeObject('blob', content, f.oid)
        }
        if (prev !== undefined && isTreeMode(prev.mode)) await deletedUnder(prev.oid, join(base, name))
        changes.push({
          path: join(base, name),
          change: prev === undefined || isTreeMode(prev.mode) ? 'added' : 'modified',
          oid: f.oid,
          old_oid: prev !== undefined && !isTreeMode(prev.mode) ? prev.oid : null,
        })
      }
      for (const [name, d] of node.dirs) {
        const prev = olds.get(name)
        olds.delete(name)
        if (prev !== undefined && !isTreeMode(prev.mode)) {
          changes.push({ path: join(base, name), change: 'deleted', oid: null, old_oid: prev.oid })
        }
        await rec(d, prev !== undefined && isTreeMode(prev.mode) ? prev.oid : null, join(base, name))
      }
      for (const [name, prev] of olds) {
        if (isTreeMode(prev.mode)) await deletedUnder(prev.oid, join(base, name))
        else changes.push({ path: join(base, name), change: 'deleted', oid: null, old_oid: prev.oid })
      }
      await this.writeObject('tree', node.body, node.oid)
    }
    await rec(local, parentTree, '')
    return changes.sort((p, q) => (p.path < q.path ? -1 : p.path > q.path ? 1 : 0))
  }

  updateRef(ref: string, next: string, expected: string | null): Promise<boolean> {
    return compareAndSwapRef(this.repo.commonDir, ref, expected, next)
  }

  async isAncestor(ancestor: string, oid: string): Promise<boolean> {
    if (ancestor === oid) return true
    return (await isogit()).isDescendent({
      fs: this.isoFs,
      gitdir: this.gitdir,
      oid,
      ancestor,
      depth: -1,
      cache: this.cache,
    })
  }

  async mergeBase(a: string, b: string): Promise<string | null> {
    const bases = (await (
      await isogit()
    ).findMergeBase({
      fs: this.isoFs,
      gitdir: this.gitdir,
      oids: [a, b],
      cache: this.cache,
    })) as string[]
    return bases[0] ?? null
  }

  async *walk(tips: readonly string[]): AsyncGenerator<CommitInfo> {
    // Newest first by committer time, every parent followed (git log's default order).
    const seen = new Set<string>(tips)
    const queue: CommitInfo[] = []
    for (const t of tips) queue.push(await this.readCommit(t))
    while (queue.length > 0) {
      let best = 0
      for (let i = 1; i < queue.length; i++) {
        if ((queue[i] as CommitInfo).committer.timestamp > (queue[best] as CommitInfo).committer.timestamp) best = i
      }
      const c = queue.splice(best, 1)[0] as CommitInfo
      yield c
      for (const p of c.parents) {
        if (seen.has(p)) continue
        seen.add(p)
        queue.push(await this.readCommit(p))
      }
    }
  }

  push(remote: string, branch: string, deadline: Deadline) {
    return pushRef(this.repo, this.env, remote, branch, deadline)
  }

  fetch(remote: string, branch: string, deadline: Deadline) {
    return fetchRef(this.repo, this.env, remote, branch, deadline)
  }
}
