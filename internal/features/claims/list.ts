import { defineCommand } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { expiredAt } from '../../domain/claims/arbiter.js'
import { stamp } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { checkRemote } from '../../store/workspace.js'
import type { ClaimListDocT } from './json.js'

export const list = defineCommand({
  path: 'claims list',
  summary: 'The claims a git remote arbitrates: who holds which task, until when, from which clone',
  description:
    'Fetches refs/dacli/claims/* from the remote (--remote, else claims.remote in config.yml, else origin) through the system git and lists every claim, live and expired, with the task as this clone knows it. The fetch is also what `next` and `overview` use to leave out tasks claimed elsewhere (`next --fetch` refreshes it too). An unreachable remote is exit 1.',
  args: [],
  flags: {
    remote: str('the git remote to ask', { valueName: 'R', defaultText: 'claims.remote in config.yml, else origin' }),
  },
  json: 'claim-list/v1',
  mutates: false,
  examples: ['dacli claims list', 'dacli claims list --remote upstream --json'],
  async run(ctx, input) {
    const store = await ctx.store()
    const remote =
      input.flags.remote === undefined
        ? (store.config.claims_remote ?? 'origin')
        : checkRemote(input.flags.remote, '--remote')
    const { openClaims } = await import('../../domain/claims/remote.js')
    const claims = openClaims(store, ctx.env, remote)
    const now = ctx.now()
    const fetched = await claims.fetchAll(now)
    const who = await ctx.identity()
    const byId = new Map((await store.listTasks()).tasks.map((t) => [t.id, t]))
    const data: ClaimListDocT = {
      schema: 'claim-list/v1',
      remote,
      fetched_at: stamp(now),
      claims: fetched.claims.map((c) => {
        const t = byId.get(c.task)
        return {
          task: c.task,
          ref: t === undefined ? null : qualifiedRef(t),
          status: t?.status ?? null,
          by: c.by,
          at: c.at,
          expires: c.expires,
          expired: expiredAt(c, now),
          workspace: c.workspace,
          host: c.host,
          clone: c.clone,
          mine: claims.mine(c, who.id),
          commit: c.commit,
        }
      }),
      unreadable: fetched.unreadable,
    }
    return {
      data,
      human(out) {
        if (data.claims.length === 0) out.line(`no claims on ${remote}`)
        else
          out.table(
            ['TASK', 'BY', 'UNTIL', 'CLONE'],
            data.claims.map((c) => [
              c.ref ?? c.task,
              c.mine ? `${c.by} (you)` : c.by,
              c.expires === null ? 'no lease' : `${c.expires}${c.expired ? ' (expired)' : ''}`,
              `${c.host}:${c.workspace}${c.clone === null ? '' : ` (${c.clone})`}`,
            ]),
            { shrink: 3 },
          )
        for (const u of data.unreadable) out.line(out.style('yellow', `not a dacli claim: ${u.task} → ${u.commit}`))
      },
    }
  },
})
