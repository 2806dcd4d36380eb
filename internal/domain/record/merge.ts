// Merging two diverged records file by file.
//
// - A file changed on one side only takes that side's version.
// - Tasks are merged by their `id`, not by path: a task moved to `active/` on one
//   side and left alone on the other ends up moved.
// - Events are one file each, so they never collide; the one field that may
//   change (`applied`) merges forward: pending → dismissed → applied.
// - A task changed on both sides merges field by field (format/objmerge.ts); its
//   status is the folder it sits in and merges like a field. Only the same field
//   changed differently on both sides is a conflict: the task keeps theirs (what
//   the remote already published) there, and the conflict becomes a decision (a
//   question on the task, raised by the caller). A task the field merge cannot read
//   (a side or the base does not parse) keeps ours in place, with theirs as
//   `<file>.conflict-<commit>` in the project's `tasks/` folder (never inside a
//   status folder) until a person resolves it.
// - Any other file changed differently on both sides merges field by field too
//   when it is an object file; what still conflicts keeps our version in place and
//   theirs next to it as `<file>.conflict-<commit>` (not a `.md` file, so no list
//   picks it up) until a person resolves it.
// - A sequence number taken on both sides: the task created later (by its ULID
//   time) is renumbered to the next free number, with the old number kept in
//   `aliases` and a `renumbered` line in its `## Log`.

import { decodeTime } from 'ulid'
import type { Git, TreeFile } from '../../adapters/git/index.js'
import { byText } from '../../base/order.js'
import { appendToSection, checkboxes } from '../../format/markdown.js'
import { seqText, stamp } from '../../format/model.js'
import { type FieldConflict, mergeObject, type Resolver } from '../../format/objmerge.js'
import { taskIdInText } from '../../format/rawtask.js'

export interface Conflict {
  path: string
  /** Our blob (kept at `path`), or null when our side deleted the file. */
  ours: string | null
  /** Their blob, or null when their side deleted the file. */
  theirs: string | null
  /** Where their version was written, or null when it is the one kept at `path`. */
  copy: string | null
}

/** Who last changed a side of a task (its newest `## Log` line the base does not have), and when. */
export interface SideOf {
  by: string | null
  at: string | null
}

/** A task whose same field both sides changed differently: it keeps theirs; each field becomes a decision. */
export interface TaskDecision {
  id: string
  /** Where the merged task is. */
  path: string
  fields: FieldConflict[]
  ours: SideOf
  theirs: SideOf
}

export interface Renumbered {
  id: string
  project: string
  from: number
  to: number
  path: string
}

export interface MergeResult {
  files: Map<string, TreeFile>
  conflicts: Conflict[]
  decisions: TaskDecision[]
  renumbered: Renumbered[]
}

interface Version extends TreeFile {
  path: string
}

const TASK_PATH = /^(.*\/projects\/([^/]+)\/tasks\/[^/]+\/)(\d{3,})-([^/]+)\.md$/
const statusOf = (p: string) => /\/tasks\/([^/]+)\/[^/]+$/.exec(p)?.[1] ?? ''
const dirOf = (p: string) => p.slice(0, p.lastIndexOf('/') + 1)
const nameOf = (p: string) => p.slice(p.lastIndexOf('/') + 1)
/** Where their version of a file both sides changed goes: beside it, or for a task file its project's `tasks/` folder. */
const copyOf = (p: string, tag: string) => {
  const m = TASK_PATH.exec(p)
  return m === null ? `${p}.conflict-${tag}` : `${dirOf((m[1] as string).slice(0, -1))}${nameOf(p)}.conflict-${tag}`
}
const LOG_LINE = /^- (\d{4}-\d\d-\d\dT[0-9:.]+Z) (\S+) /gm

const remoteClaimAt = (v: unknown): { remote: string; at: number } | null => {
  if (typeof v !== 'object' || v === null) return null
  const c = v as Record<string, unknown>
  const at = typeof c.at === 'string' ? Date.parse(c.at) : Number.NaN
  return typeof c.remote === 'string' && !Number.isNaN(at) ? { remote: c.remote, at } : null
}

/**
 * Two claims both sides took through the same remote (`claim.remote`) are no conflict: the remote's
 * compare-and-swap ordered them, so the later one replaced the earlier (taken over once expired, or made after a
 * release) — the claim, and the owner with it, go with the later claim. A claim through a remote against one made
 * apart (`--local`) is no conflict either: the remote's stands. Two made apart, or two taken at the same second,
 * still conflict.
 */
const remoteClaims: Resolver = (key, ours, theirs) => {
  if (key !== 'claim' && key !== 'owner') return null
  const [o, t] = [remoteClaimAt(ours.claim), remoteClaimAt(theirs.claim)]
  // A claim the remote holds against one made apart (`--local`, no remote named): the remote is the arbiter, so its
  // claim stands — the other clone's was never published there, and may be one the remote refused.
  if ((o === null) !== (t === null)) {
    const apart = o === null ? ours.claim : theirs.claim
    const local = typeof apart === 'object' && apart !== null && !('remote' in (apart as object))
    return local ? (o === null ? 'theirs' : 'ours') : null
  }
  if (o === null || t === null || o.remote !== t.remote || o.at === t.at) return null
  return o.at > t.at ? 'ours' : 'theirs'
}

/** The newest log line of `text` that `base` does not have: who changed this side, and when. */
function lastChange(base: string | null, text: string): SideOf {
  const old = new Set(base === null ? [] : [...base.matchAll(LOG_LINE)].map((m) => m[0]))
  let out: SideOf = { by: null, at: null }
  for (const m of text.matchAll(LOG_LINE)) {
    if (!old.has(m[0]) && (out.at === null || (m[1] as string) >= out.at)) out = { by: m[2] ?? null, at: m[1] ?? null }
  }
  return out
}

const same = (a: Version | TreeFile | undefined, b: Version | TreeFile | undefined) =>
  a?.oid === b?.oid && a?.mode === b?.mode && (a as Version | undefined)?.path === (b as Version | undefined)?.path

function createdAt(id: string): number {
  try {
    return decodeTime(id.replace(/^t-/, ''))
  } catch {
    return Number.MAX_SAFE_INTEGER
  }
}

export class Merger {
  private readonly text = new Map<string, string>()

  constructor(
    private readonly git: Git,
    /** Short id of their commit, for conflict copies. */
    private readonly tag: string,
    private readonly actor: string,
    private readonly now: Date,
  ) {}

  private async read(oid: string): Promise<string> {
    let t = this.text.get(oid)
    if (t === undefined) {
      t = (await this.git.readBlob(oid)).toString('utf8')
      this.text.set(oid, t)
    }
    return t
  }

  private async idOf(f: TreeFile | undefined): Promise<string | null> {
    if (f === undefined) return null
    return taskIdInText(await this.read(f.oid))
  }

  async merge(
    base: Map<string, TreeFile>,
    ours: Map<string, TreeFile>,
    theirs: Map<string, TreeFile>,
  ): Promise<MergeResult> {
    const files = new Map<string, TreeFile>()
    const conflicts: Conflict[] = []
    const copiesById = new Map<string, { b: Version[]; o: Version[]; t: Version[] }>()
    const perPath: string[] = []
    for (const p of new Set([...base.keys(), ...ours.keys(), ...theirs.keys()])) {
      const b = base.get(p)
      const o = ours.get(p)
      const t = theirs.get(p)
      if (same(b, o) && same(b, t)) {
        if (o !== undefined) files.set(p, o)
        continue
      }
      if (!TASK_PATH.test(p)) {
        perPath.push(p)
        continue
      }
      const ids = [await this.idOf(b), await this.idOf(o), await this.idOf(t)]
      if (ids.some((x, i) => x === null && [b, o, t][i] !== undefined)) {
        perPath.push(p) // a task file without a readable id is merged like any other file
        continue
      }
      for (const [side, f, id] of [
        ['b', b, ids[0]],
        ['o', o, ids[1]],
        ['t', t, ids[2]],
      ] as const) {
        if (f === undefined || id === null || id === undefined) continue
        const entry = copiesById.get(id) ?? { b: [], o: [], t: [] }
        entry[side].push({ ...f, path: p })
        copiesById.set(id, entry)
      }
    }
    const byId = new Map<string, { b: Version | undefined; o: Version | undefined; t: Version | undefined }>()
    for (const [id, c] of copiesById) {
      const all = [...c.b, ...c.o, ...c.t]
      const b = await this.oneCopy(c.b, all, undefined, files, conflicts)
      byId.set(id, {
        b,
        o: await this.oneCopy(c.o, all, b, files, conflicts),
        t: await this.oneCopy(c.t, all, b, files, conflicts),
      })
    }
    for (const p of perPath) {
      const b = base.get(p)
      const o = ours.get(p)
      const t = theirs.get(p)
      const pick = same(o, t) || same(b, t) ? o : same(b, o) ? t : await this.bothChanged(p, o, t, files, conflicts, b)
      if (pick !== undefined) files.set(p, pick)
    }
    const tasks: { id: string; v: Version }[] = []
    const decisions: TaskDecision[] = []
    for (const [id, { b, o, t }] of byId) {
      let pick: Version | undefined
      if (same(o, t) || same(b, t)) pick = o
      else if (same(b, o)) pick = t
      else if (o === undefined || t === undefined)
        pick = o ?? t // deleted on one side, changed on the other: it stays
      else {
        const m = await this.mergeTask(id, b, o, t)
        pick = m.v
        if (m.decision !== null) decisions.push(m.decision)
        else if (m.unreadable) {
          // Not merged field by field: ours stays where it is, theirs is kept for a person beside the status folders.
          const copy = copyOf(o.path, this.tag)
          files.set(copy, { oid: t.oid, mode: t.mode })
          conflicts.push({ path: o.path, ours: o.oid, theirs: t.oid, copy })
        }
      }
      if (pick !== undefined) tasks.push({ id, v: pick })
    }
    const renumbered = await this.placeTasks(files, tasks)
    // A task kept in a project whose file one side removed (the project's folder deleted by hand while the other side
    // added or changed a task in it): the project stays, else the task would be on disk under no project, listed by
    // nothing, and the pull would say all is well.
    for (const p of [...files.keys()]) {
      const m = TASK_PATH.exec(p)
      if (m === null) continue
      const project = `${(m[1] as string).slice(0, (m[1] as string).lastIndexOf('/tasks/') + 1)}project.md`
      if (files.has(project)) continue
      const kept = ours.get(project) ?? theirs.get(project) ?? base.get(project)
      if (kept !== undefined) files.set(project, kept)
    }
    for (const d of decisions) d.path = renumbered.find((r) => r.id === d.id)?.path ?? d.path
    return { files, conflicts, decisions, renumbered }
  }

  /**
   * A side's one version of a task it holds in several files (a `git merge` that moved the task on one branch and
   * changed it on the other leaves both; so does a move interrupted between writing and removing). A copy that is
   * the same bytes as another side's or the base's carries nothing new from this side; the copies that differ are
   * this side's work, merged into one field by field against the base (the folder as one more field). A copy that
   * does not merge so is kept for a person as a conflict copy beside the status folders (reported in `conflicts`:
   * the pull exits 5), nothing lost.
   */
  private async oneCopy(
    copies: Version[],
    all: readonly Version[],
    base: Version | undefined,
    files: Map<string, TreeFile>,
    conflicts: Conflict[],
  ): Promise<Version | undefined> {
    if (copies.length <= 1) return copies[0]
    const own = copies.filter((c) => !all.some((x) => !copies.includes(x) && x.oid === c.oid))
    let acc = own[0]
    if (acc === undefined) return copies[0]
    const bt = base === undefined ? null : await this.read(base.oid)
    for (const next of own.slice(1)) {
      const m = await mergeObject(bt, await this.read(acc.oid), await this.read(next.oid), 'ours', remoteClaims)
      if (m === null || m.conflicts.length > 0) {
        const copy = copyOf(next.path, this.tag)
        files.set(copy, { oid: next.oid, mode: next.mode })
        conflicts.push({ path: acc.path, ours: acc.oid, theirs: next.oid, copy })
        continue
      }
      // The folder one copy moved the task to, where the other left it as the base had it.
      const moved: string = base !== undefined && statusOf(acc.path) === statusOf(base.path) ? next.path : acc.path
      acc = { oid: await this.git.writeBlob(Buffer.from(m.text, 'utf8')), mode: acc.mode, path: moved }
    }
    return acc
  }

  /** A task both sides changed: field by field; its status (the folder) is one more field. */
  private async mergeTask(
    id: string,
    b: Version | undefined,
    o: Version,
    t: Version,
  ): Promise<{ v: Version; decision: TaskDecision | null; unreadable: boolean }> {
    const [bt, ot, tt] = [
      b === undefined ? null : await this.read(b.oid),
      await this.read(o.oid),
      await this.read(t.oid),
    ]
    const merged = await mergeObject(bt, ot, tt, 'theirs', remoteClaims)
    // Not a task file that parses on some side: ours stays whole, theirs becomes a conflict copy (the caller).
    if (merged === null) return { v: o, decision: null, unreadable: true }
    let fields = [...merged.conflicts]
    const [sb, so, st] = [b === undefined ? null : statusOf(b.path), statusOf(o.path), statusOf(t.path)]
    let dir = dirOf(o.path)
    // A removal is no decision (FORMAT.md): removed on one side, moved on the other, the task is removed — on every
    // clone alike, whichever pushed first.
    if (so !== st && (so === 'removed' || st === 'removed')) dir = dirOf(so === 'removed' ? o.path : t.path)
    else if (so !== st && sb === so) dir = dirOf(t.path)
    else if (so !== st && sb !== st) {
      fields.unshift({ field: 'status', base: sb, ours: so, theirs: st })
      dir = dirOf(t.path)
    }
    // One side closed the task while the other added a criterion it never saw: the close is in question (a decision
    // on the status), never a done task with a criterion open that `task done` would have refused.
    if (so !== st && (so === 'done' || st === 'done') && !fields.some((f) => f.field === 'status')) {
      const closed = new Set(checkboxes(so === 'done' ? ot : tt).map((c) => c.text))
      if (checkboxes(merged.text).some((c) => !c.checked && !closed.has(c.text))) {
        fields.unshift({ field: 'status', base: sb, ours: so, theirs: st })
        dir = dirOf(t.path)
      }
    }
    // The file's name changes only by a renumbering: the side that renumbered it.
    const name = b !== undefined && nameOf(b.path) === nameOf(o.path) ? nameOf(t.path) : nameOf(o.path)
    let text = merged.text
    // A done task holds no claim (`task done` deletes it): a merge that leaves the task done — its status no question
    // — drops the claim the other side still had, and with it any question about that claim (either answer would
    // leave the done task unclaimed). A status still in question keeps the claim: `ours` may make it active again.
    if (statusOf(`${dir}${name}`) === 'done' && !fields.some((f) => f.field === 'status')) {
      text = (await this.dropClaim(text, 'done')) ?? text
      fields = fields.filter((f) => f.field !== 'claim')
    }
    // A tombstone raises no question (there is no task left to hold up or to answer about): it keeps the remote's
    // value of each field changed differently on both sides, and this clone's goes into its `## Log`, word for word;
    // like a done task, it holds no claim.
    if (statusOf(`${dir}${name}`) === 'removed') {
      text = (await this.dropClaim(text, 'removed', fields)) ?? text
      fields = []
    }
    const oid = text === ot ? o.oid : text === tt ? t.oid : await this.git.writeBlob(Buffer.from(text, 'utf8'))
    const v: Version = { oid, mode: o.mode, path: `${dir}${name}` }
    if (fields.length === 0) return { v, decision: null, unreadable: false }
    return {
      v,
      decision: { id, path: v.path, fields, ours: lastChange(bt, ot), theirs: lastChange(bt, tt) },
      unreadable: false,
    }
  }

  /**
   * A merged done or removed task's text without its `claim:`, and for a removed one with this clone's value of each
   * field in `conflicts` (the text keeps theirs), its version bumped, a `## Log` line for each; null when there is
   * nothing to drop or say.
   */
  private async dropClaim(
    text: string,
    left: 'done' | 'removed',
    conflicts: FieldConflict[] = [],
  ): Promise<string | null> {
    const { parseObject, renderEdited, setScalar } = await import('../../format/parsing.js')
    let parsed: ReturnType<typeof parseObject>
    try {
      parsed = parseObject(text)
    } catch {
      return null
    }
    const at = `- ${stamp(this.now)} ${this.actor} edited`
    const lines = conflicts
      .filter((f) => f.field !== 'status' && f.field !== 'claim')
      .map(
        (f) =>
          `${at} ${f.field} kept as the other side of a record pull had it; this side's was ${logValue(f.ours)} (the task was removed on one side: a removed task raises no question)`,
      )
    const claim = parsed.data.claim
    const doc = parsed.doc.clone()
    if (claim !== undefined && claim !== null) {
      doc.delete('claim')
      const there =
        typeof (claim as { remote?: unknown }).remote === 'string' ? '; its ref there is left to reconcile' : ''
      lines.push(
        `${at} claim dropped (${claimText(claim)}): a record pull left the task ${left}, and a ${left} task holds no claim${left === 'removed' ? there : ''}`,
      )
    }
    if (lines.length === 0) return null
    // A rewrite after the merge, as a renumbering is: the file is neither side's at any version they read.
    const version = Number(parsed.data.version)
    setScalar(doc, 'version', (Number.isInteger(version) ? version : 0) + 1)
    return renderEdited(parsed, doc, appendToSection(parsed.split.body, 'Log', lines))
  }

  /** Both sides changed a non-task file differently: field by field, else ours stays and theirs is kept beside it. */
  private async bothChanged(
    p: string,
    o: TreeFile | undefined,
    t: TreeFile | undefined,
    files: Map<string, TreeFile>,
    conflicts: Conflict[],
    b: TreeFile | undefined,
  ): Promise<TreeFile | undefined> {
    if (p.endsWith('.md') && !/\/events\//.test(p) && o !== undefined && t !== undefined && b === undefined) {
      // Two objects made apart that took one name (a note titled alike in two clones: the answers of one question):
      // both stay, the earlier id at the name, the other beside it under its own — as every clone decides alike.
      const [io, it] = [idIn(await this.read(o.oid)), idIn(await this.read(t.oid))]
      if (io !== null && it !== null && io !== it) {
        const [first, second, secondId] = byText(io, it) <= 0 ? [o, t, it] : [t, o, io]
        files.set(`${p.slice(0, -3)}-${secondId.slice(-8).toLowerCase()}.md`, second)
        return first
      }
    }
    if (p.endsWith('.md') && !/\/events\//.test(p) && o !== undefined && t !== undefined) {
      const m = await mergeObject(
        b === undefined ? null : await this.read(b.oid),
        await this.read(o.oid),
        await this.read(t.oid),
        'ours',
      )
      if (m !== null && m.conflicts.length === 0)
        return { oid: await this.git.writeBlob(Buffer.from(m.text, 'utf8')), mode: o.mode }
    }
    if (/\/events\//.test(p) && o !== undefined && t !== undefined) {
      // An event only moves forward: pending (false) → dismissed → applied (true, effects made). The further one wins.
      const rank = async (f: TreeFile) => {
        const m = /^applied:[ \t]*(true|dismissed)[ \t]*$/m.exec(await this.read(f.oid))
        return m === null ? 0 : m[1] === 'true' ? 2 : 1
      }
      const [ro, rt] = [await rank(o), await rank(t)]
      if (ro !== rt) return ro > rt ? o : t
      // Settled on both sides, each its own way (one question answered in two clones): the remote's stands, as every
      // other clone already has it; this clone's answer stays in its note and in the record history, and the task it
      // changed merges field by field (a value that differs becomes a new decision).
      if (ro > 0) return t
    }
    const copy = o !== undefined && t !== undefined ? copyOf(p, this.tag) : null
    if (copy !== null && t !== undefined) files.set(copy, t)
    conflicts.push({ path: p, ours: o?.oid ?? null, theirs: t?.oid ?? null, copy })
    return o ?? t
  }

  /** Put the merged tasks into the tree, renumbering where a sequence number was taken on both sides. */
  private async placeTasks(files: Map<string, TreeFile>, tasks: { id: string; v: Version }[]): Promise<Renumbered[]> {
    interface Entry {
      id: string | null
      path: string
      f: TreeFile
      /** Already in `files` (unchanged on both sides). */
      placed: boolean
    }
    const groups = new Map<string, Entry[]>()
    const add = (e: Entry) => {
      const m = TASK_PATH.exec(e.path)
      if (m === null) return
      const key = `${m[2]}/${Number(m[3])}`
      groups.set(key, [...(groups.get(key) ?? []), e])
    }
    for (const [p, f] of files) add({ id: null, path: p, f, placed: true })
    for (const t of tasks) add({ id: t.id, path: t.v.path, f: t.v, placed: false })
    const losers: (Entry & { id: string; project: string; seq: number })[] = []
    for (const [key, group] of groups) {
      if (group.length < 2) continue
      for (const g of group) g.id ??= await this.idOf(g.f)
      const distinct = [...new Map(group.map((g) => [g.id ?? g.path, g])).values()]
      distinct.sort((a, b) => createdAt(a.id ?? '') - createdAt(b.id ?? '') || byText(a.id ?? '', b.id ?? ''))
      const [project, seq] = key.split('/') as [string, string]
      for (const g of distinct.slice(1)) {
        if (g.id !== null) losers.push({ ...g, id: g.id, project, seq: Number(seq) })
      }
    }
    const moving = new Set(losers.map((l) => l.id))
    for (const t of tasks) if (!moving.has(t.id)) files.set(t.v.path, { oid: t.v.oid, mode: t.v.mode })
    const out: Renumbered[] = []
    losers.sort((a, b) => createdAt(a.id) - createdAt(b.id) || byText(a.id, b.id))
    for (const l of losers) {
      if (l.placed && files.get(l.path)?.oid === l.f.oid) files.delete(l.path)
      const next = (await this.highestSeq(files, l.project)) + 1
      const m = TASK_PATH.exec(l.path) as RegExpExecArray
      const path = `${m[1]}${seqText(next)}-${m[4]}.md`
      const text = await this.rewrite(await this.read(l.f.oid), l.seq, next)
      files.set(path, { oid: await this.git.writeBlob(Buffer.from(text, 'utf8')), mode: l.f.mode })
      out.push({ id: l.id, project: l.project, from: l.seq, to: next, path })
    }
    return out
  }

  /** FORMAT.md: the next number is one more than any used by a task file, tombstone or alias of the project. */
  private async highestSeq(files: Map<string, TreeFile>, project: string): Promise<number> {
    const { parseObject } = await import('../../format/parsing.js')
    let max = 0
    for (const [p, f] of files) {
      const m = TASK_PATH.exec(p)
      if (m === null || m[2] !== project) continue
      max = Math.max(max, Number(m[3]))
      try {
        const aliases = parseObject(await this.read(f.oid)).data.aliases
        if (Array.isArray(aliases))
          for (const a of aliases) if (Number.isInteger(Number(a))) max = Math.max(max, Number(a))
      } catch {
        // an unparseable file still holds its number (counted above)
      }
    }
    return max
  }

  private async rewrite(text: string, from: number, to: number): Promise<string> {
    const { applyEdits, parseObject, renderEdited, setScalar } = await import('../../format/parsing.js')
    let parsed: ReturnType<typeof parseObject>
    try {
      parsed = parseObject(text)
    } catch {
      return text // unparseable frontmatter: the file is renamed, never rewritten
    }
    const doc = parsed.doc.clone()
    const aliases = Array.isArray(parsed.data.aliases) ? parsed.data.aliases.map(Number) : []
    const list = [...new Set([...aliases, from])].filter(Number.isInteger)
    if (aliases.length > 0) {
      // A list a person (or an earlier renumbering) wrote keeps its style and comments; the new number joins it.
      applyEdits(doc, [{ op: 'set', key: 'aliases', value: list }])
    } else {
      const node = doc.createNode(list)
      node.flow = true
      doc.set('aliases', node)
    }
    const version = Number(parsed.data.version)
    setScalar(doc, 'version', (Number.isInteger(version) ? version : 0) + 1)
    const line = `- ${stamp(this.now)} ${this.actor} renumbered ${seqText(from)} → ${seqText(to)}: the number was also taken on the other side of a record pull`
    return renderEdited(parsed, doc, appendToSection(parsed.split.body, 'Log', [line]))
  }
}

/** The `id:` of an object file's frontmatter, or null. */
function idIn(text: string): string | null {
  return /^id:[ \t]*(\S+)[ \t]*\r?$/m.exec(text)?.[1] ?? null
}

/** A value as one `## Log` line can hold it: JSON, on one line. */
function logValue(v: unknown): string {
  return JSON.stringify(v ?? null)
}

/** A claim as a `## Log` line names it: who held it, and on which remote. */
function claimText(claim: unknown): string {
  const c = typeof claim === 'object' && claim !== null ? (claim as Record<string, unknown>) : {}
  const by = typeof c.by === 'string' ? c.by : '?'
  return typeof c.remote === 'string' ? `${by}'s, on ${c.remote}` : `${by}'s`
}
