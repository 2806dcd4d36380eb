import { UsageError } from '../../base/errors.js'
import { arg, defineCommand, restArg } from '../../clikit/command.js'
import { oneOf, str } from '../../clikit/flags.js'
import { answerQuestion } from '../../domain/questions/questions.js'
import { checkSectionText } from '../../format/markdown.js'
import { qualifiedRef } from '../../format/refs.js'
import { questionBody } from './docs.js'
import type { AnswerDocT } from './json.js'

export const answer = defineCommand({
  path: 'answer',
  summary: 'Answer an open question; its task goes back to work when nothing else blocks it',
  description:
    'Writes the answer as a note in the task’s project (a finding by default; --as decision needs --rejected, as every decision does; --rejected alone implies a decision), linked to the question (answers: q-…) and the task (about), marks the question answered, and unblocks the task when the question was its last blocker. The next `context` of the task shows the answer. A question is answered once (a second answer is refused with exit 3).',
  usage: '<question-id> <answer>… [--as decision|finding] [--rejected T --because T]',
  args: [arg('question-id', 'q-<ULID> or a unique prefix'), restArg('answer', 'the answer')],
  flags: {
    as: oneOf(['decision', 'finding'], 'the kind of note', { defaultText: 'finding' }),
    rejected: str('decision: the alternatives rejected'),
    because: str('decision: why'),
  },
  json: 'answer/v1',
  mutates: true,
  examples: [
    'dacli answer q-01J9ZK3 "Half-even, as the bank does"',
    'dacli answer q-01J9ZK3 "Half-even" --as decision --rejected "half-up" --because "the bank rounds half-even"',
  ],
  async run(ctx, input) {
    const { rejected, because } = input.flags
    const as = input.flags.as ?? (rejected !== undefined ? 'decision' : 'finding')
    if (as === 'finding' && (rejected !== undefined || because !== undefined))
      throw new UsageError('--rejected and --because belong to a decision (--as decision)')
    if (rejected !== undefined) checkSectionText(rejected, '--rejected')
    if (because !== undefined) checkSectionText(because, '--because')
    const store = await ctx.store()
    const r = await answerQuestion(store, await ctx.identity(), {
      id: input.args['question-id'],
      text: input.args.answer,
      as,
      ...(rejected === undefined ? {} : { rejected }),
      ...(because === undefined ? {} : { because }),
    })
    const note = { id: r.note.id, kind: as, title: r.note.title, path: r.note.path }
    const data: AnswerDocT = {
      schema: 'answer/v1',
      question: questionBody(r.question, r.task, r.note),
      note,
      task:
        r.task === null
          ? null
          : {
              ref: qualifiedRef(r.task),
              status: r.task.status,
              unblocked: r.unblocked,
              still_blocked_by: r.still_blocked_by,
            },
    }
    return {
      data,
      human(out) {
        out.line(`answered ${out.style('bold', data.question.id)} (${as} ${note.id}, ${note.path})`)
        const t = data.task
        if (t === null) out.line('its task is gone; the answer is filed in the project')
        else if (t.unblocked) out.line(`${t.ref} is unblocked (now ${t.status})`)
        else if (t.still_blocked_by !== null) out.line(`${t.ref} stays blocked by ${t.still_blocked_by}`)
        else out.line(`${t.ref} is ${t.status}`)
      },
    }
  },
})
