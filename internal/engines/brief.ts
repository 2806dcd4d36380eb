// Fitting a brief into a token budget (commands.md, The context brief).
// Sections come in priority order; the first is never trimmed. Sections are
// dropped from the bottom until the brief fits, and every omission is announced
// inline and listed. Tokens are estimated as characters / 4. Pure.

/**
 * The brief is the prompt dacli hands an agent (`context`, MCP `get_context`). Its layout — the header saying quoted
 * blocks are data, the sections in their fixed order, attributed quotes, announced omissions — is versioned as
 * `prompt.context-brief` in `capabilities`; bump this when a skill reading the markdown would need to change.
 */
export const BRIEF_PROMPT_VERSION = 1

export interface BriefSection {
  title: string
  content: string
}

export interface Trimmed {
  markdown: string
  kept: (BriefSection & { tokens: number })[]
  omitted: { section: string; reason: string }[]
  estimated_tokens: number
}

export const tokensOf = (text: string): number => Math.ceil(text.length / 4)

const render = (s: BriefSection) => `## ${s.title}\n\n${s.content.trim()}\n`

export class BudgetError extends Error {
  constructor(readonly minimum: number) {
    super(`the budget is smaller than the task itself (at least ${minimum} tokens)`)
  }
}

/** Assemble `header` + sections within `budget` tokens (null = unlimited). */
export function fitBrief(header: string, sections: readonly BriefSection[], budget: number | null): Trimmed {
  const kept = [...sections]
  const omitted: { section: string; reason: string }[] = []
  const assemble = () => {
    const notice =
      omitted.length === 0 ? '' : `\n## Omitted\n\n${omitted.map((o) => `- ${o.section}: ${o.reason}`).join('\n')}\n`
    return `${header.trim()}\n\n${kept.map(render).join('\n')}${notice}`
  }
  const minimum = tokensOf(`${header.trim()}\n\n${sections[0] ? render(sections[0]) : ''}\n## Omitted\n\n`)
  if (budget !== null && sections.length > 0 && minimum > budget) throw new BudgetError(minimum)
  let md = assemble()
  while (budget !== null && tokensOf(md) > budget && kept.length > 1) {
    const dropped = kept.pop() as BriefSection
    omitted.unshift({
      section: dropped.title,
      reason: `left out to fit the budget of ${budget} tokens (${tokensOf(render(dropped))} tokens)`,
    })
    md = assemble()
  }
  return {
    markdown: md,
    kept: kept.map((s) => ({ ...s, tokens: tokensOf(render(s)) })),
    omitted,
    estimated_tokens: tokensOf(md),
  }
}
