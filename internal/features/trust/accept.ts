import { cmd } from '../../base/commands.js'
import { RefusedError, UsageError } from '../../base/errors.js'
import { defineCommand } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { pin, publishedRootKeys, readAnchor } from '../../domain/identity/anchor.js'
import { ROOT_ID } from '../../format/model.js'
import { renderTrust, trustDoc } from './doc.js'

export const accept = defineCommand({
  path: 'trust accept',
  summary: 'Pin a published root key in this clone’s trust anchor (trust on first use, stated)',
  description:
    'The explicit step by which a fresh clone learns whom to trust: pins the full fingerprint of a key published under .dacli/agents/a-root.keys/ in the clone’s git directory and in the user’s configuration directory, and prints what it pinned. With --fingerprint F (the full sha256:… fingerprint, or at least its first 16 hex digits — get it from the workspace owner over another channel) exactly that key is pinned, and a fingerprint that matches no published key is refused (exit 3). Without it, the one untrusted key is pinned on first use, and that is said; refused (exit 2) when several keys are untrusted, and (exit 3) when the anchor already vouches for a key — a second key needs --fingerprint. Only the root identity (DACLI_AGENT unset) may change the anchor (exit 3 otherwise).',
  args: [],
  flags: { fingerprint: str('the key to pin: sha256:<64 hex>, or its first 16 or more hex digits') },
  json: 'trust/v1',
  mutates: true,
  idempotent: true,
  examples: ['dacli trust accept --fingerprint sha256:3f9a…', 'dacli trust accept'],
  async run(ctx, input) {
    const store = await ctx.store()
    const who = await ctx.identity()
    if (who.id !== ROOT_ID) {
      throw new RefusedError('trust-root-only', `only the root identity may change the trust anchor, not ${who.id}`, {
        next: ['run it yourself, without DACLI_AGENT'],
      })
    }
    const anchor = readAnchor(store)
    const pinned = new Set(anchor.pins.map((p) => p.fingerprint))
    const keys = publishedRootKeys(store.dir).filter((k) => k.problem === null && k.fingerprint !== null)
    const want = input.flags.fingerprint
      ?.trim()
      .toLowerCase()
      .replace(/^sha256:/, '')
    let chosen: string
    let statement: string
    if (want !== undefined) {
      if (!/^[0-9a-f]{16,64}$/.test(want)) {
        throw new UsageError(
          `--fingerprint ${input.flags.fingerprint}: expected sha256:<64 hex> or its first 16+ hex digits`,
        )
      }
      const match = keys.filter((k) => (k.fingerprint ?? '').slice(7).startsWith(want))
      if (match.length !== 1) {
        throw new RefusedError(
          'trust-fingerprint',
          `no root key published under .dacli/agents/a-root.keys/ has the fingerprint ${input.flags.fingerprint}: refusing to pin anything`,
          {
            details: { fingerprint: input.flags.fingerprint, published: keys.map((k) => k.fingerprint) },
            next: [
              cmd('trust show (the published keys and their fingerprints)'),
              'check the fingerprint with the workspace owner',
            ],
          },
        )
      }
      chosen = match[0]?.fingerprint ?? ''
      statement = `trusting root key ${chosen}: its fingerprint matches the one you gave`
    } else {
      const untrusted = keys.filter((k) => !pinned.has(k.fingerprint ?? ''))
      if (untrusted.length === 0) {
        const data = trustDoc(store, [], 'every published root key is already trusted')
        return { data, human: (out) => renderTrust(out, data) }
      }
      // Trust on first use is for a clone whose anchor files pin nothing yet. One that pins a key — another it
      // accepted, or its own where `init` made the workspace here — takes a second key only by its fingerprint.
      if (anchor.filed.length > 0) {
        throw new RefusedError(
          'trust-fingerprint',
          `this clone already trusts a root key of this workspace; another (${untrusted.map((k) => k.fingerprint).join(', ')}) is pinned only by its fingerprint`,
          {
            details: { untrusted: untrusted.map((k) => ({ file: k.file, fingerprint: k.fingerprint })) },
            next: [cmd('trust accept --fingerprint <F> (after checking F with its owner)')],
          },
        )
      }
      if (untrusted.length > 1) {
        throw new UsageError(
          `${untrusted.length} published root keys are untrusted; say which one with --fingerprint`,
          {
            details: { untrusted: untrusted.map((k) => ({ file: k.file, fingerprint: k.fingerprint })) },
            next: [cmd('trust show'), cmd('trust accept --fingerprint <F>')],
          },
        )
      }
      chosen = untrusted[0]?.fingerprint ?? ''
      statement = `trusting root key ${chosen} on first use: nothing but its presence in the work tree vouches for it; compare the fingerprint with the workspace owner's (dacli trust show in their clone)`
    }
    const written = pinned.has(chosen) ? [] : pin(store, chosen, `accepted ${ctx.now().toISOString()}`)
    const data = trustDoc(store, written.length > 0 ? [chosen] : [], statement)
    return { data, human: (out) => renderTrust(out, data) }
  },
})
