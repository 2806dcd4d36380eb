import { serve } from './serve.js'

export const commands = [serve]
