import { shortOid } from '../../adapters/git/objects.js'
import { isoSeconds } from '../../base/time.js'
import { defineCommand } from '../../clikit/command.js'
import { int } from '../../clikit/flags.js'
import { branchRef, recordBranch } from '../../domain/record/record.js'
import { renderChanges } from './changes.js'
import type { RecordLogDocT } from './json.js'

const DEFAULT_LIMIT = 20

export const log = defineCommand({
  path: 'record log',
  summary: 'List the commits of the record branch, newest first',
  description: `Each commit with its author, the acting identity and command (from the Dacli-Agent and Dacli-Command trailers), its time, subject and the files it changed. At most --limit commits (default ${DEFAULT_LIMIT}); \`truncated\` says when older ones exist. Nothing recorded yet is an empty list, not an error.`,
  args: [],
  flags: { limit: int('at most this many commits', { min: 1, max: 100_000, defaultText: String(DEFAULT_LIMIT) }) },
  json: 'record-log/v1',
  mutates: false,
  examples: ['dacli record log', 'dacli record log --limit 5 --json'],
  async run(ctx, input) {
    const store = await ctx.store()
    const git = await ctx.git()
    const ref = branchRef(store)
    const limit = input.flags.limit ?? DEFAULT_LIMIT
    const tip = await git.resolve(ref)
    const commits: RecordLogDocT['commits'] = []
    let truncated = false
    if (tip !== null) {
      for await (const c of git.walk([tip])) {
        if (commits.length === limit) {
          truncated = true
          break
        }
        const parentTree = c.parents[0] === undefined ? null : (await git.readCommit(c.parents[0])).tree
        const changes = await git.diff(parentTree, c.tree)
        commits.push({
          id: c.id,
          parents: c.parents,
          author: { name: c.author.name, email: c.author.email },
          agent: c.agent,
          command: c.command,
          time: isoSeconds(c.author.timestamp),
          message: c.message.split('\n', 1)[0]?.trim() ?? '',
          files_changed: changes.map((f) => ({ path: f.path, change: f.change })),
        })
      }
    }
    const data: RecordLogDocT = {
      schema: 'record-log/v1',
      branch: recordBranch(store),
      tip,
      commits,
      limit,
      truncated,
    }
    return {
      data,
      human(out) {
        if (commits.length === 0) {
          out.line(`nothing recorded on ${data.branch} yet (dacli record)`)
          return
        }
        for (const c of commits) {
          out.line(`${out.style('bold', shortOid(c.id))}  ${c.time}  ${c.agent ?? c.author.name}  ${c.message}`)
          renderChanges(out, c.files_changed, 5)
        }
        if (truncated) out.line(out.style('dim', `… older commits not shown (--limit ${limit})`))
      },
    }
  },
})
