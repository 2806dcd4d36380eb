// Which identities can be trusted. Agent files are
// ordinary files anyone with write access can edit, so an identity resolves only when its file is
// sound and so is every ancestor's: a-root is the one file with that id and holds no token; every
// other identity was signed by its parent (root's key for a-root's children, the parent's token-derived
// key otherwise) over its id, parent, grant, role, token hash and public key — so a raised grant or a
// swapped token shows — has a grant no higher than its parent's, shares its token hash with no other
// file, and no ancestor is retired (retiring an identity retires its subtree's effect).
//
// The chain ends at a root key, and only root keys this clone's anchor vouches for count (anchor.ts): an
// identity signed by a key planted under `a-root.keys/` is `untrusted-key`. New identities are signed over
// `retired: false` too, and a retirement carries the retirer's own signature (`retired_signature`); a
// retirement this clone has verified is remembered outside the work tree, so editing `retired: false` back
// into the file (even restoring its earlier, validly signed bytes) is `tampered-identity` and never revives it.

import { cmd } from '../../base/commands.js'
import { type EventRecord, eventContent } from '../../store/events.js'
import type { AgentFile } from './identity.js'
import { verifySignature } from './signing.js'

const ROOT = 'a-root'

export interface AgentProblem {
  agent: string
  path: string
  /** `tampered-agent`, `tampered-identity`, `untrusted-key`, `unsigned-agent` or `duplicate-token-hash`. */
  code: string
  /** The field of the file at fault (`signature`, `retired`, `grant`, `token_hash`, `parent`). */
  field: string
  message: string
}

type Signed = Omit<AgentFile, 'retired' | 'path' | 'signature' | 'retired_by' | 'retired_at' | 'retired_signature'>

/** What a parent's signature covered in dacli 0.1.0 (kept to verify the identities it spawned). */
export function agentContent(a: Signed): Record<string, unknown> {
  return {
    id: a.id,
    kind: 'agent',
    parent: a.parent,
    grant: a.grant,
    role: a.role,
    token_hash: a.token_hash,
    public_key: a.public_key,
    created: a.created,
    created_by: a.created_by,
  }
}

/** What a parent's signature covers: every field of the identity, `retired: false` included. */
export function spawnContent(a: Signed): Record<string, unknown> {
  return { ...agentContent(a), retired: false }
}

/** What a retirement's signature covers: the identity retired, by whom and when. */
export function retirementContent(
  a: Pick<AgentFile, 'id' | 'public_key' | 'token_hash' | 'retired_by' | 'retired_at'>,
): Record<string, unknown> {
  return {
    id: a.id,
    kind: 'agent-retirement',
    public_key: a.public_key,
    token_hash: a.token_hash,
    retired: true,
    retired_by: a.retired_by,
    retired_at: a.retired_at,
  }
}

/** The root keys a verdict may use: those the anchor vouches for, and every published one (to say which is which). */
export interface RootKeys {
  trusted: readonly string[]
  published: readonly string[]
  /** Identities this clone has seen retired by a valid signature. */
  retired?: ReadonlySet<string>
}

interface Context {
  byId: Map<string, AgentFile>
  byHash: Map<string, AgentFile[]>
  keys: RootKeys
}

/**
 * The root identity as every verdict sees it: its authority is the root key this clone's anchor pins (outside the
 * work tree), never its file — root's agent file deleted, or its grant edited to ro, refuses nothing under it and
 * no word of root's. Doctor reports the file itself (agentProblems, problemsOf).
 */
const ANCHORED_ROOT: AgentFile = {
  id: ROOT,
  grant: 'rw',
  role: 'root',
  parent: null,
  token_hash: null,
  public_key: null,
  signature: null,
  retired: false,
  retired_by: null,
  retired_at: null,
  retired_signature: null,
  created: null,
  created_by: null,
  path: '',
}

function contextOf(agents: readonly AgentFile[], keys: RootKeys): Context {
  const byId = new Map<string, AgentFile>()
  const byHash = new Map<string, AgentFile[]>()
  for (const a of agents) {
    if (a.id === ROOT) continue
    byId.set(a.id, a)
    if (a.token_hash !== null) byHash.set(a.token_hash, [...(byHash.get(a.token_hash) ?? []), a])
  }
  byId.set(ROOT, ANCHORED_ROOT)
  return { byId, byHash, keys }
}

/** The public keys that may sign for identity `id` (root's anchored keys, or the agent's own). */
function keysOf(ctx: Context, id: string): string[] {
  if (id === ROOT) return [...ctx.keys.trusted]
  const k = ctx.byId.get(id)?.public_key
  return k ? [k] : []
}

const signedBy = (a: AgentFile, keys: readonly string[]) =>
  verifySignature(spawnContent(a), a.signature, keys) || verifySignature(agentContent(a), a.signature, keys)

/** Is `a`'s retirement signed by an identity that may retire it (itself, an ancestor, root), with a sound key? */
function retirementSigned(a: AgentFile, ctx: Context): boolean {
  if (!a.retired || a.retired_by === null || a.retired_signature === null) return false
  const by = a.retired_by
  let cur: string | null = a.id
  const line = new Set<string>()
  while (cur !== null && !line.has(cur)) {
    line.add(cur)
    cur = ctx.byId.get(cur)?.parent ?? null
  }
  if (!line.has(by) && by !== ROOT) return false
  return verifySignature(retirementContent(a), a.retired_signature, keysOf(ctx, by))
}

function problemsOf(a: AgentFile, ctx: Context): AgentProblem[] {
  const out: AgentProblem[] = []
  const add = (code: string, field: string, message: string) =>
    out.push({ agent: a.id, path: a.path, code, field, message })
  if (a.id === ROOT) {
    if (a.token_hash !== null)
      add('tampered-agent', 'token_hash', 'has a token hash; the root identity never has a token')
    if (a.parent !== null) add('tampered-agent', 'parent', 'has a parent; the root identity has none')
    if (a.grant !== 'rw') add('tampered-agent', 'grant', `says grant ${a.grant}; the root identity is always rw`)
    if (a.retired)
      add(
        'tampered-identity',
        'retired_signature',
        'says retired: true, which nothing can sign (the root identity cannot be retired): a hand edit',
      )
    return out
  }
  const twins = ctx.byHash.get(a.token_hash ?? '') ?? []
  if (twins.length > 1) {
    const others = twins.filter((t) => t !== a).map((t) => t.id)
    add(
      'duplicate-token-hash',
      'token_hash',
      `shares its token hash with ${others.join(', ')}; one token cannot be two identities`,
    )
  }
  const parent = a.parent === null ? undefined : ctx.byId.get(a.parent)
  if (parent === undefined) {
    add(
      'tampered-agent',
      'parent',
      a.parent === null ? 'has no parent' : `names a parent, ${a.parent}, that does not exist`,
    )
    return out
  }
  if (a.grant === 'rw' && parent.grant !== 'rw') {
    add(
      'tampered-agent',
      'grant',
      `has grant rw above its parent ${parent.id}'s ro (a child's grant never exceeds its parent's)`,
    )
  }
  if (a.signature === null || a.public_key === null) {
    add(
      'unsigned-agent',
      'signature',
      'carries no signature from its parent (spawned by dacli 0.1.0, or the signature was removed)',
    )
  } else if (!signedBy(a, keysOf(ctx, parent.id))) {
    if (parent.id === ROOT && signedBy(a, ctx.keys.published)) {
      add(
        'untrusted-key',
        'signature',
        "is signed by a root key this clone's trust anchor does not vouch for (a key published under agents/a-root.keys/ by another clone, or planted there)",
      )
    } else {
      add(
        'tampered-agent',
        'signature',
        `is not signed by its parent ${parent.id} as it stands (its grant, role, token hash, public key or parent was edited)`,
      )
    }
  }
  if (!a.retired && ctx.keys.retired?.has(a.id) === true) {
    add(
      'tampered-identity',
      'retired',
      'says retired: false, but this clone has seen it retired under a valid signature; an edit cannot revive an identity',
    )
  }
  if (a.retired && !retirementSigned(a, ctx)) {
    add(
      'tampered-identity',
      'retired_signature',
      a.retired_by === null && a.retired_signature === null
        ? `says retired: true with no signed retirement (a hand edit); it stays retired, but is not known to be — ${cmd(`agent retire ${a.id}`)} signs it`
        : "carries a retirement whose signature is not its retirer's as it stands; it stays retired, but is not known to be",
    )
  }
  return out
}

/** Problems of every agent file taken with the others (doctor). */
export function agentProblems(agents: readonly AgentFile[], keys: RootKeys, rootFile: string): AgentProblem[] {
  const ctx = contextOf(agents, keys)
  const out = agents.flatMap((a) => problemsOf(a, ctx))
  if (!agents.some((a) => a.id === ROOT)) {
    out.push({
      agent: ROOT,
      path: rootFile,
      code: 'tampered-agent',
      field: 'id',
      message: 'has no file (deleted, renamed, or its id edited): the workspace no longer describes its root',
    })
  }
  return out
}

/** Ids of the identities whose retirement is signed by one who may retire them (a retired owner's claims are free). */
export function signedRetirements(agents: readonly AgentFile[], keys: RootKeys): Set<string> {
  const ctx = contextOf(agents, keys)
  return new Set(agents.filter((a) => retirementSigned(a, ctx)).map((a) => a.id))
}

/**
 * The verdict on identity `id`: the first retired identity on its lineage (itself first), and the first
 * problem on it (its own, an ancestor's, a cycle), each null when there is none. Only the lineage's
 * signatures are checked. An identity this clone remembers as retired is retired whatever its file says.
 */
export function trustOf(
  agents: readonly AgentFile[],
  id: string,
  keys: RootKeys,
): { retired: string | null; problem: string | null } {
  const ctx = contextOf(agents, keys)
  const seen = new Set<string>()
  let retired: string | null = null
  let cur: string | null = id
  while (cur !== null) {
    if (seen.has(cur)) return { retired, problem: `its lineage loops back to ${cur}` }
    seen.add(cur)
    const a = ctx.byId.get(cur)
    if (a === undefined) return { retired, problem: `${cur} does not exist` }
    if ((a.retired || keys.retired?.has(a.id) === true) && retired === null) retired = a.id
    const p = problemsOf(a, ctx).find((x) => x.field !== 'retired_signature')
    if (p !== undefined)
      return { retired, problem: a.id === id ? `${a.id} ${p.message}` : `its ancestor ${a.id} ${p.message}` }
    cur = a.parent
  }
  return { retired, problem: null }
}

/**
 * Is the event root's, signed by a root key published under agents/a-root.keys/ that this clone's anchor does not
 * vouch for yet (another clone's key before `trust accept`)? Readers still show such an event (doctor names the key,
 * untrusted-key); sync never applies it.
 */
export function signedByPublishedRoot(
  e: Pick<EventRecord, 'created_by' | 'signature'> & Parameters<typeof eventContent>[0],
  keys: RootKeys,
): boolean {
  return e.created_by === ROOT && e.signature !== null && verifySignature(eventContent(e), e.signature, keys.published)
}

/**
 * Why an event cannot be trusted as written by its `created_by`, or null when it can: it must carry that
 * identity's signature over its content (root's: a root key the anchor vouches for), and the author's file
 * must be sound. Retirement does not void what an identity signed while it was live.
 */
export function eventProblem(
  e: Pick<EventRecord, 'created_by' | 'signature'> & Parameters<typeof eventContent>[0],
  agents: readonly AgentFile[],
  keys: RootKeys,
): string | null {
  if (e.signature === null) {
    return 'it is not signed (written by dacli 0.1.0, or by hand), so nothing shows who wrote it'
  }
  const ctx = contextOf(agents, keys)
  const author = ctx.byId.get(e.created_by)
  if (author === undefined) return `its author ${e.created_by} is not an identity of this workspace`
  const p = trustOf(agents, author.id, keys).problem
  if (p !== null) return `its author's identity cannot be trusted: ${p}`
  if (!verifySignature(eventContent(e), e.signature, keysOf(ctx, author.id))) {
    if (signedByPublishedRoot(e, keys)) {
      return `it is signed by a root key this clone's trust anchor does not vouch for (untrusted-key; see ${cmd('trust show')})`
    }
    return `its signature is not ${author.id}'s: someone else wrote it, or it was edited`
  }
  return null
}
