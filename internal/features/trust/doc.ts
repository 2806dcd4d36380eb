// The trust/v1 document and its human rendering, shared by `trust show` and `trust accept`.

import type { Out } from '../../clikit/io.js'
import { fingerprintOf, ownRootKey, publishedRootKeys, readAnchor } from '../../domain/identity/anchor.js'
import type { Store } from '../../store/store.js'
import type { TrustDocT } from './json.js'

export function trustDoc(store: Store, accepted: string[], statement: string | null): TrustDocT {
  const anchor = readAnchor(store)
  const pinned = new Set(anchor.pins.map((p) => p.fingerprint))
  const own = ownRootKey(store)
  const ownFp = own === null ? null : fingerprintOf(own)
  return {
    schema: 'trust/v1',
    workspace: store.config.id,
    anchor: anchor.files,
    pinned: anchor.pins,
    keys: publishedRootKeys(store.dir).map((k) => ({
      file: k.file,
      fingerprint: k.fingerprint,
      trusted: k.problem === null && pinned.has(k.fingerprint ?? ''),
      own: k.fingerprint !== null && k.fingerprint === ownFp,
      problem: k.problem,
    })),
    accepted,
    statement,
  }
}

export function renderTrust(out: Out, d: TrustDocT): void {
  if (d.statement !== null) out.line(d.statement)
  if (d.keys.length === 0) out.line('no root key is published under .dacli/agents/a-root.keys/')
  for (const k of d.keys) {
    const mark = k.trusted ? out.style('green', 'trusted  ') : out.style('yellow', 'untrusted')
    const why = k.problem !== null ? `  (${k.problem})` : k.own ? '  (this clone’s own key)' : ''
    out.line(`${mark}  ${k.fingerprint ?? '-'}  ${k.file}${why}`)
  }
  out.line(out.style('dim', `anchor: ${[d.anchor.clone, d.anchor.user].filter((f) => f !== null).join(', ')}`))
}
