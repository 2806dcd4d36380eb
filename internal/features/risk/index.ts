import { add } from './add.js'
import { list } from './list.js'

export const commands = [add, list]
