// Secrets never leave the process: every message that could carry text from
// GitHub or from a failed request passes through redact() before it becomes
// an error, a note or a document. Besides the token in use, anything shaped
// like a GitHub token is masked too (a server may echo another credential).

import type { Issue } from './shapes.js'

const MASK = '[redacted]'

/** GitHub token shapes: classic (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained (github_pat_). */
const TOKEN_SHAPES = /\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,})\b/g

export function redact(text: string, secrets: readonly (string | null | undefined)[] = []): string {
  return maskSecrets(text, secrets).replace(TOKEN_SHAPES, MASK)
}

/**
 * Mask only the given secrets (for GitHub's own text — titles, bodies, labels, logins — where masking every
 * token-shaped string would make an issue read back differently from what was written, on every push).
 */
export function maskSecrets(text: string, secrets: readonly (string | null | undefined)[]): string {
  let out = text
  for (const s of secrets) {
    // Short strings would mask ordinary words; real tokens are long.
    if (typeof s === 'string' && s.length >= 8) out = out.split(s).join(MASK)
  }
  return out
}

/** An issue as dacli may use it: the given secrets masked in every text field. */
export function maskIssue(i: Issue, secrets: readonly (string | null | undefined)[]): Issue {
  const mask = (text: string) => maskSecrets(text, secrets)
  return {
    ...i,
    title: mask(i.title),
    body: mask(i.body),
    labels: i.labels.map(mask),
    milestone: i.milestone === null ? null : mask(i.milestone),
    author: i.author === null ? null : mask(i.author),
  }
}
