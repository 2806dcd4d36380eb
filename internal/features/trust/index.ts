import { accept } from './accept.js'
import { show } from './show.js'

export const commands = [show, accept]
