import { diagnose } from './diagnose.js'
import { land } from './land.js'
import { open } from './open.js'
import { wait } from './wait.js'

export const commands = [diagnose, wait, open, land]
