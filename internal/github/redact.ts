// Secrets never leave the process: every message that could carry text from
// GitHub or from a failed request passes through redact() before it becomes
// an error, a note or a document. Besides the token in use, anything shaped
// like a GitHub token is masked too (a server may echo another credential).

const MASK = '[redacted]'

/** GitHub token shapes: classic (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained (github_pat_). */
const TOKEN_SHAPES = /\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,})\b/g

export function redact(text: string, secrets: readonly (string | null | undefined)[] = []): string {
  let out = text
  for (const s of secrets) {
    // Short strings would mask ordinary words; real tokens are long.
    if (typeof s === 'string' && s.length >= 8) out = out.split(s).join(MASK)
  }
  return out.replace(TOKEN_SHAPES, MASK)
}
