import { shortOid } from '../../adapters/git/objects.js'
import { count } from '../../base/text.js'
import { defineCommand } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { recordWorkspace } from '../../domain/record/record.js'
import { checkText } from '../../format/ids.js'
import { renderChanges } from './changes.js'
import type { RecordResultDocT } from './json.js'

export const record = defineCommand({
  path: 'record',
  summary: 'Commit the workspace onto the record branch (HEAD, the index and the working tree stay untouched)',
  description:
    'Writes .dacli/ (without locks/, cache/ and temp files) as one commit on the record branch (record_branch in config.yml, default dacli/record) using git plumbing only: your checked-out branch, the index and the working tree are not touched. The tree mirrors the repository, so checking the branch out gives a working .dacli/. The author is the acting identity (the git user for a-root); the commit carries Dacli-Agent and Dacli-Command trailers. An unchanged workspace makes no commit and answers `unchanged`. With `autorecord: true` in config.yml every mutating command records itself.',
  args: [],
  flags: { message: str('the commit message', { defaultText: 'dacli: record' }) },
  json: 'record-result/v1',
  mutates: true,
  idempotent: true,
  examples: ['dacli record', 'dacli record --message "Sprint 12 planning"', 'git log --stat dacli/record'],
  async run(ctx, input) {
    const message = input.flags.message
    if (message !== undefined) checkText(message, 'message')
    const store = await ctx.store()
    const who = await ctx.identity()
    const git = await ctx.git()
    const r = await recordWorkspace(store, git, who, {
      message: message ?? 'dacli: record',
      command: 'record',
      now: ctx.now(),
    })
    const data: RecordResultDocT = {
      schema: 'record-result/v1',
      outcome: r.outcome,
      commit: r.commit,
      parent: r.parent,
      branch: r.branch,
      message: r.commit === null ? null : (message ?? 'dacli: record').split('\n', 1)[0]?.trim() || null,
      author: { name: r.author.name, email: r.author.email },
      agent: who.id,
      files_changed: r.changes.map((c) => ({ path: c.path, change: c.change })),
    }
    return {
      data,
      human(out) {
        if (r.commit === null) {
          out.line(`unchanged: ${r.branch} already holds the workspace`)
          return
        }
        out.line(`recorded ${shortOid(r.commit)} on ${r.branch} (${count(data.files_changed.length, 'file')} changed)`)
        renderChanges(out, data.files_changed)
      },
    }
  },
})
