// Risk documents from store records.

import type { RiskRecord } from '../../domain/notes/notes.js'
import type { RiskDocT } from './json.js'

export function riskBody(r: RiskRecord): Omit<RiskDocT, 'schema' | 'outcome'> {
  return { ...r, managed: r.action !== null }
}
