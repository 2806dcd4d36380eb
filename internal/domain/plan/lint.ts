// Lint rules for plans: INVEST's testability (acceptance
// criteria), ambiguous wording, decisions without a rejected alternative, and
// serious risks without an action. Pure: values in, findings out.

export interface LintFinding {
  code: string
  severity: 'error' | 'warning' | 'info'
  subject: string
  message: string
}

/** Words and phrases that make a criterion impossible to check. */
export const AMBIGUOUS = [
  'properly',
  'correctly',
  'appropriately',
  'adequately',
  'as needed',
  'as appropriate',
  'as required',
  'if necessary',
  'etc',
  'and so on',
  'and/or',
  'fast',
  'quickly',
  'efficient',
  'efficiently',
  'user-friendly',
  'user friendly',
  'intuitive',
  'easy',
  'robust',
  'seamless',
  'seamlessly',
  'flexible',
  'scalable',
  'optimal',
  'optimize',
  'reasonable',
  'sufficient',
  'several',
  'various',
  'better',
  'improve',
  'clean up',
  'tbd',
  'tba',
  'should work',
  'state of the art',
] as const

/** Each term as it is searched for (space-delimited, punctuation dropped), and all of them as one pattern. */
let needles: { each: string[]; any: RegExp } | null = null

/** The ambiguous terms found in a text (whole words, case-insensitive). */
export function ambiguousTerms(text: string): string[] {
  // Made once per process: lint asks this of every title and criterion of a workspace (30,000 texts at 10,000
  // tasks), and most contain none of the terms, which one pattern says in a single pass.
  if (needles === null) {
    const each = AMBIGUOUS.map((w) => ` ${w.replace(/[^\p{L}\p{N}/ -]+/gu, '')} `)
    const literal = (n: string) => n.trim().replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')
    needles = { each, any: new RegExp(` (?:${each.map(literal).join('|')}) `) }
  }
  const t = ` ${text.toLowerCase().replace(/[^\p{L}\p{N}/-]+/gu, ' ')} `
  if (!needles.any.test(t)) return []
  const each = needles.each
  return AMBIGUOUS.filter((_, i) => t.includes(each[i] as string))
}

export interface LintTask {
  ref: string
  title: string
  status: string
  criteria: readonly string[]
}

export function lintTask(t: LintTask): LintFinding[] {
  if (t.status === 'done') return []
  const out: LintFinding[] = []
  if (t.criteria.length === 0) {
    out.push({
      code: 'no-acceptance-criteria',
      severity: 'warning',
      subject: t.ref,
      message: 'no acceptance criteria: nothing says when it is done (INVEST: testable)',
    })
  }
  const inTitle = ambiguousTerms(t.title)
  if (inTitle.length > 0) {
    out.push({
      code: 'ambiguous-title',
      severity: 'info',
      subject: t.ref,
      message: `the title uses vague wording: ${inTitle.map((w) => `"${w}"`).join(', ')}`,
    })
  }
  t.criteria.forEach((c, i) => {
    const words = ambiguousTerms(c)
    if (words.length > 0) {
      out.push({
        code: 'ambiguous-criterion',
        severity: 'warning',
        subject: t.ref,
        message: `criterion ${i + 1} cannot be checked as written: ${words.map((w) => `"${w}"`).join(', ')} — say what is measured`,
      })
    }
  })
  return out
}

export function lintDecision(d: { subject: string; rejected: string | null }): LintFinding[] {
  return d.rejected === null
    ? [
        {
          code: 'decision-without-rejected',
          severity: 'warning',
          subject: d.subject,
          message: 'a decision without a rejected alternative: what else was considered?',
        },
      ]
    : []
}

export function lintRisk(r: { subject: string; rank: number; action: string | null }): LintFinding[] {
  return r.rank <= 2 && r.action === null
    ? [
        {
          code: 'unmanaged-risk',
          severity: 'warning',
          subject: r.subject,
          message: `a rank ${r.rank} risk without an action`,
        },
      ]
    : []
}
