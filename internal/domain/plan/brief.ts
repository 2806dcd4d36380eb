// Fitting a brief into a token budget.
// Sections come in priority order; the first is never trimmed. Sections are
// dropped from the bottom until the brief fits, and every omission is announced
// inline and listed. Tokens are estimated as characters / 4 of the whole markdown
// (header and omission notice included). Pure.

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
    super(`the budget cannot hold the header, the first section and the omission notice (at least ${minimum} tokens)`)
  }
}

/**
 * The brief with the first `keep` sections and the rest announced as omitted. The budget is named once, in the
 * notice's lead line, so the text grows by at most one character when the budget gains a digit: a budget that fits
 * the task alone stays enough for every larger budget (no gap just past 999 tokens).
 */
function assemble(header: string, sections: readonly BriefSection[], keep: number, budget: number | null): string {
  const dropped = sections.slice(keep)
  const notice =
    dropped.length === 0
      ? ''
      : `\n## Omitted\n\nLeft out to fit the budget of ${budget} tokens (a larger budget brings them back):\n${dropped
          .map((s) => `- ${s.title}: left out (${tokensOf(render(s))} tokens)`)
          .join('\n')}\n`
  return `${header.trim()}\n\n${sections.slice(0, keep).map(render).join('\n')}${notice}`
}

/**
 * The smallest budget the brief fits in with the first `keep` sections kept, everything in the markdown counted.
 * That text is non-decreasing in the budget (only the budget's digits change), so following b → tokens(text at b)
 * from 1 upwards stops at the least b whose text fits.
 */
function minimumBudget(header: string, sections: readonly BriefSection[], keep: number): number {
  let b = 1
  for (let need = tokensOf(assemble(header, sections, keep, b)); need > b; ) {
    b = need
    need = tokensOf(assemble(header, sections, keep, b))
  }
  return b
}

/**
 * Assemble `header` + sections within `budget` tokens (null = unlimited), keeping the longest run of sections from
 * the top that fits. Every character of the returned markdown counts — header, sections and the omission notice —
 * so `estimated_tokens <= budget` always holds. When no run fits (the first section is never dropped), a
 * BudgetError names the least budget that does; every larger budget fits too.
 */
export function fitBrief(header: string, sections: readonly BriefSection[], budget: number | null): Trimmed {
  const floor = Math.min(1, sections.length)
  let keep = sections.length
  let md = assemble(header, sections, keep, budget)
  // Omitting a tiny section can cost more than keeping it (its notice line is longer), so every run is tried.
  while (budget !== null && tokensOf(md) > budget) {
    if (keep === floor) {
      const runs = Array.from({ length: sections.length - floor + 1 }, (_, i) => floor + i)
      throw new BudgetError(Math.min(...runs.map((k) => minimumBudget(header, sections, k))))
    }
    md = assemble(header, sections, --keep, budget)
  }
  return {
    markdown: md,
    kept: sections.slice(0, keep).map((s) => ({ ...s, tokens: tokensOf(render(s)) })),
    omitted: sections.slice(keep).map((s) => ({
      section: s.title,
      reason: `left out to fit the budget of ${budget} tokens (${tokensOf(render(s))} tokens)`,
    })),
    estimated_tokens: tokensOf(md),
  }
}
