import { cmd } from '../../base/commands.js'
import { defineCommand, restArg } from '../../clikit/command.js'
import { str } from '../../clikit/flags.js'
import { askQuestion } from '../../domain/questions/questions.js'
import { qualifiedRef } from '../../format/refs.js'
import { questionBody } from './docs.js'
import type { QuestionDocT } from './json.js'

export const ask = defineCommand({
  path: 'ask',
  summary: 'Ask a person a question about a task instead of guessing; the task waits for the answer',
  description:
    'Records the question (an event, id q-<ULID>) and moves the task to blocked with blocked_by: q-<id>, so nobody picks it up while it waits; `answer` releases it. Any identity may ask, read-only ones included: it is how an agent says "I am stuck". A question about a task someone else holds is recorded for them without blocking it. A done task cannot be held up (exit 3).',
  args: [restArg('question', 'the question')],
  flags: {
    about: str('the task it is about', { valueName: 'REF', required: true }),
    need: str('what you need to go on'),
  },
  json: 'question/v1',
  mutates: true,
  anyGrant: true,
  examples: [
    'dacli ask "Should refunds round half-up or half-even?" --about ledger/4 --need "a rounding rule"',
    'dacli ask "Which port may the service use?" --about api/2 --json',
  ],
  async run(ctx, input) {
    const store = await ctx.store()
    const who = await ctx.identity()
    const need = input.flags.need
    const r = await askQuestion(store, who, {
      about: input.flags.about,
      text: input.args.question,
      ...(need === undefined ? {} : { need }),
    })
    const body = questionBody(r.question, r.task, null)
    const data: QuestionDocT = {
      schema: 'question/v1',
      ...body,
      task: { ref: qualifiedRef(r.task), status: r.task.status, blocked_by: r.task.blocked_by },
      not_blocking_reason: r.not_blocking_reason,
      next: [cmd(`answer ${r.question.id} "<answer>"`), cmd(`threads --about ${qualifiedRef(r.task)}`)],
    }
    return {
      data,
      human(out) {
        out.line(`asked ${out.style('bold', data.id)} about ${data.task.ref}`)
        if (r.blocks) {
          out.line(
            data.task.blocked_by === data.id
              ? `${data.task.ref} is blocked until it is answered`
              : `${data.task.ref} was already blocked (by ${data.task.blocked_by ?? 'a reason'}); it stays blocked until both are settled`,
          )
        } else out.line(`${data.task.ref} is not held up: ${data.not_blocking_reason}`)
        out.line(out.style('dim', `a person answers with: ${data.next[0]}`))
      },
    }
  },
})
