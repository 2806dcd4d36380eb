// `dacli init`: create `.dacli/` (FORMAT.md layout). Inside a git work tree the
// workspace goes to the repository root (the main worktree's, from a linked
// worktree) unless `here` is set.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { gitInfoAt } from '../adapters/git/discover.js'
import { cmd } from '../base/commands.js'
import { ConflictError, FailureError, UsageError } from '../base/errors.js'
import { newUlid } from '../base/ids.js'
import { ROOT_ID, stamp } from '../format/model.js'
import {
  DEFAULT_RECORD_BRANCH,
  FORMAT_VERSION,
  GITIGNORE,
  pullCommand,
  remoteWithRecord,
  WORKSPACE_DIR,
} from './workspace.js'

export interface InitResult {
  id: string
  name: string
  root: string
  dir: string
  in_git: boolean
  record_branch: string
}

const q = (s: string) => (/^[A-Za-z0-9][A-Za-z0-9 ._/-]*$/.test(s) && !s.endsWith(' ') ? s : JSON.stringify(s))

/** Where `init` would put the workspace folder from `cwd`. */
export function initTarget(cwd: string, here: boolean): string {
  const git = gitInfoAt(cwd)
  return path.join(here || git === null ? path.resolve(cwd) : git.mainWorkTree, WORKSPACE_DIR)
}

export function initWorkspace(
  cwd: string,
  opts: { name?: string; here?: boolean; force?: boolean; now: Date },
): InitResult {
  const git = gitInfoAt(cwd)
  if (opts.here && git?.linked) {
    throw new UsageError(
      `--here inside a linked worktree would make a store dacli never reads: every worktree of a clone uses the main worktree's (${path.join(git.mainWorkTree, WORKSPACE_DIR)})`,
      { next: [cmd(`init (creates it in ${git.mainWorkTree})`)] },
    )
  }
  const root = opts.here || git === null ? path.resolve(cwd) : git.mainWorkTree
  const dir = path.join(root, WORKSPACE_DIR)
  let exists = false
  try {
    fs.lstatSync(dir)
    exists = true
  } catch {
    exists = false
  }
  if (exists) {
    throw new ConflictError(`a workspace already exists at ${dir}`, {
      details: { path: dir },
      next: [cmd('status')],
    })
  }
  // A clone without its workspace yet: the remote's is one pull away.
  const cloneHasOne = git !== null && fs.existsSync(path.join(git.mainWorkTree, WORKSPACE_DIR))
  const remote = opts.force || cloneHasOne ? null : remoteWithRecord(git)
  if (remote !== null) {
    throw new ConflictError(
      `the remote \`${remote}\` has a dacli record branch: run \`${pullCommand(remote)}\` to get its workspace (init --force starts a separate one)`,
      {
        details: { remote, record_branch: DEFAULT_RECORD_BRANCH },
        next: [pullCommand(remote), cmd('init --force (a separate workspace, with its own id)')],
      },
    )
  }
  const name = (opts.name ?? path.basename(root)).trim() || 'workspace'
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new FailureError('the workspace name contains a control character')
  const id = newUlid()
  const created = stamp(opts.now)
  try {
    fs.mkdirSync(dir)
    for (const sub of ['agents', 'projects', 'events']) fs.mkdirSync(path.join(dir, sub))
    fs.writeFileSync(
      path.join(dir, 'config.yml'),
      [
        `# dacli workspace settings, checked by ${cmd('doctor')}; every key is described in FORMAT.md, shipped with dacli`,
        `id: ${id}`,
        `name: ${q(name)}`,
        `format: ${FORMAT_VERSION}`,
        `record_branch: ${DEFAULT_RECORD_BRANCH}`,
        'autorecord: false',
        'claim_lease: 2h',
        '',
      ].join('\n'),
    )
    fs.writeFileSync(path.join(dir, '.gitignore'), GITIGNORE)
    fs.writeFileSync(
      path.join(dir, 'agents', `${ROOT_ID}.md`),
      [
        '---',
        `id: ${ROOT_ID}`,
        'kind: agent',
        `created: ${created}`,
        `created_by: ${ROOT_ID}`,
        'grant: rw',
        'role: root',
        '---',
        '# root',
        '',
        'The workspace root identity: whoever runs dacli without DACLI_AGENT.',
        '',
      ].join('\n'),
    )
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true })
    throw new FailureError(`could not create ${dir}`, { cause: e })
  }
  return { id, name, root, dir, in_git: git !== null, record_branch: DEFAULT_RECORD_BRANCH }
}
