// Identity from DACLI_AGENT: unset → a-root with a
// read-write grant; set to a token → the agent whose token_hash matches; set but
// empty, unknown, or retired → exit 3. Never fall back to root.

import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { cmd } from '../../base/commands.js'
import { FailureError, RefusedError } from '../../base/errors.js'
import { parseData } from '../../format/flat.js'
import { isId } from '../../format/ids.js'
import { type Broken, brokenOf, type Identity, InvalidValueError, ParseError, ROOT_ID } from '../../format/model.js'
import { isTempName, LinkError, linkOnPath, readText } from '../../store/fsio.js'
import type { Store } from '../../store/store.js'
import type { Roster } from '../claims/ownership.js'
import { publishedRootKeys, rememberedRetired, rememberRetired, rootKeyFile, trustedRootKeys } from './anchor.js'
import { agentSigner, isPublicKey, rootSigner, type Signer } from './signing.js'
import { type RootKeys, signedRetirements, trustOf } from './trust.js'

export const hashToken = (token: string): string => `sha256:${createHash('sha256').update(token, 'utf8').digest('hex')}`

export interface AgentFile {
  id: string
  grant: 'rw' | 'ro'
  role: string | null
  parent: string | null
  token_hash: string | null
  /** `ed25519:…`, derived from the token at spawn (null in files written by dacli 0.1.0). */
  public_key: string | null
  /** The parent's signature over the identity (trust.ts, agentContent). */
  signature: string | null
  retired: boolean
  /** Who retired it, when, and their signature over the retirement (trust.ts, retirementContent); null before. */
  retired_by: string | null
  retired_at: string | null
  retired_signature: string | null
  created: string | null
  created_by: string | null
  path: string
}

/** Agent files already read by this process, by path, with the lstat stamp they were read at. */
const agentCache = new Map<string, { stamp: string; agent: AgentFile }>()

/**
 * Read and check an agent file's frontmatter (flat fast path, full YAML when needed). Throws a
 * ParseError (an InvalidValueError for an id out of format or not matching the file name) for a file
 * that cannot be an identity. A long-running server re-reads only files whose stamp moved.
 */
export async function readAgentFileChecked(file: string, root: string): Promise<AgentFile> {
  // Never through a link: the file itself, or a folder on its way (a linked agents/).
  const link = linkOnPath(file)
  if (link !== null) throw new LinkError(link)
  const st = fs.lstatSync(file)
  if (st.isSymbolicLink()) throw new LinkError(file)
  const key = `${st.size}:${st.mtimeMs}:${st.ino}`
  const hit = agentCache.get(file)
  if (hit !== undefined && hit.stamp === key) return hit.agent
  // The subset reader first, the YAML library when needed (parseData: the same path as every object file).
  const { data: d } = await parseData(readText(file))
  if (typeof d.id !== 'string') throw new ParseError('missing "id" in frontmatter')
  const agent = agentOf(d, path.relative(root, file))
  if (path.basename(file) !== `${agent.id}.md`) {
    throw new InvalidValueError(
      'invalid-id',
      'id',
      `field "id" is ${JSON.stringify(agent.id)} but the file is ${path.basename(file)}`,
    )
  }
  agentCache.set(file, { stamp: key, agent })
  return agent
}

function agentOf(d: Record<string, unknown>, rel: string): AgentFile {
  if (!isId('agent', d.id)) {
    throw new InvalidValueError(
      'invalid-id',
      'id',
      `field "id" is ${JSON.stringify(d.id)}; expected a-root or a-<role>-<6 characters>`,
    )
  }
  const opt = (field: string, check: (v: unknown) => boolean, want: string) => {
    const v = d[field]
    if (v !== undefined && v !== null && !check(v)) {
      throw new InvalidValueError('invalid-field', field, `field "${field}" is ${JSON.stringify(v)}; expected ${want}`)
    }
    return v === undefined || v === null ? null : v
  }
  const parent = opt('parent', (v) => isId('agent', v), 'an agent id')
  if (parent !== null && !isId('agent', parent)) {
    throw new InvalidValueError(
      'invalid-id',
      'parent',
      `field "parent" is ${JSON.stringify(parent)}; expected an agent id`,
    )
  }
  const grant = opt('grant', (v) => v === 'rw' || v === 'ro', 'rw or ro')
  return {
    id: d.id as string,
    grant: grant === 'rw' ? 'rw' : 'ro',
    role: ((r) => (r === null ? null : String(r)))(
      opt('role', (v) => typeof v === 'string' || typeof v === 'number', 'a word'),
    ),
    parent: parent as string | null,
    token_hash: opt('token_hash', (v) => typeof v === 'string' && /^sha256:[0-9a-f]{64}$/.test(v), 'sha256:<hex>') as
      | string
      | null,
    public_key: opt('public_key', isPublicKey, 'ed25519:<key>') as string | null,
    signature: opt('signature', (v) => typeof v === 'string', 'ed25519:<signature>') as string | null,
    retired: opt('retired', (v) => typeof v === 'boolean', 'true or false') === true,
    retired_by: opt('retired_by', (v) => isId('agent', v), 'an agent id') as string | null,
    retired_at: opt('retired_at', (v) => typeof v === 'string', 'a time stamp') as string | null,
    retired_signature: opt('retired_signature', (v) => typeof v === 'string', 'ed25519:<signature>') as string | null,
    created: typeof d.created === 'string' ? d.created : null,
    created_by: typeof d.created_by === 'string' ? d.created_by : null,
    path: rel,
  }
}

/** An agent file, or null when it cannot be read as one (doctor reports why). */
export async function readAgentFile(file: string, root: string): Promise<AgentFile | null> {
  try {
    return await readAgentFileChecked(file, root)
  } catch {
    return null
  }
}

/** Every readable agent file, and the files under agents/ that are not (never followed through a link). */
export async function scanAgents(dir: string, root: string): Promise<{ agents: AgentFile[]; broken: Broken[] }> {
  const agentsDir = path.join(dir, 'agents')
  const agents: AgentFile[] = []
  const broken: Broken[] = []
  const rel = (p: string) => path.relative(root, p).split(path.sep).join('/')
  const link = linkOnPath(agentsDir, dir)
  if (link !== null) return { agents, broken: [brokenOf(rel(link), new LinkError(link))] }
  let names: string[]
  try {
    names = fs.readdirSync(agentsDir)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { agents, broken }
    throw e
  }
  for (const n of names.sort()) {
    if (!n.endsWith('.md') || n.startsWith('.') || isTempName(n)) continue
    const file = path.join(agentsDir, n)
    try {
      agents.push(await readAgentFileChecked(file, root))
    } catch (e) {
      broken.push(brokenOf(rel(file), e))
    }
  }
  return { agents, broken }
}

export async function listAgentFiles(dir: string, root: string): Promise<AgentFile[]> {
  return (await scanAgents(dir, root)).agents
}

/**
 * How the token being resolved reached dacli, for refusals to name it and say what its sender can change: the
 * DACLI_AGENT of a command or of a stdio server's launch, or the bearer token of an HTTP request (`mcp serve
 * --http`), whose sender sets a header, not the server's environment.
 */
export interface TokenVia {
  /** The token as a refusal names it: `the token in DACLI_AGENT`, `the bearer token`. */
  readonly token: string
  /** What to do with a new token once minted. */
  readonly send: string
  /** What to do when the token is not recognized. */
  readonly check: string
  /** What to do when the token now resolves to another identity than the one a server or session was bound to. */
  readonly rebind: string
}

export const VIA_ENV: TokenVia = {
  token: 'the token in DACLI_AGENT',
  send: 'set it as DACLI_AGENT',
  check: 'check DACLI_AGENT',
  rebind: 'restart the server with the right DACLI_AGENT',
}

export const VIA_BEARER: TokenVia = {
  token: 'the bearer token',
  send: 'open a new session with it in `Authorization: Bearer <token>`',
  check: 'check the token in your `Authorization: Bearer <token>` header',
  rebind: 'open a new session with your own token in `Authorization: Bearer <token>`',
}

/**
 * Resolve DACLI_AGENT. A token resolves only to an identity that is sound (see trust.ts: its file not
 * tampered with, its token hash its own) and whose every ancestor is sound and not retired: retiring an
 * identity retires the effect of its whole subtree. Called on every command, and on every MCP tool call.
 * `via` is how the token arrived (an HTTP caller's bearer token is put in DACLI_AGENT for its calls).
 */
export async function resolveIdentity(store: Store, via: TokenVia = VIA_ENV): Promise<Identity> {
  const { dir, root } = store
  const token = store.env.DACLI_AGENT
  if (token === undefined) {
    return { id: ROOT_ID, grant: 'rw', role: 'root', parent: null }
  }
  if (token.trim() === '') {
    throw new RefusedError('identity', 'DACLI_AGENT is set but empty; refusing to fall back to the root identity', {
      next: ['unset DACLI_AGENT to act as the workspace root, or set it to your agent token'],
    })
  }
  const { agents, broken } = await scanAgents(dir, root)
  const linked = broken.find((b) => b.code === 'symlink-in-workspace')
  if (linked !== undefined) throw new LinkError(path.join(root, linked.path))
  const hash = hashToken(token.trim())
  const matches = agents.filter((a) => a.token_hash === hash)
  const newToken = `ask a live parent identity for a new token (\`${cmd('agent spawn')}\`) and ${via.send}`
  if (matches.length === 0) {
    throw new RefusedError('identity', `${via.token} is not recognized in this workspace`, {
      next: [`${via.check}; a parent identity can mint a new token with \`${cmd('agent spawn')}\``],
    })
  }
  const match = matches[0] as AgentFile
  const verdict = trustOf(agents, match.id, rootKeysOf(store, agents))
  if (verdict.retired !== null) {
    const self = verdict.retired === match.id
    throw new RefusedError(
      'identity',
      self
        ? `${via.token} belongs to ${match.id}, which is retired`
        : `${via.token} belongs to ${match.id}, whose ancestor ${verdict.retired} is retired`,
      {
        details: { agent: match.id, retired: verdict.retired },
        next: [newToken],
      },
    )
  }
  if (verdict.problem !== null) {
    throw new RefusedError('identity', `${via.token} cannot be trusted: ${verdict.problem}`, {
      details: { agent: match.id },
      next: [
        cmd('doctor (it names the tampered agent file)'),
        cmd('trust show (the root keys this clone trusts)'),
        newToken,
      ],
    })
  }
  if (match.public_key !== agentSigner(token.trim()).publicKey) {
    throw new RefusedError('identity', `${via.token} cannot be trusted: ${match.id}'s public key is not its token's`, {
      details: { agent: match.id },
      next: [newToken],
    })
  }
  return { id: match.id, grant: match.grant, role: match.role, parent: match.parent }
}

/** The identity this invocation acts as (resolved once per store; `via`: how its token arrived). */
export function identityOf(store: Store, via: TokenVia = VIA_ENV): Promise<Identity> {
  return store.once('identity', () => resolveIdentity(store, via))
}

/**
 * The root keys verdicts use (the anchor's and every published one) and the retirements this clone
 * remembers; a retirement found signed and not yet remembered is remembered now (anchor.ts).
 */
export function rootKeysOf(store: Store, agents: readonly AgentFile[]): RootKeys {
  const keys: RootKeys = {
    trusted: trustedRootKeys(store),
    published: publishedRootKeys(store.dir).flatMap((k) => (k.key === null ? [] : [k.key])),
    retired: rememberedRetired(store),
  }
  for (const id of signedRetirements(agents, keys)) {
    if (!keys.retired?.has(id)) rememberRetired(store, id)
  }
  return { ...keys, retired: rememberedRetired(store) }
}

/**
 * Ids of identities with a read-only grant, trusted ones only (read once per store): a grant lowered by an
 * edit must not hand its owner's tasks to any rw identity.
 */
export function readOnlyIdentities(store: Store): Promise<Set<string>> {
  return store.once('read-only-identities', async () => {
    const all = await listAgentFiles(store.dir, store.root)
    const keys = rootKeysOf(store, all)
    return new Set(all.filter((a) => a.grant === 'ro' && trustOf(all, a.id, keys).problem === null).map((a) => a.id))
  })
}

/**
 * Ids of retired identities whose retirement is signed or remembered, and of every identity under one of them (its
 * token stops resolving with its ancestor's): a retired owner's claim may be taken over.
 */
export async function retiredIdentities(store: Store): Promise<Set<string>> {
  const all = await listAgentFiles(store.dir, store.root)
  const keys = rootKeysOf(store, all)
  const out = new Set([...signedRetirements(all, keys), ...(keys.retired ?? [])])
  const parentOf = new Map(all.map((a) => [a.id, a.parent]))
  for (const a of all) {
    const seen = new Set<string>()
    for (let p = a.parent; p !== null && p !== undefined && !seen.has(p); p = parentOf.get(p) ?? null) {
      seen.add(p)
      if (out.has(p)) {
        out.add(a.id)
        break
      }
    }
  }
  return out
}

/**
 * The identities a claim's owner is judged against (domain/claims/ownership.ts): the retired ones, and every id an
 * agent file bears — a file that cannot be read still names its identity (its file name), so an owner is missing
 * only when no file of that name exists at all. Read once per invocation, and only when asked: it checks the
 * published root keys (Ed25519, SHA-256), so a claim of a free task never reads it.
 */
export function rosterOf(store: Store): Promise<Roster> {
  return store.once('roster', async () => {
    const { agents, broken } = await scanAgents(store.dir, store.root)
    const known = new Set([ROOT_ID, ...agents.map((a) => a.id), ...broken.map((b) => path.basename(b.path, '.md'))])
    return { retired: await retiredIdentities(store), known }
  })
}

/**
 * The acting identity's signer (events, the agent files it spawns): an agent's key comes from its token;
 * root's is this clone's root key, kept in the git directory (`dacli/root-key`), never in the work tree.
 */
export function signerOf(store: Store): Promise<Signer> {
  return store.once('signer', async () => {
    const who = await identityOf(store)
    if (who.id !== ROOT_ID) return agentSigner((store.env.DACLI_AGENT ?? '').trim())
    const keyFile = rootKeyFile(store)
    if (keyFile === null) {
      throw new FailureError('no place outside the work tree for the root key: set HOME or XDG_CONFIG_HOME', {
        next: ['set HOME (or XDG_CONFIG_HOME) and run again'],
      })
    }
    return rootSigner(store.system, store.dir, keyFile)
  })
}
