// Writing a record's files into the working `.dacli/` (record pull): either the
// whole workspace on a fresh clone, or only the files a pull changed (planned
// here, written under locks by apply.ts).

import * as fs from 'node:fs'
import * as path from 'node:path'
import { isGitDirName } from '../../adapters/git/discover.js'
import type { Git, TreeFile } from '../../adapters/git/index.js'
import { tempTag } from '../../adapters/git/refs.js'
import { cmd } from '../../base/commands.js'
import { ConflictError, FailureError } from '../../base/errors.js'
import { LinkError, workspacePath } from '../../store/fsio.js'
import type { FileChangedT } from './json.js'

/**
 * Where a record-branch path is written: only inside this repository's workspace folder `ws` (its path
 * from the repository root, e.g. `.dacli` or `sub/.dacli`), each segment one plain name, and never
 * through a link — neither a folder above the workspace (`sub` → elsewhere, committed on the code
 * branch) nor any component below it (the whole path is checked, not only the leaf).
 */
function safeTarget(root: string, ws: string, treePath: string): string {
  const segs = treePath.split('/')
  const plain = segs.every((s) => s !== '' && s !== '.' && s !== '..' && !isGitDirName(s) && !/[\\\0]/.test(s))
  if (!plain || !treePath.startsWith(`${ws}/`)) {
    throw new FailureError(`the record holds a path dacli will not write: ${JSON.stringify(treePath)}`, {
      details: { path: treePath, workspace: ws },
    })
  }
  const wsSegs = ws.split('/')
  assertRealFolders(root, wsSegs.slice(0, -1))
  return workspacePath(path.join(root, ...wsSegs), segs.slice(wsSegs.length))
}

/** The folders `segs` below `root` (those that exist) are real folders, not links. */
function assertRealFolders(root: string, segs: readonly string[]): void {
  let cur = root
  for (const s of segs) {
    cur = path.join(cur, s)
    try {
      if (fs.lstatSync(cur).isSymbolicLink()) throw new LinkError(cur)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return
      throw e
    }
  }
}

/** The `.dacli` folder a record tree holds (`.dacli`, or `sub/.dacli` for a nested workspace). */
function workspaceIn(files: ReadonlyMap<string, TreeFile>): string | null {
  let best: string | null = null
  for (const p of files.keys()) {
    const dir = /^((?:[^/]+\/)*\.dacli)\/config\.yml$/.exec(p)?.[1]
    if (dir !== undefined && (best === null || dir.length < best.length)) best = dir
  }
  return best
}

/** A fresh clone: write every file of the record into a temp folder, then rename it into place. */
export async function materialize(
  git: Git,
  root: string,
  files: ReadonlyMap<string, TreeFile>,
): Promise<{ dir: string; changes: FileChangedT[] }> {
  const ws = workspaceIn(files)
  if (ws === null) {
    throw new FailureError('the record branch holds no workspace (.dacli/config.yml)', {
      next: [`check record_branch and the remote, or run ${cmd('init')}`],
    })
  }
  const final = path.join(root, ...ws.split('/'))
  assertRealFolders(root, ws.split('/'))
  const tmp = `${final}.pull-${tempTag()}`
  const changes: FileChangedT[] = []
  try {
    for (const [p, f] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (!p.startsWith(`${ws}/`)) continue
      safeTarget(root, ws, p)
      // Written into a folder this pull just created, so nothing on the way can be a link.
      const target = path.join(tmp, ...p.split('/').slice(ws.split('/').length))
      fs.mkdirSync(path.dirname(target), { recursive: true })
      fs.writeFileSync(target, await git.readBlob(f.oid), { mode: f.mode === '100755' ? 0o755 : 0o644 })
      changes.push({ path: p, change: 'added' })
    }
    try {
      fs.renameSync(tmp, final)
    } catch (e) {
      throw new ConflictError(`${final} appeared while the record was being written; nothing was changed`, {
        cause: e,
        next: [cmd('record pull')],
      })
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
  return { dir: final, changes }
}

export interface PlannedChange extends FileChangedT {
  /** The working file. */
  file: string
  /** The blob to write, or null to delete. */
  oid: string | null
}

/** The working files a move from the `from` record to the `to` record rewrites (the caller checks and writes). */
export function plannedChanges(
  root: string,
  ws: string,
  from: ReadonlyMap<string, TreeFile>,
  to: ReadonlyMap<string, TreeFile>,
): PlannedChange[] {
  const changes: PlannedChange[] = []
  for (const p of new Set([...from.keys(), ...to.keys()])) {
    const a = from.get(p)
    const b = to.get(p)
    if (a?.oid === b?.oid) continue
    changes.push({
      path: p,
      change: a === undefined ? 'added' : b === undefined ? 'deleted' : 'modified',
      file: safeTarget(root, ws, p),
      oid: b?.oid ?? null,
    })
  }
  return changes
}
