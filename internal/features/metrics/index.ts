import { metrics } from './metrics.js'

export const commands = [metrics]
