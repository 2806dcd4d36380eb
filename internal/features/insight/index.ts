import { criticalPath } from './critical-path.js'
import { next } from './next.js'
import { overview } from './overview.js'
import { status } from './status.js'

export const commands = [status, overview, next, criticalPath]
