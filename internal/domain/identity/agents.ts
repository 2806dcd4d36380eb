// Agent identities (FORMAT.md, Agent): `agents/<id>.md`. A token is shown once;
// only its SHA-256 is stored. A child's grant never exceeds its parent's.

import { randomBytes } from 'node:crypto'
import * as path from 'node:path'
import { cmd } from '../../base/commands.js'
import { ConflictError, FailureError, NotFoundError, RefusedError } from '../../base/errors.js'
import { newUlid } from '../../base/ids.js'
import { safeSegment, slugify } from '../../format/ids.js'
import { headingLine } from '../../format/markdown.js'
import { type Identity, ROOT_ID, stamp } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { assertNoLinks, atomicWrite, readText } from '../../store/fsio.js'
import { fileRefOf, type Store } from '../../store/store.js'
import type { Arbitration } from '../claims/arbiter.js'
import { dropOnRelease, refuseReleasingTheirs, refuseTheirsOnRemote } from '../claims/arbitrate.js'
import { rememberRetired } from './anchor.js'
import {
  type AgentFile,
  hashToken,
  listAgentFiles,
  readAgentFile,
  readAgentFileChecked,
  rootKeysOf,
  scanAgents,
  signerOf,
} from './identity.js'
import { agentSigner } from './signing.js'
import { retirementContent, signedRetirements, spawnContent } from './trust.js'

export type { AgentFile }

/** A fresh secret token (an agent's at spawn, or `mcp serve --http`'s launch token): shown once, stored hashed. */
export const newToken = (): string => randomBytes(24).toString('hex')

export async function listAgents(store: Store): Promise<AgentFile[]> {
  return listAgentFiles(store.dir, store.root)
}

export async function readAgent(store: Store, id: string): Promise<AgentFile> {
  safeSegment(id, 'agent id')
  const file = path.join(store.dir, 'agents', `${id}.md`)
  try {
    return await readAgentFileChecked(file, store.root)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new NotFoundError(`no agent "${id}"`, { details: { agent: id }, next: [cmd('agent list --all')] })
    }
    // There, but not readable (a link on its way, a FIFO, bad bytes): not a missing agent.
    throw new FailureError(`cannot read the agent file ${store.rel(file)}: ${(e as Error).message}`, {
      cause: e,
      details: { path: store.rel(file) },
      next: [cmd('doctor')],
    })
  }
}

export interface Spawned extends AgentFile {
  token: string
}

export async function spawnAgent(
  store: Store,
  parent: Identity,
  opts: { role: string | null; grant: 'rw' | 'ro'; name?: string | null },
): Promise<Spawned> {
  const named = opts.name ?? null
  if (opts.grant === 'rw' && parent.grant !== 'rw') {
    throw new RefusedError(
      'attenuation',
      `a child's grant cannot exceed its parent's: ${parent.id} has ${parent.grant}`,
      {
        details: { parent: parent.id, parent_grant: parent.grant, requested: opts.grant },
        next: ['spawn with --grant ro'],
      },
    )
  }
  const roleSlug = opts.role === null ? '' : slugify(opts.role, 24).replace(/^u[0-9a-f]{8}$/, 'agent')
  const dir = path.join(store.dir, 'agents')
  const created = stamp(store.now())
  // A chosen name is the id (`a-<name>`), taken once: another spawn of that name is a conflict, never a suffix.
  for (let attempt = 0; attempt < (named === null ? 8 : 1); attempt++) {
    const disc = newUlid().slice(-6).toLowerCase()
    const id = safeSegment(
      named !== null ? `a-${named}` : roleSlug === '' ? `a-${disc}` : `a-${roleSlug}-${disc}`,
      'agent id',
    )
    const token = newToken()
    // The child's public key comes from its token; the parent signs what the child is (trust.ts).
    const child = {
      id,
      parent: parent.id,
      grant: opts.grant,
      role: opts.role,
      token_hash: hashToken(token),
      public_key: agentSigner(token).publicKey,
      created,
      created_by: parent.id,
    }
    const signature = (await signerOf(store)).sign(spawnContent(child))
    const lines = [
      '---',
      `id: ${id}`,
      'kind: agent',
      `created: ${created}`,
      `created_by: ${parent.id}`,
      `parent: ${parent.id}`,
      `grant: ${opts.grant}`,
      ...(opts.role === null ? [] : [`role: ${JSON.stringify(opts.role)}`]),
      `token_hash: ${child.token_hash}`,
      `public_key: ${child.public_key}`,
      `signature: ${signature}`,
      'retired: false',
      '---',
      headingLine(1, named ?? opts.role ?? id),
      '',
      `Spawned by ${parent.id}.`,
      '',
    ]
    const file = path.join(dir, `${id}.md`)
    try {
      atomicWrite(store.system, file, lines.join('\n'), { exclusive: true })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && named !== null) {
        throw new ConflictError(`an agent named ${id} already exists (retired or not): choose another --name`, {
          details: { agent: id },
          next: [cmd(`agent show ${id}`), cmd('agent spawn --name <another-name>')],
        })
      }
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue
      throw e
    }
    const a = (await readAgentFile(file, store.root)) as AgentFile
    store.journal({
      kind: 'agent.spawned',
      ref: id,
      id,
      project: null,
      actor: parent.id,
      summary: `${opts.grant}${opts.role === null ? '' : `, role ${opts.role}`}`,
    })
    return { ...a, token }
  }
  throw new ConflictError('could not mint a unique agent id after 8 attempts')
}

/** Ancestors from the parent up to the root. */
export function lineageOf(agents: readonly AgentFile[], id: string): string[] {
  const byId = new Map(agents.map((a) => [a.id, a]))
  const out: string[] = []
  let cur = byId.get(id)?.parent ?? null
  while (cur !== null && !out.includes(cur)) {
    out.push(cur)
    cur = byId.get(cur)?.parent ?? null
  }
  return out
}

/** Retire an identity: its token stops resolving; its history and attribution stay. */
export async function retireAgent(
  store: Store,
  caller: Identity,
  id: string,
  opts: { release?: boolean; arbitration?: Arbitration } = {},
): Promise<{
  agent: AgentFile
  changed: boolean
  retiredNow: boolean
  released: { id: string; ref: string; status: string }[]
}> {
  const agent = await readAgent(store, id)
  if (id === ROOT_ID) {
    throw new RefusedError('retire-root', 'the root identity cannot be retired', { next: [cmd('agent list')] })
  }
  const everyone = await listAgents(store)
  const lineage = lineageOf(everyone, id)
  if (caller.id !== ROOT_ID && caller.id !== id && !lineage.includes(caller.id)) {
    throw new RefusedError('retire-scope', `${caller.id} may retire only itself and its descendants, not ${id}`, {
      details: { agent: id, lineage },
      next: [`ask ${lineage[0] ?? ROOT_ID} (an ancestor of ${id}) to retire it`],
    })
  }
  // Work it holds, or an identity under it holds (their tokens stop resolving with its), would be stranded: refuse,
  // or hand it back to the pool when asked to.
  const subtree = new Set([id, ...everyone.filter((a) => lineageOf(everyone, a.id).includes(id)).map((a) => a.id)])
  const held = (await store.listTasks()).tasks.filter(
    (t) => t.owner !== null && subtree.has(t.owner) && t.status !== 'done',
  )
  if (held.length > 0 && opts.release !== true && !agent.retired) {
    const refs = held.map((t) => qualifiedRef(t))
    const owners = [...new Set(held.map((t) => t.owner as string))]
    const who = owners.length === 1 && owners[0] === id ? `${id} owns` : `${id} and the identities under it own`
    throw new RefusedError(
      'retire-owner',
      `${who} ${held.length} unfinished task${held.length === 1 ? '' : 's'} (${refs.join(', ')}); retiring it would strand ${held.length === 1 ? 'it' : 'them'}`,
      {
        details: {
          agent: id,
          tasks: held.map((t) => ({ id: t.id, ref: qualifiedRef(t), status: t.status, owner: t.owner })),
        },
        next: [
          cmd(`agent retire ${id} --release (hands ${held.length === 1 ? 'it' : 'them'} back to the pool, logged)`),
          ...held.slice(0, 3).map((t) => cmd(`task release ${qualifiedRef(t)} (as ${t.owner})`)),
        ],
      },
    )
  }
  const released: { id: string; ref: string; status: string }[] = []
  if (opts.release === true) {
    // Another clone's live claim that a pulled file carries is theirs to release: refused before any task changes.
    for (const t of held) await refuseTheirsOnRemote(opts.arbitration, t, { ...caller, id: t.owner as string })
    for (const t of held) {
      const owner = t.owner as string
      const r = await store.editTask({ ...fileRefOf(store.root, t), id: t.id }, caller.id, async (e) => {
        if (e.before.owner !== owner || e.before.status === 'done') return false
        // Its claim on a remote goes too, dropped as its owner's (as task release does), or nobody could claim it there.
        const drop = await dropOnRelease(opts.arbitration, e, { ...caller, id: owner })
        refuseReleasingTheirs(e.before, drop)
        e.delete('owner')
        e.delete('claim')
        if (e.before.status === 'active') e.status = 'open'
        e.log(
          'released',
          owner === id
            ? `owner ${id} retired by ${caller.id}`
            : `owner ${owner}'s ancestor ${id} retired by ${caller.id}`,
        )
        return true
      })
      if (r.changed) released.push({ id: r.task.id, ref: qualifiedRef(r.task), status: r.task.status })
    }
  }
  // Retired already under a valid signature: nothing to do. A `retired: true` no one signed (a hand edit) is signed
  // now, as the retirement this caller makes: else an edit back to false would revive it unnoticed.
  if (agent.retired && (await signedRetirementOf(store, id))) {
    return { agent, changed: released.length > 0, retiredNow: false, released }
  }
  const file = path.join(store.dir, 'agents', `${id}.md`)
  // The retirer signs the retirement (trust.ts): an edit of `retired` back to false is then known for one.
  const retiredAt = stamp(store.now())
  const retirement = (await signerOf(store)).sign(
    retirementContent({ ...agent, retired_by: caller.id, retired_at: retiredAt }),
  )
  await store.withLock(`agent-${id}`, async () => {
    const { parseObject, renderEdited } = await import('../../format/frontmatter.js')
    assertNoLinks(file, store.dir)
    const parsed = parseObject(readText(file))
    const doc = parsed.doc.clone()
    doc.set('retired', true)
    doc.set('retired_by', caller.id)
    doc.set('retired_at', retiredAt)
    doc.set('retired_signature', retirement)
    atomicWrite(store.system, file, renderEdited(parsed, doc, parsed.split.body))
  })
  rememberRetired(store, id)
  store.journal({ kind: 'agent.retired', ref: id, id, project: null, actor: caller.id, summary: 'retired' })
  return { agent: { ...agent, retired: true }, changed: true, retiredNow: true, released }
}

/** Is this identity's retirement signed by one who may retire it (trust.ts)? */
async function signedRetirementOf(store: Store, id: string): Promise<boolean> {
  const { agents } = await scanAgents(store.dir, store.root)
  return signedRetirements(agents, rootKeysOf(store, agents)).has(id)
}
