import { log } from './log.js'
import { pull } from './pull.js'
import { push } from './push.js'
import { record } from './record.js'
import { sync } from './sync.js'

export const commands = [record, log, push, pull, sync]
