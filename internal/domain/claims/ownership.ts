// Who may change a task, and when a claim may be taken. Values in, values out: the store
// (domain/task/lifecycle.ts) reads the task, the identities and the clock, asks here, then refuses or writes.
//
// - only the owner rewrites a task; an rw identity acts as owner of an unowned task (without becoming it), and of
//   a task owned by a read-only identity (whose changes arrive as proposals, so someone with write access must act
//   on them);
// - a read-only identity never rewrites: its claim, release, done and block become proposals;
// - a live claim held by another identity is a conflict; an expired lease, an owner that was retired, or an owner no
//   agent file names any more (missing: deleted, or never recorded here), may be taken over (logged, with the reason).

export interface Actor {
  id: string
  grant: 'rw' | 'ro'
}

/** May `who` rewrite a task owned by `owner` directly? `readOnly` holds the identities with a read-only grant. */
export function mayRewrite(owner: string | null, who: Actor, readOnly: ReadonlySet<string>): boolean {
  if (who.grant !== 'rw') return false
  return owner === null || owner === who.id || readOnly.has(owner)
}

export type TakeoverReason = 'lease expired' | 'owner retired' | 'owner missing'

/** The identities a claim's owner is judged against: the retired ones, and every one that exists. */
export interface Roster {
  retired: ReadonlySet<string>
  known: ReadonlySet<string>
}

/** What an owner that is nobody or the caller is judged against: claimStanding never looks (nothing read). */
export const UNREAD_ROSTER: Roster = { retired: new Set(), known: new Set() }

/** Why a claim held by `from` could be taken over: a retired owner, a missing one, otherwise an expired lease. */
export const takeoverReason = (from: string, roster: Roster): TakeoverReason =>
  roster.retired.has(from) ? 'owner retired' : roster.known.has(from) ? 'lease expired' : 'owner missing'

export type ClaimStanding =
  /** The caller already owns it. */
  | { kind: 'yours' }
  /** Nobody owns it. */
  | { kind: 'free' }
  /** Another identity holds a live claim: a conflict. */
  | { kind: 'held'; owner: string }
  /** Another identity's claim may be taken over. */
  | { kind: 'takeover'; from: string; why: TakeoverReason }

/** Where a claim by `who` stands against the task's current owner (`leaseExpired`: its claim's lease ran out). */
export function claimStanding(owner: string | null, who: string, leaseExpired: boolean, roster: Roster): ClaimStanding {
  if (owner === null) return { kind: 'free' }
  if (owner === who) return { kind: 'yours' }
  const why = takeoverReason(owner, roster)
  if (!leaseExpired && why === 'lease expired') return { kind: 'held', owner }
  return { kind: 'takeover', from: owner, why }
}

export interface Criterion {
  n: number
  text: string
  checked: boolean
}

export type CloseVerdict =
  /** Every criterion is checked (`unverified`: there are none and the caller said so). */
  | { kind: 'close'; unverified: boolean }
  /** No criteria, and no explicit override: done cannot be verified. */
  | { kind: 'no-criteria' }
  /** These criteria are not checked. */
  | { kind: 'unmet'; unmet: { n: number; text: string }[] }

/** May a task with these acceptance criteria be closed? Every box checked, or none and `allowUnverified`. */
export function closeVerdict(boxes: readonly Criterion[], allowUnverified: boolean): CloseVerdict {
  if (boxes.length === 0) return allowUnverified ? { kind: 'close', unverified: true } : { kind: 'no-criteria' }
  const unmet = boxes.filter((b) => !b.checked).map(({ n, text }) => ({ n, text }))
  return unmet.length > 0 ? { kind: 'unmet', unmet } : { kind: 'close', unverified: false }
}

/** Only a done or blocked task can be reopened. */
export const mayReopen = (status: string): boolean => status === 'done' || status === 'blocked'

/** What stands against removing a task (an empty list: nothing; otherwise it needs --force). */
export function removalHolds(status: string, dependents: readonly string[]): string[] {
  return [
    ...(status === 'active' || status === 'done' ? [`it is ${status}`] : []),
    ...(dependents.length > 0
      ? [`${dependents.join(', ')} ${dependents.length === 1 ? 'depends' : 'depend'} on it`]
      : []),
  ]
}
