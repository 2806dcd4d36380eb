import { log } from './log.js'
import { record } from './record.js'

export const commands = [record, log]
