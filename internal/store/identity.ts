// Identity from DACLI_AGENT (commands.md, Identity): unset → a-root with a
// read-write grant; set to a token → the agent whose token_hash matches; set but
// empty, unknown, or retired → exit 3. Never fall back to root.

import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { GitInfo } from '../gitx/discover.js'
import { RefusedError } from './errors.js'
import { quickFront, readFlat } from './flat.js'
import type { Identity } from './model.js'

export const ROOT_ID = 'a-root'

export const hashToken = (token: string): string => `sha256:${createHash('sha256').update(token, 'utf8').digest('hex')}`

export interface AgentFile {
  id: string
  grant: 'rw' | 'ro'
  role: string | null
  parent: string | null
  token_hash: string | null
  retired: boolean
  created: string | null
  created_by: string | null
  path: string
}

/** Read an agent file's frontmatter (flat fast path, full YAML when needed). */
export async function readAgentFile(file: string, root: string): Promise<AgentFile | null> {
  let text: string
  try {
    if (fs.lstatSync(file).isSymbolicLink()) return null
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return null
  }
  const q = quickFront(text)
  if (q === null) return null
  let d = readFlat(q.front)
  if (d === null) {
    try {
      const { parse } = await import('yaml')
      const v = parse(q.front)
      d = v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : null
    } catch {
      return null
    }
  }
  if (d === null || typeof d.id !== 'string') return null
  const parent = typeof d.parent === 'string' ? d.parent : null
  return {
    id: d.id,
    grant: d.grant === 'rw' ? 'rw' : 'ro',
    role: typeof d.role === 'string' ? d.role : null,
    parent,
    token_hash: typeof d.token_hash === 'string' ? d.token_hash : null,
    retired: d.retired === true,
    created: typeof d.created === 'string' ? d.created : null,
    created_by: typeof d.created_by === 'string' ? d.created_by : null,
    path: path.relative(root, file),
  }
}

export async function listAgentFiles(dir: string, root: string): Promise<AgentFile[]> {
  const agentsDir = path.join(dir, 'agents')
  let names: string[]
  try {
    names = fs.readdirSync(agentsDir)
  } catch {
    return []
  }
  const out: AgentFile[] = []
  for (const n of names.sort()) {
    if (!n.endsWith('.md') || n.startsWith('.')) continue
    const a = await readAgentFile(path.join(agentsDir, n), root)
    if (a !== null) out.push(a)
  }
  return out
}

export async function resolveIdentity(
  env: Readonly<Record<string, string | undefined>>,
  dir: string,
  root: string,
  git: GitInfo | null,
): Promise<Identity> {
  const token = env.DACLI_AGENT
  if (token === undefined) {
    return { id: ROOT_ID, grant: 'rw', role: 'root', display_name: gitUserName(git, env), parent: null }
  }
  if (token.trim() === '') {
    throw new RefusedError('identity', 'DACLI_AGENT is set but empty; refusing to fall back to the root identity', {
      next: ['unset DACLI_AGENT to act as the workspace root, or set it to your agent token'],
    })
  }
  const hash = hashToken(token.trim())
  const match = (await listAgentFiles(dir, root)).find((a) => a.token_hash === hash)
  if (match === undefined) {
    throw new RefusedError('identity', 'the token in DACLI_AGENT is not recognized in this workspace', {
      next: ['check DACLI_AGENT; a parent identity can mint a new token with `dacli agent spawn`'],
    })
  }
  if (match.retired) {
    throw new RefusedError('identity', `the token in DACLI_AGENT belongs to ${match.id}, which is retired`, {
      details: { agent: match.id },
      next: ['ask a parent identity for a new token (`dacli agent spawn`)'],
    })
  }
  return { id: match.id, grant: match.grant, role: match.role, display_name: null, parent: match.parent }
}

/** `user.name` from the repository's git config, then the user's (for display only). */
export function gitUserName(git: GitInfo | null, env: Readonly<Record<string, string | undefined>>): string | null {
  const home = env.HOME ?? os.homedir()
  const files = [
    ...(git ? [path.join(git.commonDir, 'config')] : []),
    path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'git', 'config'),
    path.join(home, '.gitconfig'),
  ]
  for (const f of files) {
    const v = gitConfigValue(f, 'user', 'name')
    if (v !== null) return v
  }
  return null
}

/** A value from a git config file (the simple `[section]` / `key = value` form). */
export function gitConfigValue(file: string, section: string, key: string): string | null {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return null
  }
  let inSection = false
  let found: string | null = null
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    const s = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]/.exec(line)
    if (s) {
      inSection = (s[1] as string).toLowerCase() === section && !line.includes('"')
      continue
    }
    if (!inSection) continue
    const kv = /^([A-Za-z0-9-]+)\s*=\s*(.*)$/.exec(line)
    if (kv && (kv[1] as string).toLowerCase() === key) {
      let v = (kv[2] as string).replace(/\s+[#;].*$/, '').trim()
      if (v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1)
      found = v
    }
  }
  return found
}
