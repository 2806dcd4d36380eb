import { shortOid } from '../../adapters/git/objects.js'
import { requireRemote } from '../../adapters/git/remote.js'
import { cmd } from '../../base/commands.js'
import { RefusedError } from '../../base/errors.js'
import { count } from '../../base/text.js'
import { defineCommand, optionalArg } from '../../clikit/command.js'
import { branchRef, RECORD_LOCK, recordBranch, recordLocked } from '../../domain/record/record.js'
import { checkRemote } from '../../store/workspace.js'
import type { RecordPushDocT } from './json.js'

export const push = defineCommand({
  path: 'record push',
  summary: 'Push the record branch to a remote (changes not yet recorded are recorded first)',
  description:
    'Runs the system git to push the record branch to REMOTE (default origin); git owns the remote, ssh and credentials, and is never asked to force. A rejected push means someone else recorded first: exit 5, then `dacli record pull` and push again. While a pull left conflict copies (*.conflict-<commit>) in the workspace the push is refused (exit 3): resolve them first. Without a git program the command fails (exit 1).',
  args: [optionalArg('remote', 'the git remote to push to (a name or URL; default origin)')],
  flags: {},
  json: 'record-push/v1',
  mutates: true,
  examples: ['dacli record push', 'dacli record push upstream --json'],
  async run(ctx, input) {
    const remote = checkRemote(input.args.remote ?? 'origin', '<remote>')
    const store = await ctx.store()
    const who = await ctx.identity()
    const git = await ctx.git()
    // A remote git does not know is refused before the record commit is made, not after (nothing changes).
    requireRemote(git.repo, ctx.env, remote)
    const ref = branchRef(store)
    const { recorded, tip } = await store.withLock(RECORD_LOCK, async () => {
      const outcome = await recordLocked(store, git, who, {
        message: 'dacli: record (before push)',
        command: `record push ${remote}`,
        now: ctx.now(),
      })
      return { recorded: outcome.commit, tip: await git.resolve(ref) }
    })
    if (tip === null) throw new RefusedError('empty-record', 'nothing is recorded yet', { next: [cmd('record')] })
    const unresolved = [...(await git.listFiles((await git.readCommit(tip)).tree)).keys()].filter((p) =>
      /\.conflict-[0-9a-f]{7}$/.test(p),
    )
    if (unresolved.length > 0) {
      throw new RefusedError(
        'unresolved-conflict',
        `a pull left ${count(unresolved.length, 'conflict copy', 'conflict copies')} to resolve`,
        {
          details: { paths: unresolved },
          next: [
            'compare each file with its .conflict-… copy, keep what is right, delete the copy',
            cmd('record'),
            cmd(`record push ${remote}`),
          ],
        },
      )
    }
    const branch = recordBranch(store)
    const r = await git.push(remote, branch, store.remoteDeadline)
    const data: RecordPushDocT = { schema: 'record-push/v1', remote, branch, outcome: r.outcome, commit: tip, recorded }
    return {
      data,
      human(out) {
        out.line(
          r.outcome === 'up-to-date'
            ? `${remote} already has ${branch} at ${shortOid(tip)}`
            : `pushed ${branch} to ${remote} (${shortOid(tip)})`,
        )
      },
    }
  },
})
