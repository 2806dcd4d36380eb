import { watch } from './watch.js'

export const commands = [watch]
