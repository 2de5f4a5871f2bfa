/**
 * vitest globalSetup of the `runtime` project: builds dist/ once (tsup, ESM + CJS + .d.ts) before
 * the tests that run the built package on Node, Bun and Deno and pack it for a consumer.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

export default async function setup(): Promise<void> {
  const root = fileURLToPath(new URL('../..', import.meta.url))
  const started = Date.now()
  try {
    await promisify(execFile)(process.execPath, ['node_modules/tsup/dist/cli-default.js'], { cwd: root, maxBuffer: 16 * 1024 * 1024 })
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    throw new Error(`build failed (npm run build):\n${stdout}\n${stderr}`)
  }
  console.log(`[build-setup] dist/ built in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
