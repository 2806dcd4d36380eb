// doctor's findings for hostile workspace states: files dacli refused to read
// (their code says why), links and special files anywhere under `.dacli/`, and agent files that cannot
// be trusted. Each finding names the file; a value problem names the field in its message.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { cmd } from '../../base/commands.js'
import { publishedRootKeys, readAnchor } from '../../domain/identity/anchor.js'
import { rootKeysOf, scanAgents } from '../../domain/identity/identity.js'
import { agentProblems, eventProblem } from '../../domain/identity/trust.js'
import type { Plan } from '../../domain/task/planview.js'
import { type Broken, ROOT_ID, type TaskSummary } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import type { EventRecord } from '../../store/events.js'
import { walkTree } from '../../store/fsio.js'
import { restoreProjectFileHint } from '../../store/projects.js'
import { refusedFileOf } from '../../store/resolve.js'
import type { Store } from '../../store/store.js'
import type { DoctorDocT } from './json.js'

type Finding = DoctorDocT['findings'][number]

const HINTS = {
  'unparseable-object': 'fix the file by hand; dacli skips it and never overwrites it',
  'invalid-id': 'an id read from a file becomes a path, so dacli refuses it: restore the id (or remove the file)',
  'invalid-field': 'fix the field by hand; commands refuse this file rather than guess its value',
  'invalid-utf8': 'dacli would change such bytes on a rewrite, so it refuses the file: re-save it as UTF-8',
  'symlink-in-workspace':
    'dacli never reads or writes through a link inside .dacli/: replace the link with the real folder or file',
  'special-file': 'only regular files and folders belong in .dacli/: remove it',
  'unreadable-path': 'dacli cannot read it (permissions?); it is left out, never read as empty: fix its mode or owner',
  'forged-event':
    'the event was edited after it was written (its checksum does not match): remove the file (it is in git history) and ask its author to propose again',
  'duplicate-event':
    'two files carry one event id (a copy or a replayed file): dacli counts one of them; remove this copy once you have checked it',
} satisfies Record<string, string>
const hasHint = (code: string): code is keyof typeof HINTS => Object.hasOwn(HINTS, code)

/** A finding for a file a listing skipped. */
export function brokenFinding(b: Broken): Finding {
  // A project folder without its file: the hint names the file to restore and the id it must carry.
  if (b.code === 'project-without-file') {
    const hint = restoreProjectFileHint(b.path, path.posix.basename(b.path))
    return { code: b.code, severity: 'error', subject: b.path, message: b.reason, hint }
  }
  const code = hasHint(b.code) ? b.code : 'unparseable-object'
  return { code, severity: 'error', subject: b.path, message: b.reason, hint: HINTS[code] }
}

/** Every link and special file under `.dacli/` (never followed). */
export function linkFindings(store: Store): Finding[] {
  const out: Finding[] = []
  walkTree(store.dir, (p, e) => {
    if (e.isSymbolicLink()) {
      let target = '?'
      try {
        target = fs.readlinkSync(p)
      } catch {
        // unreadable link: reported without its target
      }
      out.push(
        brokenFinding({ path: store.rel(p), reason: `a symbolic link (to ${target})`, code: 'symlink-in-workspace' }),
      )
    } else if (e.isDirectory()) return true
    else if (!e.isFile()) {
      const kind = e.isFIFO() ? 'a named pipe (FIFO)' : e.isSocket() ? 'a socket' : 'a device or other special file'
      out.push(brokenFinding({ path: store.rel(p), reason: `${kind}, not a regular file`, code: 'special-file' }))
    }
    return false
  })
  return out
}

/** Agent files that cannot be read as identities, and identities whose files cannot be trusted. */
export async function agentFindings(store: Store): Promise<Finding[]> {
  const { agents, broken } = await scanAgents(store.dir, store.root)
  const out = broken.map(brokenFinding)
  const keys = rootKeysOf(store, agents)
  const rootFile = path.relative(store.root, path.join(store.dir, 'agents', `${ROOT_ID}.md`))
  // A root file that is there but unreadable is reported once, as the file it is.
  const unread = broken.some((b) => b.path === rootFile)
  for (const p of agentProblems(agents, keys, rootFile)) {
    if (unread && p.agent === ROOT_ID && p.field === 'id') continue
    // Root's authority is the key the anchor pins, never its file: a root file edited or gone refuses nothing.
    const isRoot = p.agent === ROOT_ID
    out.push({
      code: p.code,
      severity: isRoot ? 'warning' : 'error',
      subject: p.path.split(path.sep).join('/'),
      // A retirement not vouched for says itself that the identity stays retired.
      message: `${p.agent} ${p.message} (field "${p.field}")${isRoot ? "; nothing is refused for it: root's authority is the key this clone's trust anchor pins, not this file" : p.field === 'retired_signature' ? '' : '; its token does not resolve'}`,
      hint: isRoot
        ? `restore the file from git history (git checkout -- ${rootFile.split(path.sep).join('/')}, or git log -- it)`
        : p.field === 'retired_signature'
          ? `${cmd(`agent retire ${p.agent}`)} signs the retirement again as you, or restore the file from git history`
          : p.code === 'duplicate-token-hash'
            ? 'retire or remove the copies that were not minted by dacli agent spawn; spawn a fresh identity'
            : p.code === 'unsigned-agent'
              ? `spawn a new identity from ${'its parent'} (dacli agent spawn) and retire this one`
              : p.code === 'untrusted-key'
                ? 'if you trust the clone that signed it, dacli trust show names its key and dacli trust accept --fingerprint <F> pins it; otherwise remove the file'
                : 'restore the file from git history (dacli record / git log), or retire it and spawn a fresh identity',
    })
  }
  return out
}

/** Published root keys this clone's anchor does not vouch for, and files under a-root.keys/ that hold no key. */
export function rootKeyFindings(store: Store): Finding[] {
  const anchor = readAnchor(store)
  const pinned = new Set(anchor.pins.map((p) => p.fingerprint))
  const out: Finding[] = []
  for (const k of publishedRootKeys(store.dir)) {
    if (k.problem === null && pinned.has(k.fingerprint ?? '')) continue
    out.push({
      code: 'untrusted-key',
      severity: 'error',
      subject: k.file,
      message:
        k.problem === null
          ? `root key ${k.fingerprint} (field "key") is published in the work tree but this clone's trust anchor does not vouch for it: nothing it signs resolves or applies`
          : `the file under agents/a-root.keys/ ${k.problem} (field "key"); it is never used`,
      hint:
        k.problem === null
          ? 'if it is the key of a clone you trust, compare the fingerprint with its owner and run dacli trust accept --fingerprint <F>; otherwise remove the file'
          : 'remove the file',
    })
  }
  return out
}

/** Events whose author cannot be shown to have written them: pending ones, and signed ones edited since. */
export async function eventFindings(store: Store, events: readonly EventRecord[]): Promise<Finding[]> {
  const suspect = events.filter((e) => !e.applied || e.signature !== null)
  if (suspect.length === 0) return []
  const { agents } = await scanAgents(store.dir, store.root)
  const rootKeys = rootKeysOf(store, agents)
  const out: Finding[] = []
  for (const e of suspect) {
    const why = eventProblem(e, agents, rootKeys)
    if (why === null) continue
    out.push({
      code: 'forged-event',
      severity: 'error',
      subject: e.path,
      message: `${e.event_kind} event ${e.id} claiming ${e.created_by} as author: ${why}; sync never applies it`,
      hint:
        e.signature === null
          ? 'ask its author to propose again (a new event is signed), then remove this file'
          : 'remove the file (it is in git history); ask the named author whether they wrote it',
    })
  }
  return out
}

/** Tasks whose `parent` chain loops back on itself (one finding per loop). */
export function parentCycles(plan: Plan): Finding[] {
  const out: Finding[] = []
  const seen = new Set<string>()
  for (const start of plan.tasks) {
    const chain: TaskSummary[] = []
    let cur: TaskSummary | null = start
    while (cur !== null && cur.parent !== null && !chain.includes(cur)) {
      chain.push(cur)
      cur = plan.target(cur, cur.parent)
    }
    if (cur === null || !chain.includes(cur)) continue
    const loop = chain.slice(chain.indexOf(cur))
    const key = loop
      .map((t) => t.id)
      .sort()
      .join(',')
    if (seen.has(key)) continue
    seen.add(key)
    const names = [...loop, cur].map(qualifiedRef)
    out.push({
      code: 'parent-cycle',
      severity: 'error',
      subject: qualifiedRef(loop[0] ?? cur),
      message: `parent cycle: ${names.join(' → ')} (each names the next as its parent)`,
      hint: `remove or change the parent: line of one of them by hand`,
    })
  }
  return out
}

/**
 * A `parent:` line that names no task (written by hand, or the parent's file removed): the task still works, but
 * every tree drops it. One whose parent is a file dacli refused to read names that file instead.
 */
export function danglingParents(store: Store, plan: Plan): Finding[] {
  const out: Finding[] = []
  for (const t of plan.tasks) {
    if (t.parent === null || plan.target(t, t.parent) !== null) continue
    const refused = refusedFileOf(store, t.parent, plan.broken)
    out.push({
      code: 'dangling-parent',
      severity: 'warning',
      subject: qualifiedRef(t),
      message:
        refused === null
          ? `its parent ${t.parent} does not resolve to one task`
          : `its parent ${t.parent} is in ${refused.path}, which cannot be read (${refused.reason})`,
      hint:
        refused === null
          ? `remove or change the parent: line of ${t.path} by hand`
          : `fix ${refused.path} by hand; the link holds`,
    })
  }
  return out
}

/**
 * Findings without repeats (one link may be met by a listing and by the walk). The hint is part of what is one
 * finding: two dangling dependencies of one task are two findings, each with its own fix.
 */
export function dedupe(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>()
  return findings.filter((f) => {
    const key = `${f.code}\u0000${f.subject}\u0000${f.hint}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
