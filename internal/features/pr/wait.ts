import { timerDelay } from '../../base/duration.js'
import { arg, defineCommand } from '../../clikit/command.js'
import { waitEnders } from '../../clikit/context.js'
import { bool, duration, oneOf } from '../../clikit/flags.js'
import { repoOf } from '../../domain/delivery/pulls.js'
import { waitFor } from '../../domain/delivery/wait.js'
import { connect } from '../../domain/github/connect.js'
import { diagnosisDoc, headline, taskBrief } from './docs.js'
import type { PrWaitDocT } from './json.js'

const UNTIL = ['ready', 'merged'] as const
const sleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, timerDelay(ms))
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })

export const wait = defineCommand({
  path: 'pr wait',
  summary:
    "Wait until a task's pull request is ready (or merged): exit 0 there, 1 on timeout, 5 when it cannot get there",
  description:
    "Diagnoses the task's pull request (as `pr diagnose`) every --interval, backing off while nothing changes (the pause doubles up to a minute) and holding off until GitHub's rate limit resets when the quota is spent (a 403/429 with retry-after is waited out as GitHub asks). Exit 0 when the state is reached (waiting for ready, merged counts), 1 on --timeout, 5 when it can no longer be reached (the pull request was closed, or it conflicts with its base: a person must resolve that). Prints a line per change of code; with --json, one pr-diagnosis/v1 line per change and then the pr-wait/v1 result as the last line; with --jsonl, only the pr-diagnosis/v1 lines. Reads only.",
  args: [arg('ref', 'the task')],
  flags: {
    until: oneOf(UNTIL, 'the state to wait for', { defaultText: 'ready' }),
    timeout: duration('give up after this long (exit 1)', { defaultText: '30m' }),
    interval: duration('the first pause between polls (it doubles while nothing changes, up to a minute)', {
      defaultText: '10s',
    }),
    jsonl: bool('one pr-diagnosis/v1 JSON object per line, at each change (no final document)'),
  },
  json: 'pr-wait/v1',
  streams: 'pr-diagnosis/v1',
  jsonStreams: true,
  mutates: false,
  examples: ['dacli pr wait alpha/7', 'dacli pr wait alpha/7 --until merged --timeout 2h --json'],
  async run(ctx, input) {
    const until = input.flags.until ?? 'ready'
    const store = await ctx.store()
    const t = await store.readTask(input.args.ref)
    const repo = await repoOf(ctx, t.project)
    const session = await connect(ctx, { requireToken: false })
    const r = await waitFor(session, repo, t, {
      until,
      timeoutMs: input.flags.timeout ?? 30 * 60_000,
      intervalMs: input.flags.interval ?? 10_000,
      now: () => ctx.now(),
      sleep,
      signal: AbortSignal.any(waitEnders(ctx)),
      onChange(d, at) {
        const doc = diagnosisDoc(d, at)
        ctx.emit(doc, (out) => out.line(`${doc.observed_at}  ${headline(doc)}`))
      },
    })
    const data: PrWaitDocT = {
      schema: 'pr-wait/v1',
      version: 1,
      task: taskBrief(t),
      until,
      outcome: r.outcome,
      code: r.last.diagnosis.code,
      polls: r.polls,
      elapsed_ms: r.elapsed_ms,
      changes: r.changes,
      diagnosis: diagnosisDoc(r.last, ctx.now()),
    }
    const verdict = r.outcome === 'reached' ? null : r.outcome === 'timeout' ? 'failure' : 'conflict'
    return {
      data,
      verdict,
      human(out) {
        if (input.flags.jsonl === true) return
        const what =
          r.outcome === 'reached'
            ? `reached ${until}`
            : r.outcome === 'timeout'
              ? `timed out waiting for ${until} (still ${data.code})`
              : `${until} can no longer be reached: ${data.code}`
        out.line(`${data.task.ref}: ${what} after ${r.polls} poll${r.polls === 1 ? '' : 's'}`)
        for (const n of data.diagnosis.next_actions) out.line(`  next: ${n}`)
      },
    }
  },
})
