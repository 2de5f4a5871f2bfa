/**
 * `npm start` (examples/node-server/server.ts) in a process of its own, stopped when the test
 * ends: what tests run when several processes share one database.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { onTestFinished } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * Starts the example server with `env` on a free port; resolves with its API root once it listens.
 * @example const { root } = await startExample({ CALENDAR_DB: file })
 */
export function startExample(env: Record<string, string>): Promise<{ root: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/node-server/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  )
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const m = /listening on (http:\/\/\S+?)\/?\n/.exec(out)
      if (m) resolve({ root: m[1]!, child })
    })
    child.once('exit', (code) => reject(new Error(`example server exited with ${code}: ${err}`)))
  })
}
