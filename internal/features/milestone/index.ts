import { list } from './list.js'

export const commands = [list]
