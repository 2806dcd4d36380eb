import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['internal/**/*.test.ts', 'cmd/**/*.test.ts', 'scripts/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
