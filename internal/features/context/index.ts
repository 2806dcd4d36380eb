import { context } from './context.js'

export const commands = [context]
