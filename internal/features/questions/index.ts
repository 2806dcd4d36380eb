import { answer } from './answer.js'
import { ask } from './ask.js'
import { threads } from './threads.js'

export const commands = [ask, answer, threads]
