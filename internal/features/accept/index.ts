import { accept } from './accept.js'

export const commands = [accept]
